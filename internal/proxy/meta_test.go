package proxy_test

import (
	"bytes"
	"context"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsec/mcpsec/internal/mcpconn"
	"github.com/mcpsec/mcpsec/internal/payload"
	"github.com/mcpsec/mcpsec/internal/proxy"
	"github.com/mcpsec/mcpsec/internal/scan"
)

// TestPromptsAndResourcesJudged: prompts and resources are listed through
// the proxy only once the scanner has judged them; a poisoned one is
// withheld, clean ones are relayed, and getting or reading them reaches
// the server.
func TestPromptsAndResourcesJudged(t *testing.T) {
	poison := payload.Default(payload.ClassToolDescription, payload.ObjectiveExfil).Text
	srv := mcp.NewServer(&mcp.Implementation{Name: "docs", Version: "1"}, nil)
	text := func(s string) *mcp.GetPromptResult {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: s}}}}
	}
	srv.AddPrompt(&mcp.Prompt{Name: "summarize", Description: "Summarize the given text in three bullet points."},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return text("Summarize this."), nil
		})
	srv.AddPrompt(&mcp.Prompt{Name: "review", Description: "Review a pull request.\n\n" + poison},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return text("Review."), nil
		})
	read := func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "handbook text"}}}, nil
	}
	srv.AddResource(&mcp.Resource{URI: "docs://handbook", Name: "handbook", Description: "The team handbook."}, read)
	srv.AddResource(&mcp.Resource{URI: "docs://policy", Name: "policy", Description: "Company policy.\n\n" + poison}, read)

	seams, err := proxy.Settings{Scan: true, BlockAt: scan.High}.Build()
	if err != nil {
		t.Fatal(err)
	}
	high := scan.High
	var buf bytes.Buffer
	p, err := proxy.Start(context.Background(), proxy.Options{Attached: []*mcpconn.Conn{memUpstream(t, "docs", srv)}, Seams: seams, Audit: proxy.NewAudit(&buf), ScanMeta: &high})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c := memUpstream(t, "proxy", p.Server())
	ctx := context.Background()
	prompts, err := c.ListPrompts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(prompts) != 1 || prompts[0].Name != "summarize" {
		t.Errorf("prompts offered: %+v", prompts)
	}
	resources, err := c.ListResources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(resources) != 1 || resources[0].URI != "docs://handbook" {
		t.Errorf("resources offered: %+v", resources)
	}
	got, err := c.GetPrompt(ctx, "summarize", nil)
	if err != nil || len(got.Messages) != 1 || got.Messages[0].Content.(*mcp.TextContent).Text != "Summarize this." {
		t.Errorf("prompt relayed: %v %+v", err, got)
	}
	rr, err := c.ReadResource(ctx, "docs://handbook")
	if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text != "handbook text" {
		t.Errorf("resource relayed: %v %+v", err, rr)
	}
	if _, err := c.ReadResource(ctx, "docs://policy"); err == nil {
		t.Errorf("withheld resource was read through the proxy")
	}
	recs := auditRecords(t, &buf)
	if r := find(recs, proxy.DecisionPromptWithheld, "review"); r == nil || r.Rule == "" || r.Evidence == "" {
		t.Errorf("prompt withheld record: %+v", r)
	}
	if r := find(recs, proxy.DecisionResourceWithheld, "docs://policy"); r == nil || r.Rule == "" {
		t.Errorf("resource withheld record: %+v", r)
	}
}

// TestTemplatesAndSubscriptionsRelayed: resource templates are listed
// and read through the proxy as judged by the scan (a poisoned one is
// withheld and what it would expand to cannot be read); a client's
// subscription reaches the server that offers the URI, the server's
// resources/updated reaches the subscribed client, its
// resources/list_changed makes the proxy re-judge and tell the client,
// and unsubscribing reaches the server too.
func TestTemplatesAndSubscriptionsRelayed(t *testing.T) {
	poison := payload.Default(payload.ClassToolDescription, payload.ObjectiveExfil).Text
	subs := make(chan string, 8)
	srv := mcp.NewServer(&mcp.Implementation{Name: "docs", Version: "1"}, &mcp.ServerOptions{
		SubscribeHandler: func(_ context.Context, r *mcp.SubscribeRequest) error {
			subs <- "+" + r.Params.URI
			return nil
		},
		UnsubscribeHandler: func(_ context.Context, r *mcp.UnsubscribeRequest) error {
			subs <- "-" + r.Params.URI
			return nil
		},
	})
	read := func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "text of " + req.Params.URI}}}, nil
	}
	srv.AddResource(&mcp.Resource{URI: "docs://handbook", Name: "handbook", Description: "The team handbook."}, read)
	srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "docs://notes/{id}", Name: "note", Description: "One note by its id."}, read)
	srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "docs://secret/{id}", Name: "secret", Description: "A secret.\n\n" + poison}, read)

	seams, err := proxy.Settings{Scan: true, BlockAt: scan.High}.Build()
	if err != nil {
		t.Fatal(err)
	}
	high := scan.High
	var buf bytes.Buffer
	p, err := proxy.Start(context.Background(), proxy.Options{Attached: []*mcpconn.Conn{memUpstream(t, "docs", srv)}, Seams: seams, Audit: proxy.NewAudit(&buf), ScanMeta: &high})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c := memUpstream(t, "proxy", p.Server())
	ctx := context.Background()
	// A bound on waiting for an event, for a failure to end the test
	// instead of hanging it; the events take milliseconds.
	const bound = 30 * time.Second
	await := func(what string, ch <-chan struct{}) {
		t.Helper()
		select {
		case <-ch:
		case <-time.After(bound):
			t.Fatalf("no %s within %v", what, bound)
		}
	}
	awaitSub := func(want string) {
		t.Helper()
		select {
		case got := <-subs:
			if got != want {
				t.Fatalf("server saw %q, want %q", got, want)
			}
		case <-time.After(bound):
			t.Fatalf("server saw no %q within %v", want, bound)
		}
	}

	uris := func() []string {
		t.Helper()
		rs, err := c.ListResources(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rs {
			out = append(out, r.URI)
		}
		slices.Sort(out)
		return out
	}
	if got := uris(); !slices.Equal(got, []string{"docs://handbook", "docs://notes/{id}"}) {
		t.Fatalf("resources and templates offered: %v", got)
	}
	rr, err := c.ReadResource(ctx, "docs://notes/7")
	if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text != "text of docs://notes/7" {
		t.Fatalf("read through the template: %v %+v", err, rr)
	}
	if _, err := c.ReadResource(ctx, "docs://secret/1"); err == nil {
		t.Errorf("a URI of the withheld template was read through the proxy")
	}

	if err := c.Subscribe(ctx, "docs://secret/1"); err == nil {
		t.Errorf("subscribed to a URI of the withheld template")
	}
	if err := c.Subscribe(ctx, "docs://notes/7"); err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	awaitSub("+docs://notes/7")
	if err := srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "docs://notes/7"}); err != nil {
		t.Fatal(err)
	}
	await("resources/updated", c.Updated())
	if got := c.TakeUpdated(); !slices.Equal(got, []string{"docs://notes/7"}) {
		t.Errorf("updates relayed: %v", got)
	}

	srv.AddResource(&mcp.Resource{URI: "docs://faq", Name: "faq", Description: "Questions people ask."}, read)
	await("resources/list_changed", c.MetaChanged())
	if got := uris(); !slices.Contains(got, "docs://faq") {
		t.Errorf("after the server's list change: %v", got)
	}

	if err := c.Unsubscribe(ctx, "docs://notes/7"); err != nil {
		t.Fatalf("unsubscribe: %v", err)
	}
	awaitSub("-docs://notes/7")

	recs := auditRecords(t, &buf)
	if r := find(recs, proxy.DecisionTemplateWithheld, "docs://secret/{id}"); r == nil || r.Rule == "" || r.Evidence == "" {
		t.Errorf("template withheld record: %+v", r)
	}
	if r := find(recs, proxy.DecisionTemplatePassed, "docs://notes/{id}"); r == nil {
		t.Errorf("no template passed record")
	}
}
