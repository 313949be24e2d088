package ir

import (
	"strings"
	"testing"
)

// TestKindGroups: union alternatives and enum values sorted by JSON kind
// type as a person would (issue 17 item 3), and what stays raw says a true
// reason.
func TestKindGroups(t *testing.T) {
	for _, tc := range []struct {
		name, schema string
		// goType is the field's Go type, or its kind when it is a named
		// type ("enum", "union"); reason is a part of its raw reason.
		goType, reason string
	}{
		{"string consts", `{"anyOf":[{"const":"fast","type":"string"},{"const":"slow","type":"string"}]}`, "enum", ""},
		{"integer|number", `{"anyOf":[{"type":"integer"},{"type":"number"}]}`, "float64", ""},
		{"integer|integer", `{"anyOf":[{"type":"integer","minimum":5},{"type":"integer","maximum":0}]}`, "int64", ""},
		{"enum or pattern", `{"anyOf":[{"type":"string","enum":["pd"]},{"type":"string","pattern":"^x"}]}`, "string", ""},
		{"number or const", `{"anyOf":[{"type":"number"},{"type":"string","const":"indeterminate"}]}`, "union", ""},
		{"mixed enum", `{"enum":[1,-1,"2d"]}`, "union", ""},
		{"enum with null", `{"enum":["a",null]}`, "enum", ""},
		{"untellable objects", `{"anyOf":[{"type":"object","properties":{"a":{}}},{"type":"object","properties":{"b":{}}}]}`,
			"json.RawMessage", "anyOf with several object variants that no const or required property tells apart"},
		{"no type", `{"oneOf":[{"minimum":1},{"type":"string"}]}`,
			"json.RawMessage", `oneOf variants that say neither "type" nor "const" nor "enum"`},
		{"object consts", `{"anyOf":[{"const":{"a":1}},{"type":"string"}]}`,
			"json.RawMessage", "anyOf variants with const or enum values that are objects or arrays"},
		{"object enum", `{"enum":[{"a":1}]}`, "json.RawMessage", "const or enum values that are objects or arrays"},
		{"only null", `{"anyOf":[{"type":"null"}]}`, "json.RawMessage", "the only allowed value is null"},
	} {
		p := build(t, `{"name":"a","inputSchema":{"type":"object","properties":{"prop":`+tc.schema+`},"required":["prop"]}}`)
		f := p.Tools[0].Args.Fields[0]
		got := f.Type.GoType()
		if f.Type.Named() {
			got = f.Type.Kind.String()
		}
		if got != tc.goType {
			t.Errorf("%s: Go type %s, want %s", tc.name, got, tc.goType)
		}
		if !strings.Contains(f.Type.RawReason, tc.reason) || (tc.reason == "") != (f.Type.RawReason == "") {
			t.Errorf("%s: raw reason %q, want %q", tc.name, f.Type.RawReason, tc.reason)
		}
		if nullable := strings.Contains(tc.schema, "null"); f.Nullable != nullable && f.Type.Kind != KindRaw {
			t.Errorf("%s: nullable %v, want %v", tc.name, f.Nullable, nullable)
		}
	}
}
