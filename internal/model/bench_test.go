package model

import (
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
)

// BenchmarkReplayMatch measures matching one request of a long
// conversation (~60 KiB body) against a recorded interaction, without
// and with the per-recording memo of canonical bodies.
func BenchmarkReplayMatch(b *testing.B) {
	b.Run("uncached", func(b *testing.B) { benchMatch(b, matchRequest) })
	var cache sync.Map
	b.Run("cached", func(b *testing.B) { benchMatch(b, matchWith(&cache)) })
}

func benchMatch(b *testing.B, match cassette.MatcherFunc) {
	body := `{"model":"m","messages":[` + strings.Repeat(`{"role":"user","content":"`+strings.Repeat("x", 500)+`"},`, 120) + `{"role":"user","content":"end"}]}`
	rec := cassette.Request{Method: "POST", URL: "http://127.0.0.1/v1/chat/completions", Body: body}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest("POST", rec.URL, strings.NewReader(body))
		if !match(r, rec) {
			b.Fatal("no match")
		}
	}
}
