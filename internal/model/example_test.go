package model_test

import (
	"errors"
	"fmt"

	"github.com/mcpsec/mcpsec/internal/model"
)

func ExampleParseSpec() {
	p, m, u, _ := model.ParseSpec("openai-compatible:qwen2.5@http://127.0.0.1:8000/v1")
	fmt.Println(p, m, u)
	// Output: openai-compatible qwen2.5 http://127.0.0.1:8000/v1
}

func ExampleNew_missingKey() {
	_, err := model.New("anthropic:claude-x", model.Options{Getenv: func(string) string { return "" }})
	fmt.Println(errors.Is(err, model.ErrNoKey))
	fmt.Println(err)
	// Output:
	// true
	// anthropic:claude-x: provider API key not set (set ANTHROPIC_API_KEY)
}
