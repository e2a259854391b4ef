package model

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// openaiAdapter speaks Chat Completions through the official SDK, to
// OpenAI itself or to any server that copies its wire format (DeepSeek,
// Ollama, vLLM, llama.cpp ...).
type openaiAdapter struct {
	client   openai.Client
	provider string
	model    string
	// noTemperature flips once the server has rejected a temperature, so
	// later requests of the same adapter do not pay for the round trip.
	noTemperature atomic.Bool
}

func newOpenAI(provider, model, key, baseURL string, hc *http.Client) (providerCall, error) {
	if key == "" {
		// Local servers ignore the key but the SDK insists on sending one.
		key = "no-key"
	}
	opts := []option.RequestOption{
		option.WithAPIKey(key),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0),
	}
	// Always explicit: the SDK would otherwise read OPENAI_BASE_URL from
	// the process environment behind Options.Getenv's back (and a replay
	// would then aim at whatever the replaying shell has set).
	if baseURL == "" {
		baseURL = OpenAIBaseURL
	}
	opts = append(opts, option.WithBaseURL(baseURL))
	a := &openaiAdapter{client: openai.NewClient(opts...), provider: provider, model: model}
	if rejectsTemperature(provider, model) {
		a.noTemperature.Store(true)
	}
	return a.complete, nil
}

// reasoningModel reports OpenAI model families that take
// max_completion_tokens and reject a non-default temperature.
func reasoningModel(model string) bool {
	m := strings.ToLower(model)
	for _, p := range []string{"o1", "o3", "o4", "gpt-5"} {
		if m == p || strings.HasPrefix(m, p+"-") || strings.HasPrefix(m, p+".") {
			return true
		}
	}
	return false
}

func rejectsTemperature(provider, model string) bool {
	return provider == ProviderOpenAI && reasoningModel(model)
}

func (a *openaiAdapter) complete(ctx context.Context, req Request) (Response, error) {
	params, err := a.params(req)
	if err != nil {
		return Response{}, &parseFailure{err}
	}
	sendTemp := req.Temperature != nil && !a.noTemperature.Load()
	if sendTemp {
		params.Temperature = openai.Float(*req.Temperature)
	}
	cc, err := a.client.Chat.Completions.New(ctx, params)
	if err != nil && sendTemp && temperatureRejected(err) {
		// Some models only accept their default temperature; say so in
		// the response (TemperatureSent=false) rather than fail the trial.
		a.noTemperature.Store(true)
		sendTemp = false
		params.Temperature = openai.ChatCompletionNewParams{}.Temperature
		cc, err = a.client.Chat.Completions.New(ctx, params)
	}
	if err != nil {
		return Response{}, openaiError(err)
	}
	out, err := openaiResponse(cc)
	if err != nil {
		return Response{}, &parseFailure{err}
	}
	out.TemperatureSent = sendTemp
	return out, nil
}

func temperatureRejected(err error) bool {
	var e *openai.Error
	if !errors.As(err, &e) || e.StatusCode != http.StatusBadRequest {
		return false
	}
	return e.Param == "temperature" || strings.Contains(strings.ToLower(e.Message), "temperature")
}

// openaiError turns an SDK API error into one that keeps the provider's
// message (the SDK's own Error() prints only the status).
func openaiError(err error) error {
	var e *openai.Error
	if !errors.As(err, &e) {
		return err
	}
	var parts []string
	if e.Message != "" {
		parts = append(parts, e.Message)
	} else if raw := e.RawJSON(); raw != "" {
		parts = append(parts, truncate(raw, 500))
	}
	for _, kv := range [][2]string{{"type", e.Type}, {"code", e.Code}, {"param", e.Param}} {
		if kv[1] != "" {
			parts = append(parts, kv[0]+"="+kv[1])
		}
	}
	return fmt.Errorf("%s", strings.Join(parts, " "))
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

func (a *openaiAdapter) params(req Request) (openai.ChatCompletionNewParams, error) {
	p := openai.ChatCompletionNewParams{Model: shared.ChatModel(a.model)}
	if req.MaxTokens > 0 {
		// OpenAI's own API has deprecated max_tokens (and reasoning models
		// reject it); compatible servers often know only max_tokens.
		if a.provider == ProviderOpenAI {
			p.MaxCompletionTokens = openai.Int(int64(req.MaxTokens))
		} else {
			p.MaxTokens = openai.Int(int64(req.MaxTokens))
		}
	}
	if req.System != "" {
		p.Messages = append(p.Messages, openai.SystemMessage(req.System))
	}
	for i, m := range req.Messages {
		switch m.Role {
		case RoleUser:
			p.Messages = append(p.Messages, openai.UserMessage(m.Content))
		case RoleTool:
			// Chat Completions has no error flag on tool results; the text
			// the agent wrote is all the model sees.
			p.Messages = append(p.Messages, openai.ToolMessage(m.Content, m.ToolCallID))
		case RoleAssistant:
			am := openai.ChatCompletionAssistantMessageParam{}
			if m.Content != "" {
				am.Content.OfString = openai.String(m.Content)
			}
			for _, tc := range m.ToolCalls {
				am.ToolCalls = append(am.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
						ID: tc.ID,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{
							Name:      tc.Name,
							Arguments: argumentsText(tc),
						},
					},
				})
			}
			p.Messages = append(p.Messages, openai.ChatCompletionMessageParamUnion{OfAssistant: &am})
		default:
			return p, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
	}
	for _, t := range req.Tools {
		schema := t.InputSchema
		if schema == nil {
			schema = map[string]any{"type": "object", "properties": map[string]any{}}
		}
		p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name:        t.Name,
			Description: openai.String(t.Description),
			Parameters:  shared.FunctionParameters(schema),
		}))
	}
	return p, nil
}

func openaiResponse(cc *openai.ChatCompletion) (Response, error) {
	if len(cc.Choices) == 0 {
		return Response{}, errEmptyResponse
	}
	ch := cc.Choices[0]
	out := Response{
		Content:       ch.Message.Content,
		RawStopReason: ch.FinishReason,
		Usage:         Usage{InputTokens: int(cc.Usage.PromptTokens), OutputTokens: int(cc.Usage.CompletionTokens)},
	}
	for _, tc := range ch.Message.ToolCalls {
		switch tc.Type {
		case "function", "":
			args, perr := parseArguments(tc.Function.Arguments)
			out.ToolCalls = append(out.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: args, ParseError: perr})
		case "custom":
			args, perr := parseArguments(tc.Custom.Input)
			out.ToolCalls = append(out.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Custom.Name, Arguments: args, ParseError: perr})
		}
	}
	switch ch.FinishReason {
	case "stop":
		out.StopReason = StopEnd
	case "tool_calls", "function_call":
		out.StopReason = StopToolUse
	case "length":
		out.StopReason = StopMaxTokens
		out.Truncated = true
	default:
		out.StopReason = StopOther
	}
	// Some compatible servers report "stop" while returning tool calls;
	// what the agent must do next is what matters.
	if out.StopReason == StopEnd && len(out.ToolCalls) > 0 {
		out.StopReason = StopToolUse
	}
	return out, nil
}
