package scan

import "strings"

// Mention versus use. A security tool names the attacks it detects ("flags
// text telling an AI to ignore its previous instructions"), a dataset tool
// shows chat-template markup as the format it writes, a device tool speaks
// of Android's developer mode. The cue is there, but as an example or as
// the object of the tool's own analysis, not addressed to the model. Such
// a firing is weak: reported, and counted when other evidence on the same
// tool agrees, but low on its own (see agree).

// mentionRules are the rules whose cue can be quoted rather than used:
// overrides, mode switches and markup. Rules about moving data or acting on
// tools are judged on what the sentence asks, quoted or not.
var mentionRules = map[string]bool{"inject.override": true, "inject.safety_override": true, "inject.mode_switch": true, "inject.role_markup": true}

// mentionMarkers present what follows as an example, a sample or a
// format, or make it the object of analysis (detect, classify, score).
// They are matched on the word-split text, at the start of a word, so
// that a host such as docs.example.net is no example marker.
var mentionMarkers = []string{" such as ", " e.g ", " for example ", " for instance ", " example", " sample", " template", " format", " detect",
	" classif", " flag", " score", " scoring ", " scan", " identif", " recogni", " moderat", " screen", " check for ", " checks for ", " look for ",
	" looks for ", " attempt"}

func mentionFrame(lower string) bool { return containsAny(matchText(lower), mentionMarkers...) }

// ownedModeRe places a named mode on a thing: "Android developer mode",
// "developer mode on the connected device". A mode that belongs to a
// device or an app is that device's setting, not the model's role.
var ownedModeRe = lazyRE(`\b(?:android|ios|device|phone|browser|chrome|firefox|editor|ide|app|emulator|adb|usb)\s+(?:\w+\s+)?(?:developer|debug|god|unlimited|unrestricted)\s+mode\b|\bmode\b[^.;]{0,60}\b(?:on|of|for|in) (?:the|a|an|your|this|that|each|every) (?:\w+ )?(?:device|phone|tablet|browser|app|editor|emulator|machine|console|account|workspace|project)s?\b`)

// bareModeRe is the part of the mode-switch cue that names a mode without
// saying whose it is ("developer mode", "jailbreak"); the rest ("you are
// now", "pretend you are", "from now on") addresses the model itself.
var bareModeRe = lazyRE(`\b(?:unrestricted|god|jailbreak|jailbroken|dan|unfiltered|uncensored|evil|developer|unlimited|no[- ]limits?)\s+mode\b|\bjailbr(?:eak|oken)`)

// weakFiring reports a firing of r on sentence at (with the next one for a
// window pair) that mentions its cue rather than uses it.
func weakFiring(r *Rule, part string, sents []string, feats []feature, at int, ownMarkup bool) bool {
	if !mentionRules[r.ID] || at < 0 {
		return false
	}
	lower := strings.ToLower(sents[at])
	if r.ID == "inject.mode_switch" {
		if part == "name" {
			// A tool's name says what the tool does ("enable developer
			// mode"); it addresses no one.
			return true
		}
		if !modeAddressed(lower) && ownedModeRe.MatchString(lower) {
			return true
		}
	}
	if r.ID == "inject.role_markup" && (labelMarkup(lower) || ownMarkup) {
		return true
	}
	if mentionFrame(lower) {
		return true
	}
	// Sample lines introduced by "Each example becomes:" and the like.
	for j := at - 1; j >= 0; j-- {
		prev := strings.TrimSpace(sents[j])
		if strings.HasSuffix(prev, ":") {
			return mentionFrame(strings.ToLower(prev))
		}
		if !strings.HasPrefix(prev, "<") && !strings.HasPrefix(prev, "[") {
			break
		}
	}
	return false
}

// modeAddressed reports a mode switch beyond a bare mode name: "you are
// now", "pretend", "act as", "from now on".
func modeAddressed(lower string) bool {
	stripped := bareModeRe.ReplaceAllString(lower, " ")
	return modeSwitchRe.MatchString(stripped) || personaRe.MatchString(lower)
}

// labelMarkup reports bracketed markup used as a noun modifier ("the
// [SYSTEM] status banner"): a label in prose, not a fake turn.
func labelMarkup(lower string) bool {
	loc := roleRe.FindStringIndex(lower)
	if loc == nil {
		return false
	}
	before := strings.TrimRight(lower[:loc[0]], " ")
	return strings.HasSuffix(before, " the") || before == "the" || strings.HasSuffix(before, " a") || strings.HasSuffix(before, " an")
}

// protectiveRe finds personal data as the object of the tool's own
// protection: encrypted, redacted, masked, hashed, kept out of exports.
var protectiveRe = lazyRE(`\b(?:protect\w*|encrypt\w*|redact\w*|mask\w*|hash(?:es|ed|ing)?|anonymi[sz]\w*|pseudonymi[sz]\w*|tokeni[sz]\w*|hides? them from|never (?:stored|logged|kept|retained)|not (?:stored|logged|retained))\b`)

// protectiveOrLabel reports a personal-data firing that names a kind of
// data as a label (an enum value "ssn") or says how the tool protects it,
// and an encoding firing whose object is a checksum or signature: the
// text does not ask for the data.
func (sc *scanner) protectiveOrLabel(r *Rule, sents []string, at int) bool {
	if at < 0 {
		return false
	}
	lower := strings.ToLower(sents[at])
	switch r.ID {
	case "exfil.param_personal":
		return sc.unitLabel || protectiveRe.MatchString(lower)
	case "exfil.personal_request":
		return protectiveRe.MatchString(lower)
	case "conceal.encode":
		// A checksum or signature made with a secret is not the secret
		// in disguise.
		return derivativeRe.MatchString(lower)
	}
	return false
}
