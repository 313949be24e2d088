package schema

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// normalizeCase is one Normalize table entry. out is compared byte for byte
// (so key order is checked too); "" means the input comes back unchanged.
// warn lists substrings, one per expected warning, in order.
type normalizeCase struct {
	name, in, out string
	warn          []string
}

func normalizeCases() []normalizeCase {
	return []normalizeCase{
		// Nothing to do: the input comes back byte for byte.
		{name: "2020-12 unchanged", in: "{\n  \"type\": \"object\",\n  \"properties\": {\"z\": {\"type\": \"string\", \"description\": \"caf\\u00e9 <b>\"}, \"a\": {\"$ref\": \"#/$defs/A\"}},\n  \"$defs\": {\"A\": {\"type\": \"integer\"}}\n}"},
		{name: "ref with annotations only", in: `{"$ref":"#/$defs/A","description":"d","title":"T","default":1,"x-extra":true,"$defs":{"A":{}}}`},
		{name: "boolean schema", in: `true`},

		// Dialects and $schema.
		{name: "draft-04 id, exclusive bounds, key order",
			in:  `{"$schema":"http://json-schema.org/draft-04/schema#","id":"http://example.com/a.json","type":"object","properties":{"z":{"type":"number","maximum":5,"exclusiveMaximum":true,"description":"caf\u00e9"},"a":{"type":"integer","exclusiveMinimum":false,"minimum":0},"m":{"id":"#m","type":"string"}},"required":["z"]}`,
			out: `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"http://example.com/a.json","type":"object","properties":{"z":{"type":"number","exclusiveMaximum":5,"description":"caf\u00e9"},"a":{"type":"integer","minimum":0},"m":{"$anchor":"m","type":"string"}},"required":["z"]}`},
		{name: "draft-04 exclusiveMinimum true",
			in:  `{"$schema":"http://json-schema.org/draft-04/schema","minimum":1.5,"type":"number","exclusiveMinimum":true}`,
			out: `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"number","exclusiveMinimum":1.5}`},
		{name: "draft-04 exclusive without bound",
			in:   `{"$schema":"http://json-schema.org/draft-04/schema#","exclusiveMaximum":true}`,
			out:  `{"$schema":"https://json-schema.org/draft/2020-12/schema"}`,
			warn: []string{"#: exclusiveMaximum: true without maximum has no effect"}},
		{name: "boolean exclusive bound without $schema",
			in:   `{"type":"integer","maximum":10,"exclusiveMaximum":true}`,
			out:  `{"type":"integer","exclusiveMaximum":10}`,
			warn: []string{"#: boolean exclusiveMaximum is draft-04"}},
		{name: "draft-04 keeps id as a property name and $id beside id",
			in:  `{"$schema":"http://json-schema.org/draft-04/schema#","properties":{"id":{"type":"string"}},"required":["id"]}`,
			out: `{"$schema":"https://json-schema.org/draft/2020-12/schema","properties":{"id":{"type":"string"}},"required":["id"]}`},
		{name: "draft-07 $id fragment is an anchor",
			in:  `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"A":{"$id":"#a","type":"string"}},"$ref":"#a"}`,
			out: `{"$schema":"https://json-schema.org/draft/2020-12/schema","definitions":{"A":{"$anchor":"a","type":"string"}},"$ref":"#a"}`},
		{name: "unknown $schema",
			in:   `{"$schema":"https://example.com/my-meta","type":"string"}`,
			warn: []string{`#: unknown $schema "https://example.com/my-meta"; read as JSON Schema 2020-12`}},
		{name: "2019-09 $schema rewritten",
			in:  `{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"string"}`,
			out: `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"string"}`},
		{name: "embedded resource switches dialect",
			in:  `{"type":"object","properties":{"a":{"$ref":"http://example.com/old.json"}},"$defs":{"old":{"$schema":"http://json-schema.org/draft-07/schema#","$id":"http://example.com/old.json","type":"array","items":[{"type":"string"}]}}}`,
			out: `{"type":"object","properties":{"a":{"$ref":"http://example.com/old.json"}},"$defs":{"old":{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"http://example.com/old.json","type":"array","prefixItems":[{"type":"string"}]}}}`},

		// Tuples.
		{name: "draft-07 tuple",
			in:  `{"$schema":"http://json-schema.org/draft-07/schema#","type":"array","items":[{"type":"string"},{"type":"integer"}],"additionalItems":{"type":"boolean"},"minItems":1}`,
			out: `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"items":{"type":"boolean"},"minItems":1}`},
		{name: "2019-09 tuple closed",
			in:  `{"$schema":"https://json-schema.org/draft/2019-09/schema","items":[true],"additionalItems":false}`,
			out: `{"$schema":"https://json-schema.org/draft/2020-12/schema","prefixItems":[true],"items":false}`},
		{name: "additionalItems without tuple is ignored",
			in:   `{"$schema":"http://json-schema.org/draft-07/schema#","items":{"type":"string"},"additionalItems":false}`,
			out:  `{"$schema":"https://json-schema.org/draft/2020-12/schema","items":{"type":"string"}}`,
			warn: []string{"#: additionalItems without array-form items has no effect; removed"}},
		{name: "array items in a 2020-12 document",
			in:   `{"type":"array","items":[{"type":"string"}]}`,
			out:  `{"type":"array","prefixItems":[{"type":"string"}]}`,
			warn: []string{"#: array-form items is draft 2019-09 or earlier; read as prefixItems"}},
		{name: "additionalItems beside prefixItems",
			in:   `{"prefixItems":[{"type":"string"}],"additionalItems":false}`,
			out:  `{"prefixItems":[{"type":"string"}],"items":false}`,
			warn: []string{"#: additionalItems beside prefixItems is not 2020-12; read as items"}},
		{name: "refs into a tuple follow it",
			in:  `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"t":{"type":"array","items":[{"type":"string"}]},"u":{"$ref":"#/properties/t/items/0"}}}`,
			out: `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"t":{"type":"array","prefixItems":[{"type":"string"}]},"u":{"$ref":"#/properties/t/prefixItems/0"}}}`},

		// dependencies.
		{name: "dependencies split in place",
			in:  `{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"a":{},"b":{}},"dependencies":{"b":{"required":["a"]},"a":["b"],"c":["a","b"]},"required":[]}`,
			out: `{"$schema":"https://json-schema.org/draft/2020-12/schema","properties":{"a":{},"b":{}},"dependentSchemas":{"b":{"required":["a"]}},"dependentRequired":{"a":["b"],"c":["a","b"]},"required":[]}`},
		{name: "dependencies merge into dependentRequired",
			in:   `{"dependentRequired":{"a":["b"]},"dependencies":{"a":["c"],"d":["a"]}}`,
			out:  `{"dependentRequired":{"a":["b"],"d":["a"]}}`,
			warn: []string{`#: dependencies and dependentRequired both constrain "a"`}},
		{name: "refs into dependencies follow them",
			in:  `{"$schema":"http://json-schema.org/draft-06/schema#","dependencies":{"a":{"type":"object"}},"not":{"$ref":"#/dependencies/a"}}`,
			out: `{"$schema":"https://json-schema.org/draft/2020-12/schema","dependentSchemas":{"a":{"type":"object"}},"not":{"$ref":"#/dependentSchemas/a"}}`},

		// $ref with siblings.
		{name: "draft-07 ref siblings are dropped, definitions kept",
			in:   `{"$schema":"http://json-schema.org/draft-07/schema#","$ref":"#/definitions/A","type":"object","description":"ignored","definitions":{"A":{"type":"object","properties":{"b":{"$ref":"#/definitions/B","maxLength":3}}},"B":{"type":"string"}}}`,
			out:  `{"$schema":"https://json-schema.org/draft/2020-12/schema","$ref":"#/definitions/A","definitions":{"A":{"type":"object","properties":{"b":{"$ref":"#/definitions/B"}}},"B":{"type":"string"}}}`,
			warn: []string{"#: $ref with sibling keywords in draft-07 or earlier: the siblings are ignored, removed: type, description", "#/definitions/A/properties/b: $ref with sibling keywords in draft-07 or earlier: the siblings are ignored, removed: maxLength"}},
		{name: "draft-07 ref sibling that another ref points into is kept under $defs",
			in:   `{"$schema":"http://json-schema.org/draft-07/schema#","$ref":"#/definitions/A","properties":{"x":{"type":"string"}},"definitions":{"A":{"properties":{"y":{"$ref":"#/properties/x"}}}}}`,
			out:  `{"$schema":"https://json-schema.org/draft/2020-12/schema","$ref":"#/definitions/A","definitions":{"A":{"properties":{"y":{"$ref":"#/$defs/mcpbind-ref-target"}}}},"$defs":{"mcpbind-ref-target":{"type":"string"}}}`,
			warn: []string{"#: $ref with sibling keywords", "#/properties/x: a $ref points here, inside a removed sibling of $ref; kept as $defs/mcpbind-ref-target"}},
		{name: "2020-12 ref siblings move into allOf",
			in:  `{"title":"T","$ref":"#/$defs/Base","description":"d","type":"object","properties":{"x":{"type":"string"}},"required":["x"],"default":{},"x-vendor":1,"$defs":{"Base":{"type":"object"}}}`,
			out: `{"title":"T","allOf":[{"$ref":"#/$defs/Base"},{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}],"description":"d","default":{},"x-vendor":1,"$defs":{"Base":{"type":"object"}}}`},
		{name: "2019-09 ref siblings move into allOf, existing allOf nested",
			in:  `{"$schema":"https://json-schema.org/draft/2019-09/schema","$ref":"#/$defs/A","allOf":[{"minProperties":1}],"$defs":{"A":{}}}`,
			out: `{"$schema":"https://json-schema.org/draft/2020-12/schema","allOf":[{"$ref":"#/$defs/A"},{"allOf":[{"minProperties":1}]}],"$defs":{"A":{}}}`},
		{name: "refs into moved siblings follow them",
			in:  `{"$ref":"#/$defs/A","properties":{"x":{"type":"string"},"y":{"$ref":"#/properties/x"}},"$defs":{"A":{"$ref":"#/properties/y"}}}`,
			out: `{"allOf":[{"$ref":"#/$defs/A"},{"properties":{"x":{"type":"string"},"y":{"$ref":"#/allOf/1/properties/x"}}}],"$defs":{"A":{"$ref":"#/allOf/1/properties/y"}}}`},
		{name: "unevaluatedProperties stays beside the new allOf",
			in:  `{"type":"object","$ref":"#/$defs/bar","properties":{"foo":{"type":"string"}},"unevaluatedProperties":false,"$defs":{"bar":{"properties":{"bar":{}}}}}`,
			out: `{"allOf":[{"$ref":"#/$defs/bar"},{"type":"object","properties":{"foo":{"type":"string"}}}],"unevaluatedProperties":false,"$defs":{"bar":{"properties":{"bar":{}}}}}`},
		{name: "nested ref with siblings",
			in:  `{"type":"object","properties":{"a":{"$ref":"#/$defs/S","maxLength":5,"description":"A."}},"$defs":{"S":{"type":"string"}}}`,
			out: `{"type":"object","properties":{"a":{"allOf":[{"$ref":"#/$defs/S"},{"maxLength":5}],"description":"A."}},"$defs":{"S":{"type":"string"}}}`},
		{name: "refs relative to an embedded $id follow moves inside it",
			in:  `{"$id":"http://example.com/root.json","$defs":{"sub":{"$schema":"http://json-schema.org/draft-07/schema#","$id":"sub.json","type":"array","items":[{"type":"string"}],"definitions":{"p":{"$ref":"#/items/0"}}}},"properties":{"a":{"$ref":"sub.json#/items/0"},"b":{"$ref":"http://example.com/sub.json#/definitions/p"}}}`,
			out: `{"$id":"http://example.com/root.json","$defs":{"sub":{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"sub.json","type":"array","prefixItems":[{"type":"string"}],"definitions":{"p":{"$ref":"#/prefixItems/0"}}}},"properties":{"a":{"$ref":"sub.json#/prefixItems/0"},"b":{"$ref":"http://example.com/sub.json#/definitions/p"}}}`},
		{name: "percent-encoded ref untouched unless moved",
			in:  `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"a%b":{"type":"array","items":[{}]}},"properties":{"x":{"$ref":"#/definitions/a%25b"},"y":{"$ref":"#/definitions/a%25b/items/0"}}}`,
			out: `{"$schema":"https://json-schema.org/draft/2020-12/schema","definitions":{"a%b":{"type":"array","prefixItems":[{}]}},"properties":{"x":{"$ref":"#/definitions/a%25b"},"y":{"$ref":"#/definitions/a%25b/prefixItems/0"}}}`},
		{name: "remote refs are left alone",
			in:  `{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"$ref":"http://example.com/other.json#/items/0"}]}`,
			out: `{"$schema":"https://json-schema.org/draft/2020-12/schema","prefixItems":[{"$ref":"http://example.com/other.json#/items/0"}]}`},

		// The lightweight "direct map" shape and its conventions.
		{name: "direct map",
			in:   `{"q":{"type":"string","required":true,"minLength":3,"maxLength":64},"limit":{"type":"integer","minimum":1,"maximum":100},"tags":{"type":"string","isArray":true,"minLength":2,"description":"Tags."},"scores":{"type":"float","isArray":true,"minimum":0,"maximum":1},"mode":{"type":"enum","values":["fast","accurate"],"required":true}}`,
			out:  `{"type":"object","properties":{"q":{"type":"string","minLength":3,"maxLength":64},"limit":{"type":"integer","minimum":1,"maximum":100},"tags":{"type":"array","description":"Tags.","items":{"type":"string","minLength":2}},"scores":{"type":"array","items":{"type":"number","minimum":0,"maximum":1}},"mode":{"enum":["fast","accurate"]}},"required":["q","mode"]}`,
			warn: []string{`#: the schema is the lightweight "direct map" shape`}},
		{name: "direct map without markers",
			in:   `{"name":{"type":"string"},"count":{"type":"integer"}}`,
			out:  `{"type":"object","properties":{"name":{"type":"string"},"count":{"type":"integer"}}}`,
			warn: []string{`direct map`}},
		{name: "direct map with a property named like a keyword",
			in:   `{"type":{"type":"enum","enum":["a","b"]},"items":{"type":"float"}}`,
			out:  `{"type":"object","properties":{"type":{"enum":["a","b"]},"items":{"type":"number"}}}`,
			warn: []string{`direct map`}},
		{name: "a keyword holding a schema is not a direct map", in: `{"not":{"type":"string"},"items":{"type":"integer"}}`},
		{name: "JSON-Schema-like lightweight shape",
			in:  `{"properties":{"levels":{"type":"array","items":{"type":"integer"},"enum":[1,2,3]},"names":{"type":"string","isArray":true,"minLength":1},"t":{"type":"float","required":true}},"required":["names"]}`,
			out: `{"properties":{"levels":{"type":"array","items":{"type":"integer","enum":[1,2,3]}},"names":{"type":"array","items":{"type":"string","minLength":1}},"t":{"type":"number"}},"required":["names","t"]}`,
			warn: []string{
				"#/properties/levels: an enum of scalars on an array applies to its items",
				`#/properties/names: "isArray" is not JSON Schema`,
				`#/properties/t: a boolean "required" in a property is not JSON Schema`,
				`#/properties/t: "type": "float" is not JSON Schema`,
			}},
		{name: "isArray with items",
			in:   `{"properties":{"a":{"type":"string","isArray":true,"items":{"type":"integer"}}}}`,
			out:  `{"properties":{"a":{"type":"array","items":{"type":"integer"}}}}`,
			warn: []string{`"isArray" is not JSON Schema`}},
		{name: "an enum of arrays on an array stays", in: `{"type":"array","enum":[[1],[2]]}`},
	}
}

func TestNormalize(t *testing.T) {
	for _, c := range normalizeCases() {
		t.Run(c.name, func(t *testing.T) {
			out, warns, err := Normalize(json.RawMessage(c.in))
			if err != nil {
				t.Fatal(err)
			}
			want := c.out
			if want == "" {
				want = c.in
			}
			if string(out) != want {
				t.Errorf("Normalize:\n in: %s\ngot: %s\nwant: %s", c.in, out, want)
			}
			checkWarnings(t, warns, c.warn)
		})
	}
}

func checkWarnings(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("warnings: got %d %q, want %d %q", len(got), got, len(want), want)
		return
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) {
			t.Errorf("warning %d = %q, want it to contain %q", i, got[i], want[i])
		}
	}
}

// TestNormalizeIdempotent normalizes every table input and every schema of
// the golden bundles twice: the second pass changes nothing and warns only
// about what the first warned about.
func TestNormalizeIdempotent(t *testing.T) {
	inputs := map[string]string{}
	for _, c := range normalizeCases() {
		inputs[c.name] = c.in
	}
	bundles, err := filepath.Glob(filepath.Join("..", "..", "golden", "*", "bundle.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(bundles) == 0 {
		t.Fatal("no golden bundles found")
	}
	for _, path := range bundles {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var b struct {
			Servers []struct {
				Tools []struct {
					Name                      string
					InputSchema, OutputSchema json.RawMessage
				}
			}
		}
		if err := json.Unmarshal(text, &b); err != nil {
			t.Fatal(err)
		}
		for _, s := range b.Servers {
			for _, schemas := range s.Tools {
				tool := schemas
				for kind, raw := range map[string]json.RawMessage{"inputSchema": schemas.InputSchema, "outputSchema": schemas.OutputSchema} {
					if len(raw) > 0 {
						inputs[path+" "+tool.Name+" "+kind] = string(raw)
					}
				}
			}
		}
	}
	for _, name := range slicesSorted(inputs) {
		first, w1, err := Normalize(json.RawMessage(inputs[name]))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !json.Valid(first) {
			t.Errorf("%s: output is not JSON: %s", name, first)
			continue
		}
		second, w2, err := Normalize(first)
		if err != nil {
			t.Errorf("%s: second pass: %v", name, err)
			continue
		}
		if string(second) != string(first) {
			t.Errorf("%s: not idempotent:\n first: %s\nsecond: %s", name, first, second)
		}
		for _, w := range w2 {
			if !slices.Contains(w1, w) {
				t.Errorf("%s: the second pass warns %q, the first did not", name, w)
			}
		}
	}
}

func slicesSorted(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func TestNormalizeErrors(t *testing.T) {
	for _, in := range []string{``, `{`, `{"a":1}{}`, `[1]`, `"x"`, `3`, `null`, `{"type":"string","type":"number"}`, `{"properties":{"a":{},"a":{}}}`} {
		if out, _, err := Normalize(json.RawMessage(in)); err == nil {
			t.Errorf("Normalize(%q) = %s, want an error", in, out)
		}
	}
}

// TestNormalizeKeepsBytes checks that values no rule touches keep their
// source bytes (escapes, number spellings) in a rewritten document.
func TestNormalizeKeepsBytes(t *testing.T) {
	in := `{"$schema":"http://json-schema.org/draft-07/schema#","description":"a\u00e9\/<&>","items":[{"const":1.50E+2}],"properties":{"k\u00e9y":{"default":-0.0}}}`
	want := `{"$schema":"https://json-schema.org/draft/2020-12/schema","description":"a\u00e9\/<&>","prefixItems":[{"const":1.50E+2}],"properties":{"k\u00e9y":{"default":-0.0}}}`
	out, _, err := Normalize(json.RawMessage(in))
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
}

func TestNormalizeDeepNesting(t *testing.T) {
	in := strings.Repeat(`{"not":`, maxDepth+5) + `{}` + strings.Repeat(`}`, maxDepth+5)
	if _, _, err := Normalize(json.RawMessage(in)); err == nil {
		t.Error("no error for a schema nested beyond maxDepth")
	}
}
