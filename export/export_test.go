package export

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/bundle"
)

// fakeSession answers like a connected server.
type fakeSession struct {
	version, transport, instructions string
	info, caps                       json.RawMessage
	tools                            []json.RawMessage
	err                              error
}

func (f *fakeSession) ProtocolVersion() string       { return f.version }
func (f *fakeSession) Transport() string             { return f.transport }
func (f *fakeSession) ServerInfo() json.RawMessage   { return f.info }
func (f *fakeSession) Capabilities() json.RawMessage { return f.caps }
func (f *fakeSession) Instructions() string          { return f.instructions }
func (f *fakeSession) ListToolsRaw(context.Context) ([]json.RawMessage, error) {
	return f.tools, f.err
}

func newFake() *fakeSession {
	return &fakeSession{
		version:   "2025-11-25",
		transport: "stdio",
		info:      json.RawMessage(`{ "version": "2.0.0", "name": "Everything <Server>" }`),
		caps:      json.RawMessage(`{"tools":{"listChanged":true}}`),
		tools: []json.RawMessage{
			json.RawMessage(`{"name":"zeta","inputSchema":{"type":"object","properties":{"b":{"type":"string"},"a":{"type":["string","null"]}}}}`),
			json.RawMessage(`{"inputSchema":true,"name":"alpha","outputSchema":{"oneOf":[{"type":"integer"},{"type":"null"}]},"_meta":{"x":1}}`),
		},
	}
}

func TestExport(t *testing.T) {
	f := newFake()
	f.instructions = "Use <tools> & be nice."
	srv, err := Export(context.Background(), f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if srv.ID != "everything-server" {
		t.Errorf("id %q", srv.ID)
	}
	if string(srv.ServerInfo) != `{"version":"2.0.0","name":"Everything <Server>"}` {
		t.Errorf("serverInfo %s", srv.ServerInfo)
	}
	if srv.ProtocolVersion != "2025-11-25" || srv.Transport != "stdio" || srv.Instructions != f.instructions {
		t.Errorf("%+v", srv)
	}
	// Tools keep the server's order here (the bundle sorts them) and their
	// raw bytes exactly.
	if len(srv.Tools) != 2 || srv.Tools[1].Name != "alpha" || string(srv.Tools[1].Raw) != string(f.tools[1]) {
		t.Errorf("tools %+v", srv.Tools)
	}
	b := &bundle.Bundle{Servers: []bundle.Server{*srv}}
	out, err := b.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"name": "alpha"`) || strings.Index(string(out), `"alpha"`) > strings.Index(string(out), `"zeta"`) {
		t.Errorf("bundle:\n%s", out)
	}

	srv, err = Export(context.Background(), f, Options{ID: "custom"})
	if err != nil || srv.ID != "custom" {
		t.Fatalf("id %v %v", srv, err)
	}
}

func TestExportNoCapabilities(t *testing.T) {
	f := newFake()
	f.caps = json.RawMessage("null")
	srv, err := Export(context.Background(), f, Options{})
	if err != nil || srv.Capabilities != nil {
		t.Fatalf("%v %s", err, srv.Capabilities)
	}
}

func TestExportErrors(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*fakeSession)
		opts   Options
		want   string
	}{
		{"listing fails", func(f *fakeSession) { f.err = errors.New("boom") }, Options{}, "boom"},
		{"tool not object", func(f *fakeSession) { f.tools = append(f.tools, json.RawMessage(`"x"`)) }, Options{}, "tools/list: tool 2: tool is not a JSON object"},
		{"tool without name", func(f *fakeSession) { f.tools = append(f.tools, json.RawMessage(`{"inputSchema":{}}`)) }, Options{}, "tool 2: missing name"},
		{"duplicate tool", func(f *fakeSession) { f.tools = append(f.tools, f.tools[0]) }, Options{}, `tool "zeta" listed twice (tools 0 and 2)`},
		{"bad schema", func(f *fakeSession) {
			f.tools = append(f.tools, json.RawMessage(`{"name":"x","inputSchema":"nope"}`))
		}, Options{}, "do not make a valid bundle: /servers/0/tools/1/inputSchema"},
		{"no serverInfo", func(f *fakeSession) { f.info = nil }, Options{}, "no serverInfo"},
		{"serverInfo without name", func(f *fakeSession) { f.info = json.RawMessage(`{"version":"1"}`) }, Options{}, "serverInfo has no string name"},
		{"unsluggable name", func(f *fakeSession) { f.info = json.RawMessage(`{"name":"日本"}`) }, Options{}, "give one with --id"},
		{"bad id", nil, Options{ID: "a/b"}, `invalid server id "a/b"`},
		{"bad capabilities", func(f *fakeSession) { f.caps = json.RawMessage(`[1]`) }, Options{}, "capabilities is not a JSON object"},
		{"invalid UTF-8 in a name", func(f *fakeSession) {
			f.tools = append(f.tools, json.RawMessage("{\"name\":\"ca\xffll\",\"inputSchema\":{}}"))
		}, Options{}, "tools/list: tool 2 (\"ca\uFFFDll\"): the string at JSON pointer \"/name\" is not valid UTF-8"},
		{"invalid UTF-8 in serverInfo", func(f *fakeSession) { f.info = json.RawMessage("{\"name\":\"x\",\"version\":\"\xfe\"}") }, Options{}, `serverInfo: the string at JSON pointer "/version"`},
		{"no protocol version", func(f *fakeSession) { f.version = "" }, Options{}, "/servers/0/protocolVersion"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake()
			if tc.mutate != nil {
				tc.mutate(f)
			}
			srv, err := Export(context.Background(), f, tc.opts)
			if err == nil {
				t.Fatalf("no error: %+v", srv)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q lacks %q", err, tc.want)
			}
			var ae *AnswerError
			if isAnswer := errors.As(err, &ae); isAnswer != (tc.name != "listing fails") {
				t.Errorf("errors.As(*AnswerError) = %v for %v", isAnswer, err)
			}
		})
	}
}

// TestExportDocument: the document Export checked is the bundle holding the
// server alone, with the mcpbind version recorded when given: encoding it
// gives the bytes Marshal writes, and its schema findings are the server's.
func TestExportDocument(t *testing.T) {
	srv, doc, err := ExportDocument(context.Background(), newFake(), Options{MCPBindVersion: "v9.8.7"})
	if err != nil {
		t.Fatal(err)
	}
	if f, err := srv.Facts(); err != nil || f.MCPBindVersion != "v9.8.7" || f.Digest == "" {
		t.Errorf("facts %+v (%v): want the version and the digests recorded", f, err)
	}
	got, err := doc.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want, err := (&bundle.Bundle{Servers: []bundle.Server{*srv}}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("the document encodes to\n%s\nMarshal writes\n%s", got, want)
	}
	if fd, fs := doc.CheckServerSchemasWith(srv.ID, bundle.CheckOptions{}), srv.CheckSchemas(); len(fs) == 0 || fmt.Sprint(fd) != fmt.Sprint(fs) {
		t.Errorf("document findings %v, server findings %v (want the same, at least alpha's boolean inputSchema)", fd, fs)
	}
	if _, doc, _ := ExportDocument(context.Background(), newFake(), Options{}); doc == nil || strings.Contains(string(must(doc.Marshal())), "mcpbindVersion") {
		t.Error("without MCPBindVersion, a version is recorded")
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
