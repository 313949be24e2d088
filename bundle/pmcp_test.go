package bundle

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// toolByName returns the raw JSON of a tool of s.
func toolByName(t *testing.T, s Server, name string) string {
	t.Helper()
	for _, tl := range s.Tools {
		if tl.Name == name {
			return string(tl.Raw)
		}
	}
	t.Fatalf("server %s has no tool %s", s.ID, name)
	return ""
}

func TestLoadPMCPDocumentedExport(t *testing.T) {
	b, err := Load(filepath.Join("testdata", "pmcp-export.json"))
	if err != nil {
		t.Fatal(err)
	}
	if b.Format != FormatPMCP || b.Format.String() != "PMCP export" {
		t.Errorf("format %v", b.Format)
	}
	if len(b.Servers) != 1 {
		t.Fatalf("%d servers", len(b.Servers))
	}
	s := b.Servers[0]
	if s.ID != "sqlite-explorer" || string(s.ServerInfo) != `{"name":"sqlite-explorer"}` ||
		s.ProtocolVersion != PMCPProtocolVersion || s.Transport != TransportStreamableHTTP {
		t.Errorf("server %s %s %s %s", s.ID, s.ServerInfo, s.ProtocolVersion, s.Transport)
	}
	// Sorted by name; each tool kept as it was (compacted).
	if s.Tools[0].Name != "delete_record" || s.Tools[1].Name != "query" {
		t.Fatalf("tools %s, %s", s.Tools[0].Name, s.Tools[1].Name)
	}
	want := `{"name":"query","description":"Execute SQL query","inputSchema":{"type":"object","properties":{"sql":{"type":"string","description":"SQL query to execute"},"params":{"type":"array","items":{"type":"string"}}},"required":["sql"]},` +
		`"outputSchema":{"type":"object","properties":{"columns":{"type":"array","items":{"type":"string"}},"rows":{"type":"array"},"row_count":{"type":"integer"}}},` +
		`"annotations":{"readOnlyHint":true,"pmcp:outputTypeName":"QueryResult"}}`
	if got := toolByName(t, s, "query"); got != want {
		t.Errorf("query:\n got %s\nwant %s", got, want)
	}
	// The converted bundle is a bundle: it writes, and reads back as one.
	out, err := b.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	b2, err := Parse(out, "out.json")
	if err != nil || b2.Format != FormatBundle {
		t.Fatalf("re-read: %v, format %v", err, b2.Format)
	}
	if len(b.CheckSchemas()) != 0 {
		t.Errorf("findings: %v", b.CheckSchemas())
	}
}

func TestLoadPMCPCLIExport(t *testing.T) {
	path := filepath.Join("testdata", "pmcp-cli-export.json")
	b, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if b.Format != FormatPMCPCLI || b.Format.String() != "PMCP CLI export" {
		t.Errorf("format %v", b.Format)
	}
	s := b.Servers[0]
	if s.ID != "sqlite-explorer" || string(s.ServerInfo) != `{"name":"sqlite-explorer","version":"1.2.0"}` ||
		s.ProtocolVersion != PMCPCLIProtocolVersion || s.Transport != TransportStreamableHTTP {
		t.Errorf("server %s %s %s %s", s.ID, s.ServerInfo, s.ProtocolVersion, s.Transport)
	}
	query := toolByName(t, s, "query")
	for _, want := range []string{
		`{"name":"query","description":"Execute SQL query and return results","inputSchema":{"type":"object","properties":{"sql":`,
		`"outputSchema":{"type":"object","properties":{"columns":`,
		`"required":["columns","rows","row_count"]},"annotations":{"readOnlyHint":true,"pmcp:outputTypeName":"QueryResult"}}`,
	} {
		if !strings.Contains(query, want) {
			t.Errorf("query lacks %s:\n%s", want, query)
		}
	}
	if strings.Contains(query, "input_schema") || strings.Contains(query, "output_schema") {
		t.Errorf("snake-case members kept: %s", query)
	}
	// An output schema only in the annotations (PMCP's earlier spelling)
	// becomes the tool's outputSchema; the annotation stays.
	del := toolByName(t, s, "delete_record")
	if !strings.HasSuffix(del, `"outputSchema":{"type":"object","properties":{"deleted":{"type":"boolean"}}}}`) ||
		!strings.Contains(del, `"pmcp:outputSchema"`) {
		t.Errorf("delete_record: %s", del)
	}
	out, err := b.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	// Never stored: the endpoint URL, the timestamp, resources.
	for _, leak := range []string{"pmcp.run", "exported_at", "2026-01-15", "sqlite://schema", "foundation"} {
		if bytes.Contains(out, []byte(leak)) {
			t.Errorf("the converted bundle holds %q", leak)
		}
	}
}

func TestParsePMCPErrors(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"documented, version 2", `{"version":"2.0","servers":[]}`, `f.json: /version: PMCP export: unsupported version "2.0"`},
		{"documented, version a number", `{"version":1,"servers":[]}`, "/version: PMCP export: version is not a string"},
		{"documented, servers an object", `{"version":"1.0","servers":{}}`, "/servers: PMCP export: servers is not an array"},
		{"documented, server without id", `{"version":"1.0","servers":[{"tools":[]}]}`, "/servers/0: PMCP export: missing id"},
		{"documented, bad id", `{"version":"1.0","servers":[{"id":"a b","tools":[]}]}`, `/servers/0/id: PMCP export: invalid server id "a b"`},
		{"documented, duplicate id", `{"version":"1.0","servers":[{"id":"a"},{"id":"a"}]}`, `/servers/1/id: PMCP export: duplicate server id "a" (also at /servers/0)`},
		{"documented, tool without name", `{"version":"1.0","servers":[{"id":"a","tools":[{"inputSchema":{}}]}]}`, "/servers/0/tools/0: PMCP export: missing name"},
		{"documented, schema a string", `{"version":"1.0","servers":[{"id":"a","tools":[{"name":"t","inputSchema":"x"}]}]}`,
			"PMCP export does not convert to a valid bundle: /servers/0/tools/0/inputSchema"},
		{"cli, tools not an array", `{"server_id":"a","tools":{}}`, "/tools: PMCP CLI export: tools is not an array"},
		{"cli, duplicate tool", `{"server_id":"a","tools":[{"name":"t"},{"name":"t"}]}`, `/tools/1/name: PMCP CLI export: duplicate tool name "t" (also at /tools/0)`},
		{"cli, server_id a number", `{"server_id":7,"tools":[]}`, "/server_id: PMCP CLI export: server_id is not a string"},
		{"cli, tool not an object", `{"server_id":"a","tools":[[]]}`, "/tools/0: PMCP CLI export: tool is not a JSON object"},
		{"cli, duplicate key", `{"server_id":"a","server_id":"b"}`, `f.json: duplicate key "server_id"`},
		{"cli, truncated", `{"server_id":"a",`, "f.json:1:17: unexpected end of JSON input"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Parse([]byte(tc.in), "f.json")
			if err == nil {
				t.Fatalf("no error: %+v", b)
			}
			var be *Error
			if !errors.As(err, &be) || be.Source != "f.json" {
				t.Errorf("error %T %v: not an *Error with the source", err, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error\n  %v\nlacks\n  %s", err, tc.want)
			}
		})
	}
}

func TestSniff(t *testing.T) {
	for in, want := range map[string]Format{
		`{"bundleVersion":1,"servers":[]}`:    FormatBundle,
		`{"bundleVersion":1,"server_id":"x"}`: FormatBundle,
		`{"servers":[]}`:                      FormatBundle, // the bundle schema says what is missing
		`{"version":"1.0","servers":[]}`:      FormatPMCP,
		`{"server_id":"x"}`:                   FormatPMCPCLI,
		`[1]`:                                 FormatBundle,
		`not json`:                            FormatBundle,
		`{"version":"1.0","servers":[],"server_id":"x"}`: FormatPMCPCLI,
	} {
		if got := sniff([]byte(in)); got != want {
			t.Errorf("sniff(%s) = %v, want %v", in, got, want)
		}
	}
}
