package pinning

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/mcpbind/mcpbind/composition/bindimpl"
	"github.com/mcpbind/mcpbind/internal/digest"
)

// TestCompare: the comparer of DigestCheck says what changed in a pinned
// tool, most severe first, as "class where code": a schema change by the
// rules of `mcpbind diff`, the tool's other fields by the digest with the
// embedded schemas put back, an outputSchema added or removed, a tool that
// is not a JSON object, and a package that embeds no schemas.
func TestCompare(t *testing.T) {
	const (
		in       = `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`
		inLang   = `{"type":"object","properties":{"name":{"type":"string"},"language":{"type":"string"}},"required":["name","language"]}`
		out      = `{"type":"object","properties":{"greeting":{"type":"string"}}}`
		original = `{"name":"greet","description":"Greets.","inputSchema":` + in + `,"outputSchema":` + out + `}`
		noOutput = `{"name":"greet","description":"Greets.","inputSchema":` + in + `}`
	)
	pinned := func(tool string, docs map[string]string) *bindimpl.Tool {
		d, err := digest.Tool(json.RawMessage(tool))
		if err != nil {
			t.Fatal(err)
		}
		p := &bindimpl.Tool{Name: "greet", Digest: d}
		if docs != nil {
			p.Schemas = bindimpl.NewSchemaSet(docs)
			p.InputDoc = "in"
			if _, ok := docs["out"]; ok {
				p.OutputDoc = "out"
			}
		}
		return p
	}
	withOutput := pinned(original, map[string]string{"in": in, "out": out})
	withoutOutput := pinned(noOutput, map[string]string{"in": in})
	for _, tc := range []struct {
		name   string
		pinned *bindimpl.Tool
		live   string
		want   []string
	}{
		{"description", withOutput, `{"name":"greet","description":"Greets you.","inputSchema":` + in + `,"outputSchema":` + out + `}`,
			[]string{"cosmetic tool tool-fields-changed"}},
		{"input", withOutput, `{"name":"greet","description":"Greets.","inputSchema":` + inLang + `,"outputSchema":` + out + `}`,
			[]string{"breaking input property-added"}},
		{"input and description", withOutput, `{"name":"greet","description":"Hi.","inputSchema":` + inLang + `,"outputSchema":` + out + `}`,
			[]string{"breaking input property-added", "cosmetic tool tool-fields-changed"}},
		{"output added", withoutOutput, original, []string{"compatible output output-schema-added"}},
		{"output removed", withOutput, noOutput, []string{"breaking output output-schema-removed"}},
		{"unreadable", withOutput, `["greet"]`, []string{"breaking tool tool-unreadable"}},
		{"no schemas embedded", pinned(original, nil), `{"name":"greet","description":"Greets you.","inputSchema":` + in + `}`,
			[]string{"cosmetic tool tool-fields-changed"}},
		{"rewritten", withOutput, `{"description":"Greets.","name":"greet","outputSchema":` + out + `,"inputSchema":{"required":["name"],"type":"object","properties":{"name":{"type":"string"}}}}`,
			nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, c := range (comparer{}).Compare(tc.pinned, json.RawMessage(tc.live), "") {
				got = append(got, string(c.Class)+" "+string(c.Where)+" "+c.Code)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("changes %q, want %q", got, tc.want)
			}
		})
	}
}
