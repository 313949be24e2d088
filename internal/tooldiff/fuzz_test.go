package tooldiff

import (
	"encoding/json"
	"testing"
)

// FuzzCompareSchema: any two JSON documents compare without panicking or
// running away, in both directions, and a document compared with itself
// has no changes.
func FuzzCompareSchema(f *testing.F) {
	for _, s := range []string{
		`{}`, `true`, `false`, `{"type":"string"}`, refDoc, tree, shapes,
		`{"type":["string","null"],"enum":["a",null],"maxLength":3}`,
		`{"anyOf":[{"$ref":"#"},{"type":"null"}]}`,
		`{"allOf":[{"$ref":"#/$defs/a"}],"$defs":{"a":{"allOf":[{"$ref":"#/$defs/a"}]}}}`,
		`{"type":"object","properties":{"a":{"oneOf":[{"const":1},{"const":"1"}]}},"additionalProperties":false}`,
		`{"items":[{"type":"string"}],"minimum":1,"exclusiveMinimum":true,"multipleOf":0.5}`,
	} {
		f.Add(s, `{"type":"object"}`)
		f.Add(`{"type":"object","properties":{"x":{"$ref":"#"}}}`, s)
	}
	f.Fuzz(func(t *testing.T, old, new string) {
		if !json.Valid([]byte(old)) || !json.Valid([]byte(new)) {
			return
		}
		for _, d := range []Direction{Input, Output} {
			if _, err := CompareSchema([]byte(old), []byte(new), d); err != nil {
				t.Fatal(err)
			}
			if cs, _ := CompareSchema([]byte(old), []byte(old), d); len(cs) != 0 {
				t.Fatalf("%s against itself: %q", old, summarize(cs))
			}
		}
	})
}
