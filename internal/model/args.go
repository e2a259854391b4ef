package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

const invalidJSONPrefix = "arguments are not valid JSON"

// parseArguments turns a provider's raw tool-call arguments into a
// ToolCall's Arguments and ParseError. Invalid JSON is kept as a JSON
// string holding the raw text, so that the ToolCall still marshals (a
// json.RawMessage with broken JSON would make every trace write fail).
func parseArguments(raw string) (json.RawMessage, string) {
	trimmed := bytes.TrimSpace([]byte(raw))
	if len(trimmed) == 0 {
		// Some servers send "" for tools without parameters.
		return json.RawMessage(`{}`), ""
	}
	if !json.Valid(trimmed) {
		quoted, _ := json.Marshal(raw)
		var probe any
		err := json.Unmarshal(trimmed, &probe)
		return quoted, fmt.Sprintf("%s: %v", invalidJSONPrefix, err)
	}
	if trimmed[0] != '{' {
		return json.RawMessage(append([]byte(nil), trimmed...)), "arguments are not a JSON object"
	}
	return json.RawMessage(append([]byte(nil), trimmed...)), ""
}

// argumentsObject returns a call's arguments as a JSON object for
// providers that require one when the conversation is sent back; calls
// whose arguments failed to parse are echoed as an empty object.
func argumentsObject(tc ToolCall) json.RawMessage {
	if tc.ParseError != "" || len(bytes.TrimSpace(tc.Arguments)) == 0 || bytes.TrimSpace(tc.Arguments)[0] != '{' {
		return json.RawMessage(`{}`)
	}
	return tc.Arguments
}

// argumentsText returns a call's arguments as the text the model
// originally produced, for providers that carry arguments as a string.
func argumentsText(tc ToolCall) string {
	if strings.HasPrefix(tc.ParseError, invalidJSONPrefix) {
		var s string
		if json.Unmarshal(tc.Arguments, &s) == nil {
			return s
		}
	}
	if len(tc.Arguments) == 0 {
		return "{}"
	}
	return string(tc.Arguments)
}
