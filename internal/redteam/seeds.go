package redteam

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ErrSeeds marks a seed file that cannot be used (exit 2).
var ErrSeeds = errors.New("bad seed file")

// LoadSeeds reads a seed file: a YAML list of payload texts, each tried
// after a scenario's own payload (with the converter ladder under
// --adaptive). A seed may use the placeholders of a scenario payload
// ({sink}, {secret}, {target_tool}, {attacker}), filled in per run. Errors
// name the file and line.
func LoadSeeds(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSeeds, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrSeeds, path, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.SequenceNode {
		line := 1
		if len(doc.Content) == 1 {
			line = doc.Content[0].Line
		}
		return nil, fmt.Errorf("%w: %s:%d: want a list of payload texts (- \"...\")", ErrSeeds, path, line)
	}
	var seeds []string
	for _, n := range doc.Content[0].Content {
		if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
			return nil, fmt.Errorf("%w: %s:%d: a seed is a text, not %s", ErrSeeds, path, n.Line, strings.TrimPrefix(n.ShortTag(), "!!"))
		}
		s := strings.TrimSpace(n.Value)
		if s == "" {
			return nil, fmt.Errorf("%w: %s:%d: empty seed", ErrSeeds, path, n.Line)
		}
		seeds = append(seeds, s)
	}
	if len(seeds) == 0 {
		return nil, fmt.Errorf("%w: %s: no seeds in the list", ErrSeeds, path)
	}
	return seeds, nil
}

// FixedSeeds is a SeedSource that adds the same seeds to every scenario.
func FixedSeeds(seeds []string) SeedSource {
	return func(Scenario) []string { return seeds }
}
