//go:build tools

// This file pins modules that packages adopt one by one, so that go mod
// tidy keeps them while the tree is being built up.
package tools

import (
	_ "github.com/anthropics/anthropic-sdk-go/v2"
	_ "github.com/cloudflare/ahocorasick"
	_ "github.com/modelcontextprotocol/go-sdk/mcp"
	_ "github.com/openai/openai-go/v3"
	_ "go.yaml.in/yaml/v3"
	_ "golang.org/x/text/unicode/norm"
	_ "google.golang.org/genai"
	_ "gopkg.in/dnaeon/go-vcr.v4/pkg/recorder"
)
