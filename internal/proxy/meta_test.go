package proxy_test

import (
	"bytes"
	"context"
	"testing"

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
