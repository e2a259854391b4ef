package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"google.golang.org/genai"
)

// geminiSynthID prefixes call ids this package invents when the Gemini
// API returns a function call without one; they are never sent back.
const geminiSynthID = "gemini-call-"

// geminiAdapter talks to the Gemini API (not Vertex) through the official
// genai SDK.
type geminiAdapter struct {
	client *genai.Client
	model  string
}

func newGemini(model, key, baseURL string, hc *http.Client) (providerCall, error) {
	// Explicit for the same reason as OpenAI's: genai would otherwise
	// consult GOOGLE_GEMINI_BASE_URL in the process environment.
	if baseURL == "" {
		baseURL = GeminiBaseURL
	}
	cfg := &genai.ClientConfig{
		APIKey:     key,
		Backend:    genai.BackendGeminiAPI,
		HTTPClient: hc,
		// RetryOptions stays nil: genai then makes exactly one attempt and
		// the loop in this package handles Retry-After, which genai ignores.
		HTTPOptions: genai.HTTPOptions{BaseURL: baseURL},
	}
	c, err := genai.NewClient(context.Background(), cfg)
	if err != nil {
		return nil, err
	}
	a := &geminiAdapter{client: c, model: model}
	return a.complete, nil
}

func (a *geminiAdapter) complete(ctx context.Context, req Request) (Response, error) {
	contents, cfg, dropped, err := a.request(req)
	if err != nil {
		return Response{}, &parseFailure{err}
	}
	resp, err := a.client.Models.GenerateContent(ctx, a.model, contents, cfg)
	if err != nil {
		var e genai.APIError
		if errors.As(err, &e) {
			return Response{}, fmt.Errorf("%s: %s", e.Status, e.Message)
		}
		return Response{}, err
	}
	out, err := geminiResponse(resp)
	if err != nil {
		return Response{}, &parseFailure{err}
	}
	out.TemperatureSent = cfg.Temperature != nil
	out.SchemaDropped = dropped
	return out, nil
}

func (a *geminiAdapter) request(req Request) ([]*genai.Content, *genai.GenerateContentConfig, []string, error) {
	cfg := &genai.GenerateContentConfig{}
	if req.System != "" {
		cfg.SystemInstruction = &genai.Content{Parts: []*genai.Part{{Text: req.System}}}
	}
	if req.MaxTokens > 0 {
		cfg.MaxOutputTokens = int32(min(req.MaxTokens, 1<<30))
	}
	if req.Temperature != nil {
		t := float32(*req.Temperature)
		cfg.Temperature = &t
	}
	var dropped []string
	if len(req.Tools) > 0 {
		tool := &genai.Tool{}
		for _, t := range req.Tools {
			schema, d := geminiSchema("gemini: tools/"+t.Name+"/inputSchema", t.InputSchema)
			dropped = append(dropped, d...)
			tool.FunctionDeclarations = append(tool.FunctionDeclarations, &genai.FunctionDeclaration{
				Name:                 t.Name,
				Description:          t.Description,
				ParametersJsonSchema: schema,
			})
		}
		cfg.Tools = []*genai.Tool{tool}
	}

	callNames := map[string]string{}
	var contents []*genai.Content
	add := func(role string, parts ...*genai.Part) {
		if len(parts) == 0 {
			return
		}
		if n := len(contents); n > 0 && contents[n-1].Role == role {
			contents[n-1].Parts = append(contents[n-1].Parts, parts...)
			return
		}
		contents = append(contents, &genai.Content{Role: role, Parts: parts})
	}
	for i, m := range req.Messages {
		switch m.Role {
		case RoleUser:
			add(genai.RoleUser, &genai.Part{Text: m.Content})
		case RoleAssistant:
			for _, tc := range m.ToolCalls {
				callNames[tc.ID] = tc.Name
			}
			if len(m.Raw) > 0 {
				// Echo the model's own turn verbatim: it carries thought
				// signatures the API wants back.
				var c genai.Content
				if err := json.Unmarshal(m.Raw, &c); err != nil {
					return nil, nil, nil, fmt.Errorf("message %d: raw gemini content: %w", i, err)
				}
				add(genai.RoleModel, c.Parts...)
				continue
			}
			var parts []*genai.Part
			if m.Content != "" {
				parts = append(parts, &genai.Part{Text: m.Content})
			}
			for _, tc := range m.ToolCalls {
				var args map[string]any
				_ = json.Unmarshal(argumentsObject(tc), &args)
				fc := &genai.FunctionCall{Name: tc.Name, Args: args}
				if !strings.HasPrefix(tc.ID, geminiSynthID) {
					fc.ID = tc.ID
				}
				parts = append(parts, &genai.Part{FunctionCall: fc})
			}
			add(genai.RoleModel, parts...)
		case RoleTool:
			name := m.ToolName
			if name == "" {
				name = callNames[m.ToolCallID]
			}
			// The API documents "output" and "error" as the keys of a
			// function response.
			key := "output"
			if m.IsError {
				key = "error"
			}
			fr := &genai.FunctionResponse{Name: name, Response: map[string]any{key: m.Content}}
			if !strings.HasPrefix(m.ToolCallID, geminiSynthID) {
				fr.ID = m.ToolCallID
			}
			add(genai.RoleUser, &genai.Part{FunctionResponse: fr})
		default:
			return nil, nil, nil, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
	}
	return contents, cfg, dropped, nil
}

func geminiResponse(resp *genai.GenerateContentResponse) (Response, error) {
	var out Response
	if u := resp.UsageMetadata; u != nil {
		out.Usage = Usage{InputTokens: int(u.PromptTokenCount), OutputTokens: int(u.CandidatesTokenCount + u.ThoughtsTokenCount)}
	}
	if len(resp.Candidates) == 0 || resp.Candidates[0] == nil {
		// A blocked prompt is an answer (the model said nothing), not a
		// transport failure.
		out.StopReason = StopOther
		if pf := resp.PromptFeedback; pf != nil && pf.BlockReason != "" {
			out.RawStopReason = "prompt_blocked:" + string(pf.BlockReason)
			return out, nil
		}
		return out, errEmptyResponse
	}
	cand := resp.Candidates[0]
	out.RawStopReason = string(cand.FinishReason)
	var text []string
	if cand.Content != nil {
		for i, p := range cand.Content.Parts {
			if p == nil {
				continue
			}
			if p.FunctionCall != nil {
				args, err := json.Marshal(p.FunctionCall.Args)
				if err != nil || p.FunctionCall.Args == nil {
					args = json.RawMessage(`{}`)
				}
				id := p.FunctionCall.ID
				if id == "" {
					id = geminiSynthID + strconv.Itoa(i)
				}
				out.ToolCalls = append(out.ToolCalls, ToolCall{ID: id, Name: p.FunctionCall.Name, Arguments: args})
				continue
			}
			if p.Text != "" && !p.Thought {
				text = append(text, p.Text)
			}
		}
		raw, err := json.Marshal(cand.Content)
		if err != nil {
			return out, fmt.Errorf("encoding gemini content: %w", err)
		}
		out.Raw = raw
	}
	out.Content = strings.Join(text, "")
	switch cand.FinishReason {
	case genai.FinishReasonStop:
		out.StopReason = StopEnd
	case genai.FinishReasonMaxTokens:
		out.StopReason = StopMaxTokens
		out.Truncated = true
	default:
		out.StopReason = StopOther
	}
	// Gemini reports STOP for turns that end in function calls.
	if len(out.ToolCalls) > 0 && out.StopReason == StopEnd {
		out.StopReason = StopToolUse
	}
	return out, nil
}
