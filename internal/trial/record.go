package trial

// RecordSchemaVersion is the version of the trial record
// (schema/trial-record.schema.json). Bump it when a field is renamed or
// removed.
const RecordSchemaVersion = 1

// Record is one line of trials.jsonl: the trial keys, the scores and the
// path of the trace. Field names are part of mcpsec's contract.
type Record struct {
	// SchemaVersion is RecordSchemaVersion in every record mcpsec writes;
	// records of runs written before it existed read as 0.
	SchemaVersion int `json:"schema_version"`
	Trial
	Control bool `json:"control"`

	// Error is nil for a completed trial; errored trials are excluded from
	// every rate.
	Error     *string `json:"error"`
	ErrorKind string  `json:"error_kind,omitempty"`

	// v1
	Fired        bool `json:"fired"`
	CanaryInArgs bool `json:"canary_in_args"`
	// v2
	Attempted bool `json:"attempted"`
	Realized  bool `json:"realized"`
	Blocked   bool `json:"blocked"`
	Canary    bool `json:"canary"`
	// ObjectiveMet is the objective-specific success (exfil: canary
	// realized in the sink; arg_tamper: tamper predicate; destructive:
	// target deleted).
	ObjectiveMet        bool `json:"objective_met"`
	Utility             bool `json:"utility"`
	BlockedExpectedTool bool `json:"blocked_expected_tool"`
	SideEffect          bool `json:"side_effect"`
	Exposed             bool `json:"exposed"`
	Truncated           bool `json:"truncated"`

	Steps        int `json:"steps"`
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
	Blocks       int `json:"blocks"`
	Prompts      int `json:"prompts"`

	// Trace is the trace file's path relative to the run directory. A
	// sweep packs many trials' traces into one file (trace.Pack): then
	// the trial's trace is the TraceBytes of text that start TraceOffset
	// bytes into the gzip member at byte TraceMember of the file. Without
	// TraceBytes the trace is the whole file (one trial per file, as
	// mcpsec trial --trace and runs of older versions write it).
	Trace       string `json:"trace"`
	TraceMember int64  `json:"trace_member,omitempty"`
	TraceOffset int64  `json:"trace_offset,omitempty"`
	TraceBytes  int64  `json:"trace_bytes,omitempty"`
}
