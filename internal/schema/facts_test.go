package schema

import (
	"encoding/json"
	"testing"
)

// TestEnvelope pins the one envelope rule (DESIGN §3) on the shapes the
// three earlier spellings disagreed about.
func TestEnvelope(t *testing.T) {
	for _, tc := range []struct {
		name, schema string
		evidence     bool
		want         bool
	}{
		{"no type, array result", `{"properties":{"result":{"type":"array","items":{"type":"string"}}},"required":["result"]}`, false, true},
		{"typed object, array result", `{"type":"object","properties":{"result":{"type":"array"}},"required":["result"]}`, false, true},
		{"plain object result", `{"type":"object","properties":{"result":{"type":"object"}},"required":["result"]}`, false, false},
		{"plain object result behind $ref", `{"type":"object","properties":{"result":{"$ref":"#/$defs/r"}},"required":["result"],"$defs":{"r":{"type":"object"}}}`, false, false},
		{"array result behind $ref", `{"type":"object","properties":{"result":{"$ref":"#/$defs/r"}},"required":["result"],"$defs":{"r":{"type":"array"}}}`, false, true},
		{"nullable object result", `{"type":"object","properties":{"result":{"type":["object","null"]}},"required":["result"]}`, false, true},
		{"result not required", `{"type":"object","properties":{"result":{"type":"array"}}}`, false, false},
		{"two properties", `{"type":"object","properties":{"result":{"type":"array"},"more":{}},"required":["result"]}`, false, false},
		{"two properties with evidence", `{"type":"object","properties":{"result":{"type":"array"},"more":{}},"required":["result"]}`, true, true},
		{"root type string", `{"type":"string","properties":{"result":{"type":"array"}},"required":["result"]}`, false, false},
		{"root nullable object", `{"type":["object","null"],"properties":{"result":{"type":"array"}},"required":["result"]}`, false, false},
		{"marked with a plain object", `{"type":"object","properties":{"result":{"type":"object"}},"required":["result"],"x-fastmcp-wrap-result":true}`, false, true},
		{"boolean schema", `true`, true, false},
	} {
		doc, err := Load(json.RawMessage(tc.schema))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		inner, ok := doc.Envelope(tc.evidence)
		if ok != tc.want || (ok && inner != EnvelopeInner) {
			t.Errorf("%s: Envelope(%v) = %q, %v; want %v", tc.name, tc.evidence, inner, ok, tc.want)
		}
		if ok {
			if _, found := Inner(json.RawMessage(tc.schema)); !found {
				t.Errorf("%s: Envelope recognised it, Inner cannot take the result out", tc.name)
			}
		}
	}
}

func TestCanBeObject(t *testing.T) {
	for schema, want := range map[string]bool{
		`{"type":"array"}`:           false,
		`{"type":["object","null"]}`: true,
		`{"anyOf":[{"type":"string"},{"$ref":"#/$defs/o"}],"$defs":{"o":{"type":"object"}}}`: true,
		`{"anyOf":[{"type":"string"},{"type":"integer"}]}`:                                   false,
		`{"enum":[1,{"a":1}]}`: true,
		`{"const":"x"}`:        false,
		`{}`:                   true,
		`false`:                false,
	} {
		doc := Parse(json.RawMessage(schema))
		root, err := doc.Node("")
		if err != nil {
			t.Fatal(err)
		}
		if got := doc.CanBeObject(root); got != want {
			t.Errorf("CanBeObject(%s) = %v, want %v", schema, got, want)
		}
	}
}

// TestListings pins what each era lists (DESIGN §8), the decision generated
// servers carry.
func TestListings(t *testing.T) {
	for _, tc := range []struct {
		name, schema       string
		evidence, always   bool
		wantModern, legacy string
	}{
		{"plain object", `{"type":"object","properties":{"a":{}}}`, false, false, "", ""},
		{"natural with a result property", `{"type":["object","null"],"properties":{"result":{}}}`, false, false, "", ""},
		{"natural array", `{"type":"array","items":{"$ref":"#/$defs/s"},"$defs":{"s":{"type":"string"}}}`, false, false, "",
			`{"type":"object","properties":{"result":{"type":"array","items":{"$ref":"#/properties/result/$defs/s"},"$defs":{"s":{"type":"string"}}}},"required":["result"]}`},
		{"untyped envelope", `{"properties":{"result":{"type":"array"}},"required":["result"]}`, false, false,
			`{"type":"array"}`, `{"properties":{"result":{"type":"array"}},"required":["result"]}`},
		{"always wraps", `{"type":"object","properties":{"result":{"type":"integer"}},"required":["result"],"x-fastmcp-wrap-result":true}`, false, true, "", ""},
	} {
		doc, err := Load(json.RawMessage(tc.schema))
		if err != nil {
			t.Fatal(err)
		}
		inner, _ := doc.Envelope(tc.evidence)
		modern, legacy, err := doc.Listings(json.RawMessage(tc.schema), inner, tc.always)
		if err != nil || string(modern) != tc.wantModern || string(legacy) != tc.legacy {
			t.Errorf("%s: Listings = %s, %s, %v; want %s, %s", tc.name, modern, legacy, err, tc.wantModern, tc.legacy)
		}
	}
}
