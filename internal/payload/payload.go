// Package payload holds mcpsec's own attack payload registers: seen,
// held-out and adversarial. Payload text is data for defanged fixtures: it
// names only the no-op sink and synthetic canary.
package payload

// Attack classes.
const (
	ClassToolDescription = "tool_description"
	ClassSchemaField     = "schema_field"
	ClassRugPull         = "rug_pull"
	ClassCrossServer     = "cross_server"
	ClassMetadataDrift   = "metadata_drift"
)

// Classes lists every attack class in report order.
var Classes = []string{ClassToolDescription, ClassSchemaField, ClassRugPull, ClassCrossServer, ClassMetadataDrift}

// Objectives.
const (
	ObjectiveExfil       = "exfil"
	ObjectiveArgTamper   = "arg_tamper"
	ObjectiveDestructive = "destructive"
)

// Objectives lists every objective in report order.
var Objectives = []string{ObjectiveExfil, ObjectiveArgTamper, ObjectiveDestructive}

// Registers.
const (
	RegisterSeen        = "seen"
	RegisterHeldOut     = "held-out"
	RegisterAdversarial = "adversarial"
)

// Registers lists every register in report order.
var Registers = []string{RegisterSeen, RegisterHeldOut, RegisterAdversarial}

// Carriers say where in a tool the payload sits.
const (
	CarrierDescription     = "description"      // tool description
	CarrierPropDescription = "prop_description" // a property's description
	CarrierPropTitle       = "prop_title"       // a property's title
	CarrierPropDefault     = "prop_default"     // a property's default value
	CarrierEnum            = "enum"             // an enum value
	CarrierNested          = "nested"           // a nested object / array item description
	CarrierResult          = "result"           // a tool result (rug_pull result mode)
)

// Payload is one attack text with its labels.
type Payload struct {
	ID        string `json:"id"`
	Class     string `json:"class"`
	Carrier   string `json:"carrier"`
	Objective string `json:"objective"`
	Register  string `json:"register"`
	Style     string `json:"style"`
	Text      string `json:"text"`
	// Lang is the language of a non_english adversarial payload (BCP 47).
	Lang string `json:"lang,omitempty"`
	// Plain is the readable instruction an adversarial payload encodes or
	// hides; it is empty for the other registers, whose Text is plain.
	Plain string `json:"plain,omitempty"`
}
