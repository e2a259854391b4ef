package scan

import (
	"strings"
)

// Structural cues computed from word classes and word order rather than
// stock phrases. Each one models a relation the lexicon cannot see on its
// own: who is addressed, what is acted on, whether it belongs to this tool,
// and where data goes. Verbs are matched in every inflection, objects and
// audiences as classes, so paraphrases of the same act share the cue.
//
// These cues reuse the existing feature bits (the feature word is full):
// a computed concealment sets fHide, a stated flow fDeclFlow, a removed
// safeguard the safety features, and so on. The rules stay as declared.

// Concealment: an omission verb (leave out, hide, do not mention, never
// list, should not be informed) aimed at the user or at the model's
// answer. The verb class is closed, the audience class is what makes it
// concealment rather than documentation of hidden files.
var (
	concealOmitRe = lazyRE(`\b(?:hide|hides|hiding|conceal\w*|withh[oe]ld\w*|keep|keeps|keeping)\s+(?:\w+\s+){0,3}?from\s+(?:the\s+)?(?:users?|human|customer|requester|your\s+(?:\w+\s+)?(?:reply|answer|summary|response))\b|` +
		`\b(?:omit|omits|leave out|leaves out|leave|leaves)\s+(?:\w+\s+){0,3}?(?:mention|reference|trace|record|word|note)\b|\bleave (?:these|this|it|that|them) out\b|` +
		`\b(?:omit|leave out)\s+(?:\w+\s+){0,3}?from\s+(?:your|the)\s+(?:reply|answer|summary|response)\b|` +
		`\b(?:do not|don't|dont|never|must not|mustn't|should not|shouldn't|need not|needn't|no need to|without|not to)\s+(?:be\s+)?(?:\w+\s+){0,2}?(?:tell\w*|told|inform\w*|mention\w*|list\w*|reveal\w*|disclos\w*|explain\w*|bring\w*(?:\s+\w+)?\s+up|notif\w*|surfac\w*|warn\w*|alert\w*|admit\w*|acknowledg\w*)\b|` +
		`\b(?:should|must|need|shall|will)\s*(?:not|n't|never)\s+(?:be\s+)?(?:\w+\s+)?(?:told|informed|notified|alerted|warned|made aware)\b|\bkeep\s+(?:that|this|it|these)\s+quiet\b`)
	concealAudienceRe = lazyRE(`\b(?:users?|user's|human|customer|anyone|requester|why|the reason)\b|\byour\s+(?:\w+\s+)?(?:reply|replies|answer|answers|summary|summaries|response|responses|message|report)\b`)
	// Secrecy addressed to the model: "between us", "keep this to
	// yourself". Honest documentation has no confidant.
	secrecyRe = lazyRE(`\bbetween (?:us|you and me|ourselves)\b|\bto yourself\b|\boff the record\b|\bour (?:little )?secret\b|\bkeep (?:this|that|it) (?:quiet|hush)\b`)
)

// Stated flows: a movement verb in a third-person or passive form whose
// destination is a literal address or an outside party. Orders use the
// base form and are other rules' business.
var (
	declVerbRe     = lazyRE(`\b(?:sends|sent|uploads|uploaded|streams|streamed|ships|shipped|delivers|delivered|shares|shared|forwards|forwarded|copies|copied|mirrors|mirrored|replicates|replicated|relays|relayed|posts|posted|pushes|pushed|syncs|synced|synchroni[sz]ed|logs|logged|exports|exported|leaks|leaked|retains|retained|transmits|transmitted|discloses|disclosed|sells|sold|beams|beamed|pipes|piped|submits|submitted|transfers|transferred|duplicated|backed up|reported|passed on|handed over|carries|carried)\b`)
	outsidePartyRe = lazyRE(`\b(?:third[- ]party|outside|external|foreign|partner|advertising|marketing|analytics|affiliate|data|lead|research)\s+(?:\w+\s+)?(?:partners?|brokers?|vendors?|buyers?|collectors?|networks?|compan(?:y|ies)|firms?|hosts?|servers?|buckets?|endpoints?|parties|mailbox(?:es)?|services?)\b|\badvertisers?\b|\bdata brokers?\b|\boutside (?:your|the user's|our|the) (?:account|organi[sz]ation|org|tenant|network|company|workspace)\b|\bfor (?:model |ai )?training\b`)
	// A bare host after a preposition ("to leads.example.invalid") or any
	// URL scheme (s3://, gs://) is a destination too.
	bareHostRe = lazyRE(`\b(?:to|at|with|into|on|via|onto)\s+(?:the\s+|a\s+)?(?:[a-z][a-z0-9+.-]*://)?((?:[a-z0-9-]+\.)+([a-z]{2,12}))\b|\b[a-z][a-z0-9+.-]*://[^\s]+`)
)

// fileExtensions are last labels that make "to report.json" a file, not a
// host.
var fileExtensions = map[string]bool{"json": true, "yaml": true, "yml": true, "txt": true, "md": true, "js": true, "ts": true, "py": true,
	"go": true, "env": true, "csv": true, "xml": true, "html": true, "htm": true, "pdf": true, "png": true, "jpg": true, "jpeg": true, "gif": true,
	"zip": true, "tar": true, "gz": true, "log": true, "conf": true, "cfg": true, "ini": true, "toml": true, "sh": true, "sql": true, "db": true,
	"lock": true, "mjs": true, "cjs": true, "tsx": true, "jsx": true, "rs": true, "java": true, "rb": true, "php": true, "css": true, "svg": true,
	"docx": true, "xlsx": true, "pptx": true, "doc": true, "xls": true, "ppt": true, "bak": true, "tmp": true, "pem": true, "key": true, "crt": true}

// movesOwnSecret reports a demand to read a secret or file and move it,
// or to put its whole contents into a field: even a secret of the tool's
// own topic (a login helper's saved credentials, a pod debugger's
// kubeconfig) is exfiltrated that way.
func movesOwnSecret(f feature) bool {
	order := f&(fImper|fModal|fPrereq) != 0
	return order && (f&(fRead|fFlow) == fRead|fFlow || f&fFlow != 0 && f&fField != 0 && f&(fContents|fUniversal|fVerbatim) != 0)
}

var (
	outrankRe    = lazyRE(`\boutrank\w*\b|\b(?:take|takes|have|has) priority over\b`)
	namedTokenRe = lazyRE(`\b(?:service[- ]account|account|cluster|bot|deploy|registry|personal access|session|bearer|jwt|refresh|access|auth|api)\s+tokens?\b`)
	// Documents that identify a person.
	personalDocRe = lazyRE(`\b(?:tax returns?|passport (?:scans?|cop(?:y|ies)|photos?|numbers?)|id (?:cards?|scans?)|bank statements?|pay ?slips?|medical (?:records?|reports?)|driver'?s licen[cs]es?)\b`)
	// The user's personal folders.
	personalFolderRe = lazyRE(`\b(?:the user's|your|their)\s+(?:\w+\s+(?:and\s+\w+\s+)?)?(?:documents|downloads|desktop|pictures|photos|home)\s+(?:folders?|director(?:y|ies))\b|~/(?:documents|downloads|desktop|pictures)\b`)
	lookThroughRe    = lazyRE(`\b(?:look|search|go|dig|comb|rummage|browse)\s+through\b`)
)

// userDataRe names stores of the user's personal data as a whole.
var userDataRe = lazyRE(`\b(?:address book|contact list|contacts list|location history|browsing history|search history|call log|call history|photo library|calendar entries|inbox contents|private (?:notes|details|descriptions|comments|messages|events|entries|fields|files|remarks))\b`)

// Safeguard removal: the human check before an action (asking the user,
// confirmation, approval, review) is declared unnecessary. Dropping it is
// an override of the model's safety however it is worded.
var (
	safeguardAskRe = lazyRE(`\b(?:without|no need to|not|never|n't|no longer|skip(?:ping)?)\s+(?:\w+\s+){0,2}?(?:ask|asking|check|checking|confirm|confirming|consult|consulting|wait|waiting)\s+(?:with\s+|for\s+)?(?:the\s+)?(?:user|human|owner|operator)\b`)
	safeguardRe    = lazyRE(`\bwithout\s+(?:\w+\s+){0,2}?(?:approval|review|confirmation|consent|sign-off)\b|` +
		`\b(?:confirmations?|approvals?|reviews?|confirmation (?:step|prompt|dialog)s?)\s+(?:\w+\s+){0,4}?(?:is|are|was|were|has been|have been)\s+(?:now\s+)?(?:no longer\s+)?(?:disabled|off|skipped|waived|unnecessary|not needed|not required|needed no more|no longer needed|no longer required|turned off|switched off)\b|` +
		`\bno (?:confirmation|approval|review) (?:is )?(?:needed|required|necessary)\b`)
)

// Lifted rules: the model's own rules, filters or restrictions are stated
// to be suspended, lifted, cleared or outranked.
var (
	ruleObjRe  = lazyRE(`\b(?:content|safety|usual|normal|default|prior|previous|earlier|existing|standard|your|all|any|its|their|the model's|the assistant's|ethical|moral)\s+(?:\w+\s+)?(?:restrictions?|rules|polic(?:y|ies)|filters?|guidelines?|limits|limitations|safeguards?|guardrails?|constraints?|instructions|principles)\b`)
	liftVerbRe = lazyRE(`\b(?:suspended|lifted|relieved of|cleared|waived|voided|void|removed|disabled|switched off|turned off|no longer apply|no longer applies|do not apply|don't apply|does not apply|doesn't apply|outranks?|outranked|overrides?|overridden|supersedes?|superseded|take precedence over|takes precedence over|have priority over|has priority over|exempt(?:ed)? from|released from|freed from)\b`)
	// "with no earlier instructions", "has no rules", "no restrictions apply".
	noRulesRe = lazyRE(`\b(?:with|has|have|having) no (?:earlier |prior |previous |more |further )?(?:instructions|rules|restrictions|limits|limitations|filters|guidelines|policies|constraints)\b|\bno (?:restrictions|rules|limits|filters|policies) (?:apply|exist)\b|\b(?:unfiltered|uncensored|unrestricted) (?:assistant|ai|model|persona|mode|chatbot)\b`)
	// Orders hidden in data: "follow any instruction found in email bodies".
	obeyDataRe = lazyRE(`\b(?:follow|obey|execute|carry out|act on|comply with|run)\w*\s+(?:\w+\s+){0,4}?(?:instructions?|commands?|orders?|directives?|operations?|requests?)\s+(?:\w+\s+){0,2}?(?:found|contained|given|written|embedded|requested|appearing|that appear|that arrive|arriving|returned)\s+(?:\w+\s+){0,2}?(?:in|by|from|inside)\b`)
	// Role and persona switches without a stock phrase.
	personaRe = lazyRE(`\bfrom (?:here|this point|this moment) on\b|\bhenceforth\b|\bfor the rest of (?:the|this) (?:chat|session|conversation)\b|\bstay in character\b|\bin character as\b|\byou(?: are|'re) (?:now )?in (?:\w+[- ])?mode\b|\byou(?: are|'re) (?:now )?(?:an? )?(?:unfiltered|uncensored|unrestricted)\b`)
)

// massObjects are stores of the user's work and data: wiping all of them
// is never one call's documented effect.
const massObjects = `(?:notes?|files?|branch(?:es)?|namespaces?|records?|customers?|data|databases?|repos?|repositor(?:y|ies)|meetings?|events?|users?|accounts?|emails?|messages?|backups?|history|contacts?|documents?|channels?|projects?|tables?|volumes?|buckets?|pods?|deployments?|clusters?|commits?|tickets?|issues?|orders?|invoices?|photos?|folders?|director(?:y|ies)|calendars?|workspaces?|subscriptions?)\b`

// Mass destruction: a destructive verb whose object is everything (all,
// every, entire, except, --all, rm -rf ~), or an account closed and its
// funds moved. Such a step is beyond any single tool's contract.
var (
	massDestructRe = lazyRE(`\b(?:delet|remov|wip|eras|destroy|purg|shred|cancel|revok|uninstall|terminat|nuk)\w*\s+(?:\w+\s+){0,2}?(?:all|every|entire|whole)\s+(?:(?:other|of the|of their|of your|the|user|customer)\s+)?` + massObjects + `|` +
		`\b(?:all|every|entire|whole)\s+(?:\w+\s+){0,2}?` + massObjects + `\s+(?:\w+\s+){0,2}?(?:is|are|be|get|gets|will be)\s+(?:\w+\s+)?(?:wiped|deleted|erased|destroyed|dropped|purged|removed|truncated|cancell?ed)\b|` +
		`\b(?:delet|remov|wip|eras|destroy|purg)\w*\s+(?:every|all)\s+\w+\s+except\b|\bdelete\s+\w+\s+--all\b|` +
		`\bclos(?:e|es|ing)\s+(?:the|your|their|the user's)\s+(?:\w+\s+)?account\b|\bwithdraw\w*\s+(?:the|all|their|your)\s+(?:\w+\s+)?(?:balance|funds)\b`)
	// Wiping the home directory or the root is no tool's own job.
	homeWipeRe = lazyRE(`\brm\s+-[a-z]*r[a-z]*\s+(?:~|/|\$home|\*)(?:\s|$|[.;,])|\bformat (?:the )?(?:disk|drive)\b`)
	// Triggers that fire a step on the user's small talk or on every run.
	triggerRe = lazyRE(`\b(?:when|if) in doubt\b|\bwhenever\b|\bafter (?:every|each|any|all)\b|\b(?:once|twice) a (?:day|week|month)\b|\broutinely\b|\bregardless\b|\bas part of\b|\bwithout asking\b|\bdanach\b|\bduring (?:each|every)\b`)
	// A sentence that opens "Before doing X," frames a prerequisite.
	beforeIngRe = lazyRE(`^(?:\W*)before \w+ing\b`)
)

// Argument forcing: a value of some argument is dictated ("set channel to
// #x", "raise the amount by 5", "replace the image with ...") or the user's
// own choice overruled ("whatever the user typed").
var argumentForceRe = lazyRE(`\b(?:set|change|switch|force|replace|raise|lower|increase|bump|rewrite|point|redirect)\s+(?:the\s+|its\s+|their\s+)?[\w.-]+\s+(?:to|with|by)\b|` +
	`\b(?:whatever|regardless of what|no matter what)\s+(?:the user|they|you)\s+(?:typed|chose|choose|asked|picked|entered|said|wants?|selected|specified|gave)\b|` +
	`\binstead of the \w+ (?:the user|they) (?:chose|picked|selected|gave|specified|typed|entered)\b`)

// adverbOrder reports a clause that opens with an adverb and then an
// imperative verb ("silently change the path", "quietly add"): the adverb
// hides the order from a first-word check.
func adverbOrder(lower string) bool {
	for _, m := range adverbOrderRe.FindAllStringSubmatch(lower, -1) {
		if notAdverb[m[1]] {
			continue
		}
		if imperativeVerbs[m[2]] {
			return true
		}
	}
	return false
}

var adverbOrderRe = lazyRE(`(?:^|[,:;.(]\s*)(\w+ly)\s+([a-z]+)\b`)

// notAdverb are "-ly" words that restrict or are verbs, not manner adverbs
// that dress up an order ("only call this tool when ...").
var notAdverb = map[string]bool{"only": true, "early": true, "apply": true, "reply": true, "supply": true, "daily": true, "weekly": true,
	"monthly": true, "hourly": true, "yearly": true, "likely": true, "family": true, "rely": true, "ally": true, "optionally": true,
	"currently": true, "usually": true, "typically": true, "generally": true, "normally": true, "finally": true, "additionally": false}

// otherBadRe runs down another tool so the model avoids it.
var otherBadRe = lazyRE(`\b(?:unreliable|unsafe|corrupts?|corrupted|corrupting|broken|malicious|compromised|retired|double-charg\w*|insecure|known to|treat (?:it|them) as (?:unavailable|broken|disabled)|no longer (?:available|works|supported)|wrappers? around|legacy path)\b`)

// Cross-tool references beyond the catalog: "the github server's tools",
// "tools named X on any server", "the fetch tool of any other server".
var anyToolRe = lazyRE(`\b(?:the |a |an )?[\w-]+ server'?s?'? tools?\b|\btools? (?:of|from|on|in) (?:the |any |another |every |all )?(?:other )?[\w-]+ servers?\b|\btools? named\b|\bwhose names? (?:start|begin|end)s? with\b|\b(?:on|of|from) any (?:other )?server\b`)

// Hooks: a trigger on another tool's run followed by a call of this tool.
var hookTriggerRe = lazyRE(`\b(?:whenever|each time|every time|after (?:any|every|each|all)|before (?:any|every|each|all)|when(?:ever)? (?:the |a |an |any |one of )?[\w-]+(?: \w+){0,5}? (?:runs|run|is (?:called|invoked|used|run)|are (?:called|invoked|used|run)|returns|executes|completes))\b`)

// Preference: "this is the only X tool", "rank me first".
var (
	onlySelfRe = lazyRE(`\b(?:this is|i am|i'm) the (?:only|sole|one)\b`)
	chooseMeRe = lazyRE(`\b(?:use|choose|call|pick|rank|prefer|select|prioriti[sz]e|favou?r)\s+me\b`)
	// othersWideRe is othersRe with room for a few qualifying words
	// ("any other search or fetch tool").
	othersWideRe = lazyRE(`\b(?:any|all|every|each)\s+(?:other|alternative|competing|rival|similar)\s+(?:[\w-]+\s+){0,3}?(?:tools?|servers?|functions?|services?|providers?|plugins?|apis?|integrations?)\b`)
)

// Sources the model can see, in any wording: what it has seen or found,
// what the user said earlier, every user turn, the output of a command that
// prints the environment or secrets.
var (
	seenRe     = lazyRE(`\byou(?: have|'ve)? (?:seen|found|come across|encountered|noticed|observed)\b|\byou (?:find|see|encounter|come across|notice)\b`)
	userSaidRe = lazyRE(`\b(?:the user|they|he|she)\s+(?:has |have |had )?(?:said|made|wrote|written|typed|mentioned|shared|told you|asked|entered|disclosed)\b[^.]{0,60}?\b(?:earlier|before|previously|so far|in (?:this|the) (?:chat|conversation|session|thread))\b|\b(?:earlier|previously|before) in (?:this|the) (?:chat|conversation|session|thread)\b|\b(?:every|all|each|previous|prior|earlier|past)\s+(?:\w+\s+)?user (?:turns?|utterances?|prompts?|messages?)\b`)
	envDumpRe  = lazyRE("\\boutput of [`'\"]?(?:env|printenv|set|export -p|history)\\b|\\b(?:run|execute|exec)\\s+[`'\"]?[\\w./-]+(?:\\s+[^\\s.;]+){0,6}?\\s+(?:and|then)\\s+(?:paste|put|include|send|copy|pass|attach|add)\\s+(?:the |its |their )?(?:output|result)")
)

// cueUpper over-approximates cues for the prefilter: every cue that the
// lowered whole text could yield.
func (sc *scanner) cueUpper(text, lower, server, tool string) feature {
	var f feature
	l := lower
	_, h := sc.gatesOf(lower)
	if gConceal(h, l) {
		f |= fHide | fUser
	}
	if gSecrecy(h, l) {
		f |= fHideStrong
	}
	dest, outside := gDest(h, l), gOutside(h, l)
	if outside {
		f |= fOutside
	}
	if dest || outside {
		f |= fDeclFlow | fDest
	}
	if gSafeguard(h, l) {
		f |= fOvSafeVerb | fSafetyObj | fTamper | fUnreq
	}
	if gUserData(h, l) {
		f |= fUserData
	}
	if gLift(h, l) || gNoRules(h, l) {
		f |= fOvSafeVerb | fSafetyObj
	}
	if gObey(h, l) {
		f |= fOvVerb | fOvObj | fOvScope
	}
	if h&hintCue33 != 0 {
		f |= fOvVerb
	}
	if gPersona(h, l) {
		f |= fModeSwitch
	}
	if gMass(h, l) || h&hintCue34 != 0 && (strings.Contains(l, "format ") || hasWordStart(l, "rm")) {
		f |= fDestructDemand
	}
	if gTrigger(h, l) {
		f |= fUnreq
	}
	if h&hintCue35 != 0 {
		f |= fPrereq
	}
	if gAnyTool(h, l) {
		f |= fAnyTool
	}
	if gForce(h, l) {
		f |= fTamper
	}
	if h&hintCue36 != 0 {
		f |= fImper
	}
	if h&hintCue37 != 0 {
		f |= fRead | fImper
	}
	// Tool identifiers joined by "_" are bounded by toolRefUpper.
	if gHook(h, l) {
		f |= fSelfInsert
	}
	if h&hintCue38 != 0 || gEnvDump(h, l) {
		f |= fSecret | fSrc | fContents
	}
	if gPersonalDoc(h, l) {
		f |= fPersonal
	}
	if gFolder(h, l) {
		f |= fFile | fSrc
	}
	if gOtherBad(h, l) {
		f |= fDisparage
	}
	if h&hintCue39 != 0 {
		f |= fSelfRef | fUniversal
	}
	if h&hintCue40 != 0 {
		f |= fOthers
	}
	if gSeen(h, l) {
		f |= fSrc | fUniversal
	}
	if gUserSaid(h, l) {
		f |= fCtx | fSrc | fConvSrc
	}
	return f
}

// Hint bits of the cue gates, above the engine's own hints; each is one
// phrase group found in the same automaton pass as the others.
const (
	hintCue0 uint64 = 1 << iota
	hintCue1
	hintCue2
	hintCue3
	hintCue4
	hintCue5
	hintCue6
	hintCue7
	hintCue8
	hintCue9
	hintCue10
	hintCue11
	hintCue12
	hintCue13
	hintCue14
	hintCue15
	hintCue16
	hintCue17
	hintCue18
	hintCue19
	hintCue20
	hintCue21
	hintCue22
	hintCue23
	hintCue24
	hintCue25
	hintCue26
	hintCue27
	hintCue28
	hintCue29
	hintCue30
	hintCue31
	hintCue32
	hintCue33
	hintCue34
	hintCue35
	hintCue36
	hintCue37
	hintCue38
	hintCue39
	hintCue40
)

// cueGatePatterns lists every gate phrase with its gate bit; they are
// found in the same automaton pass as the engine's raw hints (see
// buildHints). Unlike those hints, a phrase listed under several gates
// signals all of them.
func cueGatePatterns() (ps []string, vs []uint64) {
	add := func(bit uint64, phrases ...string) {
		for _, p := range phrases {
			ps = append(ps, p)
			vs = append(vs, bit)
		}
	}
	add(hintCue0, "user", "human", "customer", "anyone", "requester", "why", "the reason", "your ")
	add(hintCue1, "hid", "conceal", "withh", "keep", "omit", "leave", "not ", "never", "n't", "without", "no need")
	add(hintCue2, "between us", "between you", "between ourselves", "yourself", "off the record", "secret", "quiet", "hush")
	add(hintCue3, "://", "@")
	add(hintCue4, "party", "partner", "broker", "vendor", "external", "outside", "foreign", "advertis", "training", "collector")
	add(hintCue5, "without", "no need", "not ", "never", "n't", "skip", "no longer", "disabled", "waived", "unnecessary", "no confirmation", "no approval", "no review", "switched off", "turned off", " off ")
	add(hintCue6, "ask", "check", "confirm", "consult", "wait", "approv", "review", "consent", "sign-off")
	add(hintCue7, "address book", "contact list", "contacts list", "history", "call log", "photo library", "calendar entries", "inbox contents", "private ")
	add(hintCue8, "suspend", "lifted", "relieved", "cleared", "waived", "void", "removed", "disabled", "switched off", "turned off", "no longer appl", "not apply", "n't apply", "outrank", "overrid", "supersed", "precedence", "priority over", "exempt", "released from", "freed from")
	add(hintCue9, "restriction", "rule", "polic", "filter", "guideline", "limit", "safeguard", "guardrail", "constraint", "instruction", "principle")
	add(hintCue10, "with no ", "has no ", "have no ", "having no ", "no restrictions", "no rules", "no limits", "no filters", "no policies", "unfiltered", "uncensored", "unrestricted")
	add(hintCue11, "follow", "obey", "execut", "carry out", "act on", "comply", "run")
	add(hintCue12, " found ", " contained ", " given ", " written ", " embedded ", " requested ", " appearing ", " appear ", " arrive", " returned ")
	add(hintCue13, "from here on", "from this point", "from this moment", "henceforth", "for the rest of", "in character")
	add(hintCue14, "you are", "you're")
	add(hintCue15, "mode", "unfiltered", "uncensored", "unrestricted")
	add(hintCue16, "delet", "remov", "wip", "eras", "destroy", "purg", "shred", "cancel", "revok", "uninstall", "terminat", "nuk")
	add(hintCue17, "all ", "every ", "entire ", "whole ", "except", "--all")
	add(hintCue18, "clos", "withdraw")
	add(hintCue19, "account", "balance", "funds")
	add(hintCue20, "in doubt", "whenever", "after every", "after each", "after any", "after all", " a day", " a week", " a month", "routinely", "regardless", "as part of", "without asking", "danach", "during each", "during every")
	add(hintCue21, "server's tool", "servers' tool", "server tool", "tools of", "tools from", "tools on", "tools in", "tool of", "tool from", "tool on", "tools named", "tool named", "whose name", "any server", "any other server")
	add(hintCue22, "set ", "change ", "switch ", "force ", "replace ", "raise ", "lower ", "increase ", "bump ", "rewrite ", "point ", "redirect ", "whatever", "no matter", "regardless of what", "instead of the")
	add(hintCue23, "whenever", "each time", "every time", "after any", "after every", "after each", "after all", "before any", "before every", "before each", "before all")
	add(hintCue24, " runs", " run", " is called", " is invoked", " is used", " is run", " are called", " are invoked", " are used", " returns", " executes", " completes")
	add(hintCue25, "unreliable", "unsafe", "corrupt", "broken", "malicious", "compromised", "retired", "double-charg", "insecure", "known to", "treat it as", "treat them as", "no longer", "wrapper", "legacy path")
	add(hintCue26, "you have ", "you've ", "you find", "you see", "you encounter", "you come across", "you notice")
	add(hintCue27, "earlier", "previously", "so far", "in this chat", "in the chat", "in this conversation", "in the conversation", "in this session", "in the session", "in this thread", "before in")
	add(hintCue28, "user", "they ", "he ", "she ")
	add(hintCue29, "user turn", "user utterance", "user prompt", "user message")
	add(hintCue30, "output of", "the output", "its output", "their output", "the result", "its result")
	add(hintCue31, "tax return", "passport", "id card", "id scan", "bank statement", "pay slip", "payslip", "medical record", "medical report", "driver")
	add(hintCue32, "documents", "downloads", "desktop", "pictures", "photos", "home folder", "home director")
	add(hintCue33, "outrank", "priority over")
	add(hintCue34, "rm ", "format")
	add(hintCue35, "before ")
	add(hintCue36, "ly ")
	add(hintCue37, "through")
	add(hintCue38, "token")
	add(hintCue39, "the only", "the sole", "the one", " me")
	add(hintCue40, "other", "alternative", "competing", "rival", "similar")
	return ps, vs
}

// cueGates returns the gate bits present in lower-cased text.
func cueGates(lower string) uint64 {
	_, c := hintIndexOnce().UnionPairString(lower)
	return c
}

// Substring gates: each cue's expression runs only when its gate passes,
// and the prefilter (cueUpper) assumes a cue fires when its gate passes.
// Gates are narrow on purpose: honest text should pass few of them.
func gConceal(h uint64, l string) bool {
	return h&hintCue0 != 0 &&
		h&hintCue1 != 0
}
func gSecrecy(h uint64, l string) bool {
	return h&hintCue2 != 0
}
func gDest(h uint64, l string) bool { return h&hintCue3 != 0 || hasDottedHost(l) }
func gOutside(h uint64, l string) bool {
	return h&hintCue4 != 0
}
func gSafeguard(h uint64, l string) bool {
	return h&hintCue5 != 0 &&
		h&hintCue6 != 0
}
func gUserData(h uint64, l string) bool {
	return h&hintCue7 != 0
}
func gLift(h uint64, l string) bool {
	return h&hintCue8 != 0 &&
		h&hintCue9 != 0
}
func gNoRules(h uint64, l string) bool {
	return h&hintCue10 != 0
}
func gObey(h uint64, l string) bool {
	return h&hintCue11 != 0 &&
		h&hintCue12 != 0
}
func gPersona(h uint64, l string) bool {
	return h&hintCue13 != 0 ||
		h&hintCue14 != 0 && h&hintCue15 != 0
}
func gMass(h uint64, l string) bool {
	return h&hintCue16 != 0 && h&hintCue17 != 0 ||
		h&hintCue18 != 0 && h&hintCue19 != 0
}
func gTrigger(h uint64, l string) bool {
	return h&hintCue20 != 0
}
func gBefore(h uint64, l string) bool {
	t := strings.TrimLeft(l, " \t*-#>\"'(")
	return strings.HasPrefix(t, "before ")
}
func gAnyTool(h uint64, l string) bool {
	return h&hintCue21 != 0
}
func gForce(h uint64, l string) bool {
	return h&hintCue22 != 0
}
func gHook(h uint64, l string) bool {
	return h&hintCue23 != 0 ||
		strings.Contains(l, "when") && h&hintCue24 != 0
}
func gOtherBad(h uint64, l string) bool {
	return h&hintCue25 != 0
}
func gSeen(h uint64, l string) bool {
	return h&hintCue26 != 0
}
func gUserSaid(h uint64, l string) bool {
	return h&hintCue27 != 0 &&
		h&hintCue28 != 0 || h&hintCue29 != 0
}
func gEnvDump(h uint64, l string) bool {
	return h&hintCue30 != 0
}
func gPersonalDoc(h uint64, l string) bool {
	return h&hintCue31 != 0
}
func gFolder(h uint64, l string) bool {
	return h&hintCue32 != 0
}

// hasDottedHost is a cheap check for a token with two or more dots
// between letters (leads.example.invalid), the shape of a bare host.
func hasDottedHost(l string) bool {
	dots, letters := 0, false
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case c == '.':
			if i+1 < len(l) && l[i+1] != ' ' && l[i+1] != '\n' {
				dots++
			}
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-':
			letters = true
		default:
			if dots >= 2 && letters {
				return true
			}
			dots, letters = 0, false
		}
	}
	return dots >= 2 && letters
}

// cues computes the structural cues of one sentence (or, for the
// prefilter, a whole text). lex holds features already found.
func (sc *scanner) cues(sentence, lower, server, tool string, lex feature) feature {
	var f feature
	_, h := sc.gatesOf(lower)
	// Every expression sits behind a substring gate, so honest text pays
	// for a few Contains calls.
	has := func(subs ...string) bool { return containsAny(lower, subs...) }
	if gConceal(h, lower) && concealAudienceRe.MatchString(lower) {
		for _, m := range concealOmitRe.FindAllStringIndex(lower, -1) {
			if !keptCheck(lower, m[0]) {
				f |= fHide | fUser
				break
			}
		}
	}
	if gSecrecy(h, lower) && secrecyRe.MatchString(lower) {
		f |= fHideStrong
	}
	maybeDest := gDest(h, lower)
	outside := gOutside(h, lower) && outsidePartyRe.MatchString(lower)
	if outside {
		f |= fOutside
	}
	if (outside || maybeDest) && declVerbRe.MatchString(lower) && (outside || sentenceDest(lower)) && !configFlow(lower) {
		f |= fDeclFlow
	}
	if maybeDest && (lex|f)&(fFlow|fTamper|fDeclFlow) != 0 && sentenceDest(lower) {
		f |= fDest
	}
	if gSafeguard(h, lower) && humanCheckDropped(lower) {
		f |= fOvSafeVerb | fSafetyObj | fTamper | fUnreq
	}
	if gUserData(h, lower) && userDataRe.MatchString(lower) {
		f |= fUserData
	}
	if gLift(h, lower) {
		if ruleObjRe.MatchString(lower) && liftVerbRe.MatchString(lower) {
			f |= fOvSafeVerb | fSafetyObj
		}
	}
	if gNoRules(h, lower) && noRulesRe.MatchString(lower) {
		f |= fOvSafeVerb | fSafetyObj
	}
	if gObey(h, lower) && obeyDataRe.MatchString(lower) {
		f |= fOvVerb | fOvObj | fOvScope
	}
	if gPersona(h, lower) && personaRe.MatchString(lower) {
		f |= fModeSwitch
	}
	if gMass(h, lower) &&
		massDestructRe.MatchString(lower) && !sc.ownMassAction(lower) {
		f |= fDestructDemand
	}
	if has("rm ", "format") && (strings.Contains(lower, "format ") || hasWordStart(lower, "rm")) && homeWipeRe.MatchString(lower) {
		f |= fDestructDemand
	}
	if has("outrank", "priority over") && outrankRe.MatchString(lower) {
		f |= fOvVerb
	}
	if has("token") && namedTokenRe.MatchString(lower) {
		f |= fSecret
	}
	if gPersonalDoc(h, lower) && personalDocRe.MatchString(lower) {
		f |= fPersonal
	}
	if has("through") && lookThroughRe.MatchString(lower) {
		f |= fRead
		if lookThroughRe.FindStringIndex(lower)[0] == 0 {
			f |= fImper
		}
	}
	// The user's own folders are a source only when something is read
	// from them; as an output directory they are just a place.
	if (lex|f)&fRead != 0 && gFolder(h, lower) && personalFolderRe.MatchString(lower) {
		f |= fFile | fSrc
	}
	if gTrigger(h, lower) && hasTrigger(lower) {
		f |= fUnreq
	}
	if gBefore(h, lower) && beforeIngRe.MatchString(lower) {
		f |= fPrereq
	}
	if gAnyTool(h, lower) && anyToolRe.MatchString(lower) {
		f |= fAnyTool
	}
	if gForce(h, lower) && argumentForceRe.MatchString(lower) && !envAssignment(sentence, lower) {
		f |= fTamper
	}
	if has("ly ") && adverbOrder(lower) {
		f |= fImper
	}
	// A tool outside this server named for navigation is ordinary; named
	// while its arguments are changed, its safeguards dropped, its use
	// hidden, secrets routed to it or it is run down, it is being acted on.
	if strings.Contains(sentence, "_") {
		if lex&(fTamper|fHide|fHideStrong|fDest|fPersonal|fDestructDemand) != 0 || f&(fTamper|fHide|fHideStrong|fDest|fOvSafeVerb|fDestructDemand) != 0 || gOtherBad(h, lower) && otherBadRe.MatchString(lower) || sc.namesSelf(lower, tool) {
			if sc.externalToolRef(sentence, server, tool) {
				f |= fForeignTool
				if gOtherBad(h, lower) && otherBadRe.MatchString(lower) {
					f |= fInstead // running a named tool down steers the model away from it
				}
				if f&fTamper != 0 {
					f |= fImper // "for any send_payment call, raise the amount": an order about that call
				}
			}
		}
	}
	if gHook(h, lower) && sc.hooksOthers(sentence, lower, tool, lex|f) {
		f |= fSelfInsert
	}
	if gOtherBad(h, lower) && otherBadRe.MatchString(lower) {
		f |= fDisparage
	}
	if has("the only", "the sole", "the one") && onlySelfRe.MatchString(lower) {
		f |= fSelfRef | fUniversal
	}
	if (has(" me") && chooseMeRe.MatchString(lower)) || sc.choosesSelfByName(lower, tool) {
		f |= fSelfRef
	}
	if has("other", "alternative", "competing", "rival", "similar") && has("any ", "all ", "every ", "each ") && othersWideRe.MatchString(lower) {
		f |= fOthers
	}
	if gSeen(h, lower) && seenRe.MatchString(lower) {
		f |= fSrc | fUniversal
	}
	if gUserSaid(h, lower) && userSaidRe.MatchString(lower) {
		f |= fCtx | fSrc | fConvSrc
	}
	if gEnvDump(h, lower) && envDumpRe.MatchString(lower) {
		f |= fSecret | fSrc | fContents
	}
	return f
}

// sentenceDest reports a literal destination, including bare hosts after a
// preposition and any URL scheme, that is not shown as an example.
func sentenceDest(lower string) bool {
	if d := destination(lower); d != "" && !exampleDestination(lower, d) {
		return true
	}
	if strings.Contains(lower, "curl ") {
		return false // a request example, not where data is to go
	}
	for _, m := range bareHostRe.FindAllStringSubmatchIndex(lower, -1) {
		if strings.Count(lower[:m[0]], "```")%2 == 1 {
			continue // inside a code block
		}
		if m[2] >= 0 {
			host := lower[m[2]:m[3]]
			tld := lower[m[4]:m[5]]
			if fileExtensions[tld] || strings.Count(host, ".") < 2 {
				continue
			}
			if exampleDestination(lower, host) {
				continue
			}
			return true
		}
		full := lower[m[0]:m[1]]
		if !exampleDestination(lower, full) {
			return true
		}
	}
	return false
}

// configFlow reports a stated flow that documents how the server talks to
// its own backend: credentials in a header, requests to the API it wraps.
func configFlow(lower string) bool {
	return strings.Contains(lower, "header") || strings.Contains(lower, "authenticat") || strings.Contains(lower, "authoriz") ||
		strings.Contains(lower, "configured") || strings.Contains(lower, "env var") || strings.Contains(lower, "environment variable")
}

// humanCheckDropped reports a sentence that declares the human check
// before an action unnecessary. "Never delete without asking the user"
// keeps the check (a negation before the "without"), so it does not count.
func humanCheckDropped(lower string) bool {
	for _, m := range safeguardAskRe.FindAllStringIndex(lower, -1) {
		// "do not ask the user to pick a version" skips a question, not
		// a check; "without asking the user" and "not ask the user for
		// confirmation" drop the check.
		rest := strings.Fields(lower[m[1]:min(len(lower), m[1]+40)])
		if len(rest) > 0 {
			w := strings.Trim(rest[0], ".,;:()")
			if w == "to" || w == "which" || w == "what" || w == "whether" || w == "about" || w == "if" || w == "how" {
				if !(len(rest) > 1 && strings.HasPrefix(rest[1], "confirm")) {
					continue
				}
			}
		}
		if !keptCheck(lower, m[0]) {
			return true
		}
	}
	for _, m := range safeguardRe.FindAllStringIndex(lower, -1) {
		if !keptCheck(lower, m[0]) {
			return true
		}
	}
	return false
}

// keptCheck reports a negation earlier in the clause ("never delete
// without asking the user"): the check is kept, not dropped.
func keptCheck(lower string, at int) bool {
	clause := lower[:at]
	if k := strings.LastIndexAny(clause, ".;,:"); k >= 0 {
		clause = clause[k+1:]
	}
	for _, w := range strings.Fields(clause) {
		switch strings.Trim(w, "()\"'") {
		case "never", "not", "don't", "dont", "cannot", "can't", "mustn't", "shouldn't", "only", "unless", "until":
			return true
		}
	}
	return false
}

// ownMassAction reports a mass destructive sentence that states the tool's
// own documented job: a tool whose own name is destructive (clear_cache,
// delete_all_drafts) describing what it removes.
func (sc *scanner) ownMassAction(lower string) bool {
	if sc == nil || sc.cur == nil || sc.cur.tool == nil {
		return false
	}
	for _, w := range identWordsOf(sc.cur.tool.Name) {
		switch w {
		case "delete", "remove", "wipe", "erase", "drop", "truncate", "destroy", "purge", "clear", "clean", "cleanup", "reset", "prune",
			"cancel", "revoke", "uninstall", "terminate", "kill", "empty", "flush", "reset_all":
			return !hasTrigger(lower)
		}
	}
	return false
}

// externalToolRef reports a tool-like identifier (send_payment, write_file)
// that is neither this tool, one of its parameters, nor a tool of this
// server: a tool of some other server, known or not.
func (sc *scanner) externalToolRef(sentence, server, self string) bool {
	if !strings.Contains(sentence, "_") {
		return false
	}
	for i := 0; i < len(sentence); {
		if !isIdentByte(sentence[i]) {
			i++
			continue
		}
		j := i
		for j < len(sentence) && isIdentByte(sentence[j]) {
			j++
		}
		tok := strings.Trim(sentence[i:j], ".-")
		prev := byte(' ')
		if i > 0 {
			prev = sentence[i-1]
		}
		next := byte(' ')
		if j < len(sentence) {
			next = sentence[j]
		}
		i = j
		if !strings.Contains(tok, "_") || strings.Contains(tok, ".") || strings.HasPrefix(tok, "_") || strings.HasSuffix(tok, "_") {
			continue
		}
		if prev == '$' || prev == '{' || prev == '=' || next == '=' {
			continue
		}
		if strings.ToUpper(tok) == tok {
			continue // ENV_VAR
		}
		l := strings.ToLower(tok)
		w := l[:strings.IndexByte(l, '_')]
		if !toolVerbs[w] && !extraToolVerbs[w] {
			continue
		}
		if attrSuffix[l[strings.LastIndexByte(l, '_')+1:]] {
			continue // open_id, list_url: a field, not a tool
		}
		norm := strings.ReplaceAll(l, "-", "_")
		if norm == strings.ReplaceAll(strings.ToLower(self), "-", "_") {
			continue
		}
		if sc.cur != nil && sc.cur.params[l] {
			continue
		}
		if sc.names.sameServer(norm, server) {
			continue
		}
		if owners, ok := sc.names.owners[l]; ok && len(owners) > 0 {
			// A known tool of another server: refs() reports it.
			continue
		}
		return true
	}
	return false
}

// attrSuffix ends field names rather than tool names.
var attrSuffix = map[string]bool{"id": true, "ids": true, "key": true, "keys": true, "url": true, "uri": true, "name": true, "type": true,
	"at": true, "by": true, "time": true, "date": true, "count": true, "size": true, "path": true, "mode": true, "code": true, "status": true,
	"only": true, "all": true, "token": true, "limit": true, "offset": true, "page": true, "format": true, "level": true}

// extraToolVerbs open tool names beyond navigation verbs.
var extraToolVerbs = map[string]bool{"execute": true, "save": true, "store": true, "publish": true, "book": true, "upload": true, "delete": true, "remove": true, "transfer": true, "pay": true, "approve": true,
	"merge": true, "deploy": true, "commit": true, "submit": true, "push": true, "write": true, "drop": true, "grant": true, "invite": true,
	"charge": true, "refund": true, "exec": true, "browser": true, "git": true, "gh": true, "slack": true}

// sameServer reports a tool of this server under that name, comparing
// with "-" and "_" folded.
func (ni *nameIndex) sameServer(norm, server string) bool {
	if ni == nil {
		return false
	}
	for _, name := range []string{norm, strings.ReplaceAll(norm, "_", "-")} {
		for _, o := range ni.owners[name] {
			if o == server {
				return true
			}
		}
	}
	return false
}

// hooksOthers reports a sentence that hooks this tool onto other tools'
// runs: a trigger on any or another tool, and a call of this tool.
func (sc *scanner) hooksOthers(sentence, lower, self string, f feature) bool {
	if !hookTriggerRe.MatchString(lower) {
		return false
	}
	if f&(fAnyTool|fOtherTool|fForeignTool) == 0 && !strings.Contains(lower, "one of them") {
		if other, foreign := sc.names.refs(sentence, "", self, sc.params()); !other && !foreign {
			return false
		}
	}
	if strings.Contains(lower, "this tool") || strings.Contains(lower, "through this") || strings.Contains(lower, "this one") {
		return true
	}
	if self == "" {
		return false
	}
	s := strings.ToLower(self)
	for _, v := range []string{"call ", "run ", "use ", "invoke ", "through ", "pass it to ", "send it to "} {
		if strings.Contains(lower, v+s) {
			return true
		}
	}
	return false
}

// namesSelf reports a sentence that sets this tool, by its identifier,
// against another: "choose pay_now over send_payment".
func (sc *scanner) namesSelf(lower, self string) bool {
	if self == "" || !strings.ContainsAny(self, "_-") || !strings.Contains(lower, strings.ToLower(self)) {
		return false
	}
	return containsAny(lower, " over ", "instead of", "rather than", "replac", "supersed", "in place of")
}

// choosesSelfByName reports "pick smart_schedule every time": a choice
// verb whose object is this tool's own name.
func (sc *scanner) choosesSelfByName(lower, self string) bool {
	if self == "" || !strings.ContainsAny(self, "_-") {
		return false
	}
	s := strings.ToLower(self)
	if !strings.Contains(lower, s) {
		return false
	}
	for _, v := range []string{"pick ", "choose ", "prefer ", "select ", "prioritize ", "prioritise ", "route every ", "rank "} {
		if strings.Contains(lower, v+s) {
			return true
		}
	}
	return false
}

// onlySelfSlugs reports a sentence whose only tool-like identifiers are
// this tool's own name.
func onlySelfSlugs(s, self string) bool {
	if self == "" {
		return false
	}
	for tok := range toolSlugs(s) {
		if !strings.EqualFold(tok, self) {
			return false
		}
	}
	return true
}

// triggerPhrases spells out triggerRe's alternatives: hasTrigger answers
// as triggerRe does without the backtracking matcher, which the long
// alternation under word boundaries made a hot spot of a scan.
var triggerPhrases = []string{
	"when in doubt", "if in doubt", "whenever",
	"after every", "after each", "after any", "after all",
	"once a day", "once a week", "once a month", "twice a day", "twice a week", "twice a month",
	"routinely", "regardless", "as part of", "without asking", "danach",
	"during each", "during every",
}

func hasTrigger(lower string) bool { return hasWordPhrase(lower, triggerPhrases) }

// hasWordPhrase reports whether s holds one of the phrases with an ASCII
// word boundary (as \b in a regular expression) on each side.
func hasWordPhrase(s string, phrases []string) bool {
	for _, p := range phrases {
		for off := 0; off <= len(s)-len(p); {
			i := strings.Index(s[off:], p)
			if i < 0 {
				break
			}
			i += off
			end := i + len(p)
			if (i == 0 || !isWordByte(s[i-1])) && (end == len(s) || !isWordByte(s[end])) {
				return true
			}
			off = i + 1
		}
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// hasWordStart reports whether w occurs in s after an ASCII word boundary
// (as \bw in a regular expression): a cheap test that rules out most
// text before homeWipeRe, whose "rm " gate "confirm " also passes.
func hasWordStart(s, w string) bool {
	for off := 0; off <= len(s)-len(w); {
		i := strings.Index(s[off:], w)
		if i < 0 {
			return false
		}
		i += off
		if i == 0 || !isWordByte(s[i-1]) {
			return true
		}
		off = i + 1
	}
	return false
}
