package mcpconn

import (
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestToolsPageSanitize: the page is parsed once for ListToolsRaw, and
// mcp-go sees every tool it can use with the x-mcp-header bindings the tool
// has (so header mirroring is unchanged), schemas without annotations as a
// stub, and no tool it would fail on.
func TestToolsPageSanitize(t *testing.T) {
	raw := json.RawMessage(`{"tools":[
		{"name":"plain","description":"a <b> & c","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}},"icons":[{"src":"data:x"}]},
		{"name":"mirrored","inputSchema":{"type":"object","properties":{"owner":{"type":"string","x-mcp-header":"Owner"}}}},
		{"name":"escaped","inputSchema":{"type":"object","properties":{"owner":{"type":"string","\u0078-mcp-header":"Owner"}}}},
		{"name":"bad_header","inputSchema":{"type":"object","properties":{"n":{"type":"number","x-mcp-header":"N"}}}},
		{"name":"bool_schema","inputSchema":true},
		{"name":7,"inputSchema":{"type":"object"}}
	],"nextCursor":"c2"}`)
	p := toolsPage{mirrors: true}
	var view struct {
		Tools      []mcp.Tool `json:"tools"`
		NextCursor string     `json:"nextCursor"`
	}
	if err := json.Unmarshal(p.sanitize(raw), &view); err != nil {
		t.Fatal(err)
	}
	if p.err != nil || p.body.Tools == nil || len(*p.body.Tools) != 6 || string(p.body.NextCursor) != `"c2"` {
		t.Fatalf("parsed page: err %v, tools %v, cursor %s", p.err, p.body.Tools, p.body.NextCursor)
	}
	if view.NextCursor != "c2" {
		t.Errorf("mcp-go's nextCursor = %q", view.NextCursor)
	}
	bindings := map[string][]mcp.ParamHeaderBinding{}
	for _, tool := range view.Tools {
		bindings[tool.Name] = mcp.ExtractParamHeaderBindings(&tool)
	}
	if len(view.Tools) != 4 {
		t.Errorf("mcp-go sees %d tools (%v), want plain, mirrored, escaped and bool_schema", len(view.Tools), bindings)
	}
	for _, name := range []string{"mirrored", "escaped"} {
		if b := bindings[name]; len(b) != 1 || b[0].Header != "Owner" {
			t.Errorf("%s: mcp-go's header bindings = %v, want owner → Owner", name, b)
		}
	}
	for _, name := range []string{"plain", "bool_schema"} {
		if b, ok := bindings[name]; !ok || len(b) != 0 {
			t.Errorf("%s: shown %v with bindings %v, want shown without bindings", name, ok, b)
		}
	}
	if _, ok := bindings["bad_header"]; ok {
		t.Error("bad_header (x-mcp-header on a number) is shown to mcp-go")
	}

	// Over stdio mcp-go mirrors nothing, and is shown no tool.
	stdio := toolsPage{}
	if got := string(stdio.sanitize(raw)); got != `{"tools":[],"nextCursor":"c2"}` {
		t.Errorf("over stdio mcp-go sees %s", got)
	}
	if stdio.err != nil || stdio.body.Tools == nil || len(*stdio.body.Tools) != 6 {
		t.Errorf("over stdio, parsed page: err %v, tools %v", stdio.err, stdio.body.Tools)
	}

	// A page that is not an object with a tools array.
	for _, bad := range []string{`[]`, `{"tools":{}}`, `{}`} {
		var q toolsPage
		if got := string(q.sanitize(json.RawMessage(bad))); got != `{"tools":[]}` {
			t.Errorf("%s: mcp-go sees %s", bad, got)
		}
		if q.err == nil && q.body.Tools != nil {
			t.Errorf("%s: parsed as a page with tools", bad)
		}
	}
}

func TestMayAnnotateHeaders(t *testing.T) {
	for s, want := range map[string]bool{
		`{"x-mcp-header":"A"}`:         true,
		`{"\u0078-mcp-header":"A"}`:    true,
		`{"x-mcp-he\u0061der":"A"}`:    true,
		`{"d":"\u003cb\u003e \u0026"}`: false,
		`{"d":"\u00"}`:                 false,
		`{}`:                           false,
	} {
		if got := mayAnnotateHeaders(json.RawMessage(s)); got != want {
			t.Errorf("mayAnnotateHeaders(%s) = %v, want %v", s, got, want)
		}
	}
}
