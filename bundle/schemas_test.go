package bundle

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/internal/digest"
)

func TestCheckSchemas(t *testing.T) {
	cases := []struct {
		name string
		tool string
		want []string // Finding.String() of each finding, in order
	}{
		{"valid 2020-12", `{"name":"t","inputSchema":{"type":"object","properties":{"a":{"type":"string","pattern":"^(?=x)"}}},"outputSchema":true}`, nil},
		{"valid draft-07 with a fragment", `{"name":"t","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","definitions":{"x":{"type":"string"}},"properties":{"a":{"$ref":"#/definitions/x"}}}}`, nil},
		{"valid draft-04 over https", `{"name":"t","inputSchema":{"$schema":"https://json-schema.org/draft-04/schema","type":"object","properties":{"n":{"type":"number","maximum":3,"exclusiveMaximum":true}}}}`, nil},
		{"external ref: nothing fetched", `{"name":"t","inputSchema":{"type":"object","properties":{"a":{"$ref":"https://example.invalid/a.json"}}}}`, nil},
		{"unknown type", `{"name":"t","inputSchema":{"type":"object","properties":{"a":{"type":"strng"}}}}`,
			[]string{`server "s", tool "t", inputSchema#/properties/a/type: value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'; got string, want array (meta-schema 2020-12)`}},
		{"draft-07 required not an array", `{"name":"t","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","required":"a"}}`,
			[]string{`server "s", tool "t", inputSchema#/required: got string, want array (meta-schema draft-07)`}},
		{"2020-12 accepts what draft-04 refuses", `{"name":"t","outputSchema":{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"a":true}}}`,
			[]string{`server "s", tool "t", outputSchema#/properties/a: got boolean, want object (meta-schema draft-04)`}},
		{"2019-09 minLength negative", `{"name":"t","outputSchema":{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"string","minLength":-1}}`,
			[]string{`server "s", tool "t", outputSchema#/minLength: minimum: got -1, want 0 (meta-schema 2019-09)`}},
		{"unknown $schema", `{"name":"t","inputSchema":{"$schema":"https://example.com/my-meta","type":"object"}}`,
			[]string{`server "s", tool "t", inputSchema#/$schema: unknown $schema "https://example.com/my-meta": mcpbind checks draft-04, draft-06, draft-07, 2019-09 and 2020-12 schemas and never fetches a meta-schema`}},
		{"$schema not a string", `{"name":"t","inputSchema":{"$schema":7,"type":"object"}}`,
			[]string{`server "s", tool "t", inputSchema#/$schema: $schema is a number, not a URI string`}},
		{"input root boolean", `{"name":"t","inputSchema":true}`,
			[]string{`server "s", tool "t", inputSchema: the root must be an object schema with "type": "object", as MCP requires; got the boolean true`}},
		{"input root without type", `{"name":"t","inputSchema":{"properties":{}}}`,
			[]string{`server "s", tool "t", inputSchema: the root has no "type"; MCP requires "type": "object"`}},
		{"input root type array", `{"name":"t","inputSchema":{"type":["object","null"]}}`,
			[]string{`server "s", tool "t", inputSchema: the root has "type": ["object","null"]; MCP requires "type": "object"`}},
		{"output root may be anything", `{"name":"t","outputSchema":{"type":"array","items":{"type":"integer"}}}`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := testServer(t, tc.tool)
			d, err := (&Bundle{Servers: []Server{s}}).Document()
			if err != nil {
				t.Fatal(err)
			}
			// The server's raw tools, and the document's decoded ones.
			for _, fs := range [][]Finding{s.CheckSchemas(), d.CheckSchemasWith(CheckOptions{}), d.CheckServerSchemasWith(s.ID, CheckOptions{})} {
				var got []string
				for _, f := range fs {
					got = append(got, f.String())
				}
				if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
					t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
				}
			}
		})
	}
}

func TestCheckSchemasNaturalOutputSchema(t *testing.T) {
	s := testServer(t, `{"name":"t","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"result":{"type":"integer"}},"required":["result"]}}`)
	err := s.SetFacts(Facts{Tools: map[string]ToolFacts{"t": {Envelope: &Evidence{AlwaysWraps: true,
		NaturalOutputSchema: json.RawMessage(`{"type":"integer","minimum":"zero"}`), ProbedVersions: []string{"2026-07-28"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	f := s.CheckSchemas()
	if len(f) != 1 || f[0].String() != `server "s", tool "t", x-mcpbind naturalOutputSchema#/minimum: got string, want number (meta-schema 2020-12)` {
		t.Errorf("findings %v", f)
	}
}

// TestCheckSchemasRealBundle: the server-everything bundle has no findings,
// and neither do its recorded digests once recorded.
func TestCheckSchemasRealBundle(t *testing.T) {
	b, err := Load(filepath.Join("testdata", "everything.json"))
	if err != nil {
		t.Fatal(err)
	}
	if f := b.CheckSchemas(); len(f) != 0 {
		t.Errorf("findings: %v", f)
	}
	s := &b.Servers[0]
	if err := s.RecordDigests(); err != nil {
		t.Fatal(err)
	}
	if !digest.Valid(s.Digest()) || len(s.CheckDigests()) != 0 {
		t.Errorf("digest %q, findings %v", s.Digest(), s.CheckDigests())
	}
}

// TestCheckSchemasDepthLimit: a schema nested beyond MaxSchemaDepth is one
// finding at the first sub-schema too deep (and is not checked against its
// meta-schema); at the limit it is valid.
func TestCheckSchemasDepthLimit(t *testing.T) {
	nested := func(depth int) string {
		return strings.Repeat(`{"type":"object","properties":{"a":`, depth) + `{"type":"string"}` + strings.Repeat(`}}`, depth)
	}
	check := func(depth, max int) []Finding {
		tool, err := NewTool([]byte(`{"name":"deep","inputSchema":` + nested(depth) + `}`))
		if err != nil {
			t.Fatal(err)
		}
		s := &Server{ID: "srv", Tools: []Tool{tool}}
		fs := s.CheckSchemasWith(CheckOptions{MaxSchemaDepth: max})
		d, err := (&Bundle{Servers: []Server{{ID: "srv", ProtocolVersion: "2025-06-18", Transport: "stdio", ServerInfo: json.RawMessage(`{"name":"x","version":"1"}`), Tools: []Tool{tool}}}}).Document()
		if err != nil {
			t.Fatal(err)
		}
		if ds := d.CheckSchemasWith(CheckOptions{MaxSchemaDepth: max}); fmt.Sprint(ds) != fmt.Sprint(fs) {
			t.Errorf("depth %d, limit %d: the document's findings %v, the server's %v", depth, max, ds, fs)
		}
		return fs
	}
	if fs := check(3, 3); len(fs) != 0 {
		t.Fatalf("depth 3, limit 3: %v", fs)
	}
	fs := check(4, 3)
	if len(fs) != 1 || fs[0].Pointer != "/properties/a/properties/a/properties/a/properties/a" || !strings.Contains(fs[0].Msg, "deeper than 3 levels") {
		t.Fatalf("depth 4, limit 3: %v", fs)
	}
	if fs := check(DefaultMaxSchemaDepth+1, 0); len(fs) != 1 {
		t.Fatalf("default limit: %v", fs)
	}
}
