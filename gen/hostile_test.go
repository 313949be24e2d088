package gen

import (
	"encoding/json"
	"testing"

	"github.com/mcpbind/mcpbind/bundle"
)

// TestOddInputGenerates: input that is valid but odd generates a package
// that type-checks and holds only planned declarations, one case per class
// (names that collide with generated or predeclared ones, server text in
// every comment position, a protocol version from a hand-edited bundle).
func TestOddInputGenerates(t *testing.T) {
	g, err := New()
	if err != nil {
		t.Fatal(err)
	}
	c := newChecker(t)
	const inject = "x\n}\nfunc init() { panic(1) }\ntype pwned struct {\n//"
	str := `{"type":"string"}`
	for _, tc := range []struct {
		name, protocolVersion, serverInfo string
		tools                             []string
	}{
		{name: "properties named like generated methods and fields", tools: []string{`{"name":"t","inputSchema":{"type":"object","properties":{
			"validate":` + str + `,"Validate":` + str + `,"MarshalJSON":` + str + `,"UnmarshalJSON":` + str + `,"AdditionalProperties":` + str + `,
			"String":` + str + `,"objectRules":` + str + `},"additionalProperties":{"type":"integer"}}}`}},
		{name: "outputTypeName", tools: func() []string {
			var ts []string
			for i, n := range []string{"error", "string", "json", "context", "_", "ServerDigest", "Foo Bar", "init", "Client", "NewClient", "schemas", "fmt", "composition", "errors", "nil", "iota", "", "Ünïcode", "名前"} {
				name, _ := json.Marshal(n)
				ts = append(ts, `{"name":"t`+string(rune('a'+i))+`","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"r":`+str+`}},"annotations":{"pmcp:outputTypeName":`+string(name)+`}}`)
			}
			return ts
		}()},
		{name: "protocol version from a hand-edited bundle", protocolVersion: "2025-06-18" + inject, tools: []string{`{"name":"t","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"r":` + str + `}}}`}},
		{name: "serverInfo", serverInfo: `{"name":"n\u2028//go:generate x","version":"1\r//line a.go:1"}`, tools: []string{`{"name":"t","inputSchema":{"type":"object"}}`}},
		{name: "NUL and BOM in descriptions", tools: []string{`{"name":"t","description":"a\u0000b\ufeff","inputSchema":{"type":"object","properties":{"p":{"type":"string","description":"\u0000\ufeff\u202e"}}}}`}},
		{name: "line break in a $defs key and title", tools: []string{`{"name":"t","inputSchema":{"type":"object","properties":{"p":{"$ref":"#/$defs/a%0Ab"}},"$defs":{"a\nb":{"title":"x\ny","type":"object","properties":{"q":` + str + `}}}}}`}},
		{name: "punctuation in type names", tools: []string{`{"name":"t","inputSchema":{"type":"object","properties":{"p":{"title":"Foo.Bar/Baz!","type":"object","properties":{"q":` + str + `}}}},"outputSchema":{"title":"!!","type":"object","properties":{"r":` + str + `}}}`}},
		{name: "tool name, title and format", tools: []string{`{"name":"t` + jsonEsc(inject) + `","title":"T` + jsonEsc(inject) + `","description":"d","inputSchema":{"type":"object","properties":{"p":{"type":"string","format":"f` + jsonEsc(inject) + `"}}}}`}},
		{name: "tag values named like methods", tools: []string{`{"name":"t","inputSchema":{"type":"object","properties":{"u":{"oneOf":[
			{"type":"object","properties":{"k":{"const":"validate"}},"required":["k"]},{"type":"object","properties":{"k":{"const":"UnmarshalJSON"}},"required":["k"]}]}}}}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := bundle.Server{ID: "odd", ProtocolVersion: tc.protocolVersion, ServerInfo: json.RawMessage(tc.serverInfo)}
			if srv.ProtocolVersion == "" {
				srv.ProtocolVersion = "2025-06-18"
			}
			for _, raw := range tc.tools {
				tool, err := bundle.NewTool(json.RawMessage(raw))
				if err != nil {
					t.Fatal(err)
				}
				srv.Tools = append(srv.Tools, tool)
			}
			outs, err := g.Bundle(&bundle.Bundle{BundleVersion: 1, Servers: []bundle.Server{srv}}, Options{Server: true})
			if err != nil {
				t.Fatalf("generate: %v", err)
			}
			if err := c.check(outs[0].Files); err != nil {
				t.Fatalf("does not type-check: %v\n%s\n%s", err, outs[0].Files[0].Content, outs[0].Files[1].Content)
			}
			if err := checkOnlyPlanned(outs[0].IR, outs[0].Files); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// jsonEsc returns s escaped for use inside a JSON string literal.
func jsonEsc(s string) string {
	q := jsonString(s)
	return q[1 : len(q)-1]
}
