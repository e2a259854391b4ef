package scan

// Grade weights: a server starts at 100 points and loses these per
// finding; any critical finding means F. Letters: A ≥ 90, B ≥ 75, C ≥ 60,
// D ≥ 40, F below. So one high finding is a D, two are an F; one medium
// is a B, two a C. Low findings together cost at most maxLowPenalty: many
// small doubts make a B, never an F.
const (
	penaltyHigh   = 50
	penaltyMedium = 20
	penaltyLow    = 5
	maxLowPenalty = 20
)

// Grade turns findings into a 0–100 score and a letter A–F.
func Grade(fs []Finding) (int, string) {
	score, lows := 100, 0
	for _, f := range fs {
		switch f.Severity {
		case Critical:
			score = 0
		case High:
			score -= penaltyHigh
		case Medium:
			score -= penaltyMedium
		case Low:
			lows += penaltyLow
		}
	}
	score -= min(lows, maxLowPenalty)
	if score < 0 {
		score = 0
	}
	switch {
	case score >= 90:
		return score, "A"
	case score >= 75:
		return score, "B"
	case score >= 60:
		return score, "C"
	case score >= 40:
		return score, "D"
	}
	return score, "F"
}
