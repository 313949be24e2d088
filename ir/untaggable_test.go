package ir

import (
	"strings"
	"testing"
)

// TestUntaggableObjectBuildsNoType: an object with a property no struct
// tag can name is kept as a map, and no type is built for its other
// properties (an array of objects, a nested object): such a type would be
// documented as "the type of" a field of a struct that is never declared.
func TestUntaggableObjectBuildsNoType(t *testing.T) {
	p := build(t, `{"name":"x","inputSchema":{"type":"object","properties":{"o":{"type":"object","properties":{`+
		`"a":{"type":"array","items":{"type":"object","properties":{"x":{"type":"string"}}}},`+
		`"n":{"type":"object","properties":{"y":{"type":"string"}}},"b\"c":{"type":"string"}}}}}}`)
	declared := map[string]bool{}
	for _, ty := range p.Types {
		declared[ty.Name] = true
	}
	for _, ty := range p.Types {
		if ty.Name != "XArgs" {
			t.Errorf("type %s built for an object kept as a map: %q", ty.Name, ty.Doc)
		}
		for _, line := range ty.Doc {
			for _, w := range strings.Fields(line) {
				if parent, _, ok := strings.Cut(strings.TrimSuffix(w, "."), "."); ok && !declared[parent] {
					t.Errorf("%s's doc names %s, which is not declared: %q", ty.Name, parent, line)
				}
			}
		}
	}
	o := p.Types[0].Fields[0]
	if o.Type.Kind != KindMap || !strings.Contains(o.Type.Elem.RawReason, `property "b\"c" cannot be a Go struct field tag`) {
		t.Errorf("field O is %v with values' raw reason %q, want a map with the reason", o.Type.Kind, o.Type.Elem.RawReason)
	}
}
