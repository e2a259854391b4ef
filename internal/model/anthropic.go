package model

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// anthropicAdapter talks to the Messages API through the official SDK.
type anthropicAdapter struct {
	client anthropic.Client
	model  string
}

func newAnthropic(model, key, baseURL string, hc *http.Client, timeout time.Duration) (providerCall, error) {
	opts := []option.RequestOption{
		// Keys and endpoints come from Options.Getenv, never from the
		// SDK's own look at the process environment or profile files.
		option.WithoutEnvironmentDefaults(),
		option.WithAPIKey(key),
		option.WithHTTPClient(hc),
		// The retry loop in this package owns timing and Retry-After.
		option.WithMaxRetries(0),
		// Without an explicit timeout the SDK refuses non-streaming
		// requests whose max_tokens might take over ten minutes; the
		// attempt deadline bounds them anyway.
		option.WithRequestTimeout(timeout),
	}
	if baseURL != "" {
		opts = append(opts, option.WithBaseURL(baseURL))
	}
	a := &anthropicAdapter{client: anthropic.NewClient(opts...), model: model}
	return a.complete, nil
}

func (a *anthropicAdapter) complete(ctx context.Context, req Request) (Response, error) {
	params, err := a.params(req)
	if err != nil {
		return Response{}, &parseFailure{err}
	}
	msg, err := a.client.Messages.New(ctx, params)
	if err != nil {
		return Response{}, anthropicError(err)
	}
	return anthropicResponse(msg)
}

func (a *anthropicAdapter) params(req Request) (anthropic.MessageNewParams, error) {
	p := anthropic.MessageNewParams{
		Model:     anthropic.Model(a.model),
		MaxTokens: int64(req.MaxTokens),
	}
	if p.MaxTokens <= 0 {
		p.MaxTokens = 1024
	}
	if req.System != "" {
		p.System = []anthropic.TextBlockParam{{Text: req.System}}
	}
	for _, t := range req.Tools {
		p.Tools = append(p.Tools, anthropic.ToolUnionParam{OfTool: &anthropic.ToolParam{
			Name:        t.Name,
			Description: anthropic.String(t.Description),
			InputSchema: anthropicSchema(t.InputSchema),
		}})
	}
	for i, m := range req.Messages {
		var role string
		var blocks []anthropic.ContentBlockParamUnion
		switch m.Role {
		case RoleUser:
			role = "user"
			blocks = append(blocks, anthropic.NewTextBlock(m.Content))
		case RoleTool:
			// Tool results travel inside a user turn.
			role = "user"
			tr := anthropic.ToolResultBlockParam{ToolUseID: m.ToolCallID, IsError: anthropic.Bool(m.IsError)}
			if m.Content != "" {
				tr.Content = []anthropic.ToolResultBlockParamContentUnion{{OfText: &anthropic.TextBlockParam{Text: m.Content}}}
			}
			blocks = append(blocks, anthropic.ContentBlockParamUnion{OfToolResult: &tr})
		case RoleAssistant:
			role = "assistant"
			if m.Content != "" {
				blocks = append(blocks, anthropic.NewTextBlock(m.Content))
			}
			for _, tc := range m.ToolCalls {
				blocks = append(blocks, anthropic.NewToolUseBlock(tc.ID, argumentsObject(tc), tc.Name))
			}
		default:
			return p, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
		if len(blocks) == 0 {
			continue
		}
		// The API wants all results of one assistant turn in a single
		// user turn, so consecutive same-role messages are merged.
		n := len(p.Messages)
		switch {
		case role == "user" && n > 0 && p.Messages[n-1].OfUser != nil:
			p.Messages[n-1].OfUser.Content = append(p.Messages[n-1].OfUser.Content, blocks...)
		case role == "assistant" && n > 0 && p.Messages[n-1].OfAssistant != nil:
			p.Messages[n-1].OfAssistant.Content = append(p.Messages[n-1].OfAssistant.Content, blocks...)
		case role == "user":
			p.Messages = append(p.Messages, anthropic.NewUserMessage(blocks...))
		default:
			p.Messages = append(p.Messages, anthropic.NewAssistantMessage(blocks...))
		}
	}
	return p, nil
}

// anthropicSchema passes an MCP input schema through unchanged: every
// member except "type" (which the SDK always writes as "object") goes in
// as an extra field, so nothing is reinterpreted on the way.
func anthropicSchema(s map[string]any) anthropic.ToolInputSchemaParam {
	extra := make(map[string]any, len(s))
	for k, v := range s {
		if k != "type" {
			extra[k] = v
		}
	}
	if _, ok := extra["properties"]; !ok {
		extra["properties"] = map[string]any{}
	}
	return anthropic.ToolInputSchemaParam{ExtraFields: extra}
}

func anthropicResponse(msg *anthropic.Message) (Response, error) {
	out := Response{
		RawStopReason: string(msg.StopReason),
		Usage:         Usage{InputTokens: int(msg.Usage.InputTokens), OutputTokens: int(msg.Usage.OutputTokens)},
		// The Messages API of this SDK generation has no temperature
		// parameter, so none is ever sent.
		TemperatureSent: false,
	}
	var text []string
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			text = append(text, b.Text)
		case "tool_use":
			args, perr := parseArguments(string(b.Input))
			out.ToolCalls = append(out.ToolCalls, ToolCall{ID: b.ID, Name: b.Name, Arguments: args, ParseError: perr})
		}
	}
	out.Content = strings.Join(text, "")
	switch msg.StopReason {
	case anthropic.StopReasonEndTurn, anthropic.StopReasonStopSequence:
		out.StopReason = StopEnd
	case anthropic.StopReasonToolUse:
		out.StopReason = StopToolUse
	case anthropic.StopReasonMaxTokens, anthropic.StopReasonModelContextWindowExceeded:
		out.StopReason = StopMaxTokens
		out.Truncated = true
	default:
		out.StopReason = StopOther
	}
	return out, nil
}

// anthropicError keeps the provider's error type and message but drops
// the SDK's rendering of the request line.
func anthropicError(err error) error {
	var e *anthropic.Error
	if !errors.As(err, &e) {
		return err
	}
	msg := e.Message
	if msg == "" {
		msg = truncate(e.RawJSON(), 500)
	}
	if t := string(e.Type()); t != "" {
		msg = t + ": " + msg
	}
	return errors.New(msg)
}
