package tooldiff

import (
	"slices"
	"strings"
	"testing"
)

// summarize renders changes as "class code pointer" lines, sorted.
func summarize(cs []Change) []string {
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		out = append(out, string(c.Class)+" "+c.Code+" "+c.Pointer)
	}
	slices.Sort(out)
	return out
}

type schemaCase struct {
	name     string
	dir      Direction
	old, new string
	want     []string // "class code pointer", any order
}

func runSchemaCases(t *testing.T, cases []schemaCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.dir.String()+"/"+tc.name, func(t *testing.T) {
			cs, err := CompareSchema([]byte(tc.old), []byte(tc.new), tc.dir)
			if err != nil {
				t.Fatal(err)
			}
			got := summarize(cs)
			want := slices.Clone(tc.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				var msgs []string
				for _, c := range cs {
					msgs = append(msgs, "  "+string(c.Class)+" "+c.Pointer+": "+c.Message)
				}
				t.Errorf("got  %q\nwant %q\nmessages:\n%s", got, want, strings.Join(msgs, "\n"))
			}
			for _, c := range cs {
				if c.Where != InInput && c.Where != InOutput || c.Message == "" || c.Code == "" {
					t.Errorf("incomplete change %+v", c)
				}
			}
			// Comparing a schema with itself finds nothing.
			for _, s := range []string{tc.old, tc.new} {
				if same, _ := CompareSchema([]byte(s), []byte(s), tc.dir); len(same) != 0 {
					t.Errorf("%s compared with itself: %q", s, summarize(same))
				}
			}
		})
	}
}

// obj wraps properties (a JSON object body) into an object schema.
func obj(props string, extra ...string) string {
	s := `{"type":"object","properties":{` + props + `}`
	for _, e := range extra {
		s += "," + e
	}
	return s + "}"
}

func TestInputRules(t *testing.T) {
	const in = Input
	runSchemaCases(t, []schemaCase{
		{"new required property", in,
			obj(`"sql":{"type":"string"}`, `"required":["sql"]`),
			obj(`"sql":{"type":"string"},"limit":{"type":"integer"}`, `"required":["sql","limit"]`),
			[]string{"breaking property-added /properties/limit"}},
		{"new optional property", in,
			obj(`"sql":{"type":"string"}`),
			obj(`"sql":{"type":"string"},"limit":{"type":"integer"}`),
			[]string{"compatible property-added /properties/limit"}},
		{"property made required", in,
			obj(`"a":{"type":"string"}`),
			obj(`"a":{"type":"string"}`, `"required":["a"]`),
			[]string{"breaking required-narrowed /properties/a"}},
		{"property made optional", in,
			obj(`"a":{"type":"string"}`, `"required":["a"]`),
			obj(`"a":{"type":"string"}`),
			[]string{"compatible required-widened /properties/a"}},
		{"required name without a schema", in,
			`{"type":"object"}`, `{"type":"object","required":["x"]}`,
			[]string{"breaking required-narrowed /required"}},
		{"number to integer", in,
			obj(`"n":{"type":"number"}`), obj(`"n":{"type":"integer"}`),
			[]string{"breaking type-narrowed /properties/n/type"}},
		{"integer to number", in,
			obj(`"n":{"type":"integer"}`), obj(`"n":{"type":"number"}`),
			[]string{"compatible type-widened /properties/n/type"}},
		{"string|null to string", in,
			obj(`"s":{"type":["string","null"]}`), obj(`"s":{"type":"string"}`),
			[]string{"breaking type-narrowed /properties/s/type"}},
		{"string to string|null", in,
			obj(`"s":{"type":"string"}`), obj(`"s":{"type":["string","null"]}`),
			[]string{"compatible type-widened /properties/s/type"}},
		{"string to integer", in,
			obj(`"s":{"type":"string"}`), obj(`"s":{"type":"integer"}`),
			[]string{"breaking type-changed /properties/s/type"}},
		{"any to string", in,
			obj(`"s":{}`), obj(`"s":{"type":"string"}`),
			[]string{"breaking type-narrowed /properties/s/type"}},
		{"enum value removed", in,
			obj(`"c":{"type":"string","enum":["red","green","blue"]}`), obj(`"c":{"type":"string","enum":["red","green"]}`),
			[]string{"breaking enum-narrowed /properties/c/enum"}},
		{"enum value added", in,
			obj(`"c":{"type":"string","enum":["red"]}`), obj(`"c":{"type":"string","enum":["red","green"]}`),
			[]string{"compatible enum-widened /properties/c/enum"}},
		{"enum value swapped", in,
			obj(`"c":{"enum":["red","blue"]}`), obj(`"c":{"enum":["red","green"]}`),
			[]string{"breaking enum-changed /properties/c/enum"}},
		{"enum added", in,
			obj(`"c":{"type":"string"}`), obj(`"c":{"type":"string","enum":["red"]}`),
			[]string{"breaking enum-narrowed /properties/c/enum"}},
		{"const changed", in,
			obj(`"k":{"const":"a"}`), obj(`"k":{"const":"b"}`),
			[]string{"breaking enum-changed /properties/k/const"}},
		{"minimum raised", in,
			obj(`"n":{"type":"integer","minimum":0}`), obj(`"n":{"type":"integer","minimum":1}`),
			[]string{"breaking bound-narrowed /properties/n/minimum"}},
		{"minimum lowered", in,
			obj(`"n":{"type":"integer","minimum":1}`), obj(`"n":{"type":"integer","minimum":0}`),
			[]string{"compatible bound-widened /properties/n/minimum"}},
		{"minimum made exclusive", in,
			obj(`"n":{"type":"number","minimum":0}`), obj(`"n":{"type":"number","exclusiveMinimum":0}`),
			[]string{"breaking bound-narrowed /properties/n/exclusiveMinimum"}},
		{"draft-04 exclusive minimum is the same bound", in,
			obj(`"n":{"type":"number","minimum":0,"exclusiveMinimum":true}`), obj(`"n":{"type":"number","exclusiveMinimum":0}`),
			nil},
		{"maximum lowered", in,
			obj(`"n":{"type":"integer","maximum":100}`), obj(`"n":{"type":"integer","maximum":50}`),
			[]string{"breaking bound-narrowed /properties/n/maximum"}},
		{"maximum added", in,
			obj(`"n":{"type":"integer"}`), obj(`"n":{"type":"integer","maximum":50}`),
			[]string{"breaking bound-narrowed /properties/n/maximum"}},
		{"maximum removed", in,
			obj(`"n":{"type":"integer","maximum":50}`), obj(`"n":{"type":"integer"}`),
			[]string{"compatible bound-widened /properties/n/maximum"}},
		{"maxLength lowered", in,
			obj(`"s":{"type":"string","maxLength":100}`), obj(`"s":{"type":"string","maxLength":10}`),
			[]string{"breaking bound-narrowed /properties/s/maxLength"}},
		{"maxLength raised", in,
			obj(`"s":{"type":"string","maxLength":10}`), obj(`"s":{"type":"string","maxLength":100}`),
			[]string{"compatible bound-widened /properties/s/maxLength"}},
		{"minLength raised", in,
			obj(`"s":{"type":"string","minLength":1}`), obj(`"s":{"type":"string","minLength":2}`),
			[]string{"breaking bound-narrowed /properties/s/minLength"}},
		{"minLength 0 is no bound", in,
			obj(`"s":{"type":"string"}`), obj(`"s":{"type":"string","minLength":0}`),
			nil},
		{"maxItems lowered", in,
			obj(`"a":{"type":"array","maxItems":5}`), obj(`"a":{"type":"array","maxItems":4}`),
			[]string{"breaking bound-narrowed /properties/a/maxItems"}},
		{"pattern added", in,
			obj(`"s":{"type":"string"}`), obj(`"s":{"type":"string","pattern":"^[a-z]+$"}`),
			[]string{"breaking pattern-narrowed /properties/s/pattern"}},
		{"pattern changed", in,
			obj(`"s":{"type":"string","pattern":"^a"}`), obj(`"s":{"type":"string","pattern":"^b"}`),
			[]string{"breaking pattern-changed /properties/s/pattern"}},
		{"pattern removed", in,
			obj(`"s":{"type":"string","pattern":"^a"}`), obj(`"s":{"type":"string"}`),
			[]string{"compatible pattern-widened /properties/s/pattern"}},
		{"format added", in,
			obj(`"s":{"type":"string"}`), obj(`"s":{"type":"string","format":"email"}`),
			[]string{"breaking format-narrowed /properties/s/format"}},
		{"multipleOf tightened", in,
			obj(`"n":{"type":"integer","multipleOf":2}`), obj(`"n":{"type":"integer","multipleOf":4}`),
			[]string{"breaking multiple-of-narrowed /properties/n/multipleOf"}},
		{"uniqueItems", in,
			obj(`"a":{"type":"array"}`), obj(`"a":{"type":"array","uniqueItems":true}`),
			[]string{"breaking unique-items-narrowed /properties/a/uniqueItems"}},
		{"items narrowed", in,
			obj(`"a":{"type":"array","items":{"type":"number"}}`), obj(`"a":{"type":"array","items":{"type":"integer"}}`),
			[]string{"breaking type-narrowed /properties/a/items/type"}},
		{"removed property under additionalProperties false", in,
			obj(`"a":{"type":"string"},"b":{"type":"string"}`, `"additionalProperties":false`),
			obj(`"a":{"type":"string"}`, `"additionalProperties":false`),
			[]string{"breaking property-removed /properties/b"}},
		{"removed property of an open object", in,
			obj(`"a":{"type":"string"},"b":{"type":"string"}`),
			obj(`"a":{"type":"string"}`),
			[]string{"compatible property-removed /properties/b"}},
		{"object closed", in,
			obj(`"a":{"type":"string"}`), obj(`"a":{"type":"string"}`, `"additionalProperties":false`),
			[]string{"breaking additional-properties-narrowed /additionalProperties"}},
		{"object opened", in,
			obj(`"a":{"type":"string"}`, `"additionalProperties":false`), obj(`"a":{"type":"string"}`),
			[]string{"compatible additional-properties-widened /additionalProperties"}},
		{"map value narrowed", in,
			`{"type":"object","additionalProperties":{"type":"number"}}`, `{"type":"object","additionalProperties":{"type":"integer"}}`,
			[]string{"breaking type-narrowed /additionalProperties/type"}},
		{"OpenAPI nullable", in,
			obj(`"s":{"type":"string","nullable":true}`), obj(`"s":{"type":"string"}`),
			[]string{"breaking type-narrowed /properties/s/type"}},
		{"true schema to string", in,
			`true`, `{"type":"string"}`,
			[]string{"breaking type-narrowed /type"}},
		{"not changed", in,
			obj(`"s":{"type":"string","not":{"const":"a"}}`), obj(`"s":{"type":"string","not":{"const":"b"}}`),
			[]string{"breaking keyword-changed /properties/s/not"}},
		{"description", in,
			obj(`"sql":{"type":"string","description":"SQL"}`, `"description":"x"`),
			obj(`"sql":{"type":"string","description":"One SQL statement"}`, `"description":"x"`),
			[]string{"cosmetic annotation-changed /properties/sql/description"}},
		{"title, examples, default, annotations", in,
			obj(`"n":{"type":"integer","title":"N","examples":[1],"default":1,"deprecated":false}`),
			obj(`"n":{"type":"integer","title":"Count","examples":[2],"default":2,"x-ui":"slider"}`),
			[]string{
				"cosmetic annotation-changed /properties/n/title",
				"cosmetic annotation-changed /properties/n/examples",
				"cosmetic annotation-changed /properties/n/default",
				"cosmetic annotation-removed /properties/n/deprecated",
				"cosmetic annotation-added /properties/n/x-ui",
			}},
		{"property order is not a change", in,
			obj(`"a":{"type":"string"},"b":{"type":"integer"}`, `"required":["a","b"]`),
			obj(`"b":{"type":"integer"},"a":{"type":"string"}`, `"required":["b","a"]`),
			nil},
		{"1.0 and 1 are one enum value", in,
			obj(`"n":{"enum":[1,2]}`), obj(`"n":{"enum":[1.0,2]}`),
			nil},
	})
}

func TestOutputRules(t *testing.T) {
	const out = Output
	runSchemaCases(t, []schemaCase{
		{"property removed", out,
			obj(`"a":{"type":"string"},"b":{"type":"string"}`), obj(`"a":{"type":"string"}`),
			[]string{"breaking property-removed /properties/b"}},
		{"property retyped", out,
			obj(`"a":{"type":"string"}`), obj(`"a":{"type":"integer"}`),
			[]string{"breaking type-changed /properties/a/type"}},
		{"type widened", out,
			obj(`"n":{"type":"integer"}`), obj(`"n":{"type":"number"}`),
			[]string{"breaking type-widened /properties/n/type"}},
		{"now nullable", out,
			obj(`"s":{"type":"string"}`), obj(`"s":{"anyOf":[{"type":"string"},{"type":"null"}]}`),
			[]string{"breaking type-widened /properties/s/type"}},
		{"type narrowed", out,
			obj(`"n":{"type":"number"}`), obj(`"n":{"type":"integer"}`),
			[]string{"compatible type-narrowed /properties/n/type"}},
		{"enum widened", out,
			obj(`"c":{"type":"string","enum":["a"]}`), obj(`"c":{"type":"string","enum":["a","b"]}`),
			[]string{"breaking enum-widened /properties/c/enum"}},
		{"enum narrowed", out,
			obj(`"c":{"type":"string","enum":["a","b"]}`), obj(`"c":{"type":"string","enum":["a"]}`),
			[]string{"compatible enum-narrowed /properties/c/enum"}},
		{"no longer required", out,
			obj(`"a":{"type":"string"}`, `"required":["a"]`), obj(`"a":{"type":"string"}`),
			[]string{"breaking required-widened /properties/a"}},
		{"now required", out,
			obj(`"a":{"type":"string"}`), obj(`"a":{"type":"string"}`, `"required":["a"]`),
			[]string{"compatible required-narrowed /properties/a"}},
		{"new property of an open object", out,
			obj(`"a":{"type":"string"}`), obj(`"a":{"type":"string"},"b":{"type":"integer"}`, `"required":["b"]`),
			[]string{"compatible property-added /properties/b"}},
		{"new property of a closed object", out,
			obj(`"a":{"type":"string"}`, `"additionalProperties":false`),
			obj(`"a":{"type":"string"},"b":{"type":"integer"}`, `"additionalProperties":false`),
			[]string{"breaking property-added /properties/b"}},
		{"new property against typed additionalProperties", out,
			obj(`"a":{"type":"string"}`, `"additionalProperties":{"type":"string"}`),
			obj(`"a":{"type":"string"},"b":{"type":"integer"}`, `"additionalProperties":{"type":"string"}`),
			[]string{"compatible property-added /properties/b", "breaking type-changed /properties/b/type"}},
		{"object opened", out,
			obj(`"a":{"type":"string"}`, `"additionalProperties":false`), obj(`"a":{"type":"string"}`),
			[]string{"breaking additional-properties-widened /additionalProperties"}},
		{"maximum raised", out,
			obj(`"n":{"type":"integer","maximum":10}`), obj(`"n":{"type":"integer","maximum":20}`),
			[]string{"breaking bound-widened /properties/n/maximum"}},
		{"maximum lowered", out,
			obj(`"n":{"type":"integer","maximum":10}`), obj(`"n":{"type":"integer","maximum":5}`),
			[]string{"compatible bound-narrowed /properties/n/maximum"}},
		{"description", out,
			`{"type":"integer","description":"a"}`, `{"type":"integer","description":"b"}`,
			[]string{"cosmetic annotation-changed /description"}},
	})
}

// refs: $ref is compared after resolution, with its sibling keywords.
const refDoc = `{"type":"object","properties":{"home":{"$ref":"#/$defs/Address"},"work":{"$ref":"#/$defs/Address"}},
 "$defs":{"Address":{"type":"object","properties":{"zip":{"type":"string","maxLength":10}},"required":["zip"]}}}`

func TestRefsAfterResolution(t *testing.T) {
	inline := `{"type":"object","properties":{
	  "home":{"type":"object","properties":{"zip":{"type":"string","maxLength":10}},"required":["zip"]},
	  "work":{"type":"object","properties":{"zip":{"type":"string","maxLength":10}},"required":["zip"]}}}`
	runSchemaCases(t, []schemaCase{
		{"$ref and inline are the same schema", Input, refDoc, inline, nil},
		{"inline and $ref are the same schema", Output, inline, refDoc, nil},
		{"$defs renamed", Input, refDoc, strings.ReplaceAll(refDoc, "Address", "Addr"), nil},
		{"definitions and $defs", Input, refDoc,
			strings.ReplaceAll(strings.ReplaceAll(refDoc, `"$defs"`, `"definitions"`), "#/$defs/", "#/definitions/"), nil},
		{"change inside a $ref target, reported at every use", Input, refDoc, strings.Replace(refDoc, `"maxLength":10`, `"maxLength":5`, 1),
			[]string{"breaking bound-narrowed /properties/home/properties/zip/maxLength", "breaking bound-narrowed /properties/work/properties/zip/maxLength"}},
		{"ref to an anchor", Input,
			`{"properties":{"a":{"$ref":"#num"}},"$defs":{"n":{"$anchor":"num","type":"number"}}}`,
			`{"properties":{"a":{"type":"integer"}}}`,
			[]string{"breaking type-narrowed /properties/a/type"}},
		{"sibling keywords of a $ref are kept", Input,
			`{"properties":{"a":{"$ref":"#/$defs/S"}},"$defs":{"S":{"type":"string"}}}`,
			`{"properties":{"a":{"$ref":"#/$defs/S","maxLength":3}},"$defs":{"S":{"type":"string"}}}`,
			[]string{"breaking bound-narrowed /properties/a/maxLength"}},
		{"allOf of one $ref, pydantic style", Output,
			`{"properties":{"a":{"allOf":[{"$ref":"#/$defs/E"}],"description":"x"}},"$defs":{"E":{"enum":["a","b"]}}}`,
			`{"properties":{"a":{"$ref":"#/$defs/E","description":"x"}},"$defs":{"E":{"enum":["a","b","c"]}}}`,
			[]string{"breaking enum-widened /properties/a/enum"}},
		{"allOf members merged", Input,
			`{"allOf":[{"type":"object","properties":{"a":{"type":"string"}}},{"required":["a"]}]}`,
			`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`,
			nil},
		{"a $ref resolved against an embedded resource's $id", Input,
			`{"properties":{"a":{"$ref":"https://x.example/item.json"}},"$defs":{"item":{"$id":"https://x.example/item.json","type":"number"}}}`,
			`{"properties":{"a":{"$ref":"https://x.example/item.json"}},"$defs":{"item":{"$id":"https://x.example/item.json","type":"integer"}}}`,
			[]string{"breaking type-narrowed /properties/a/type"}},
		{"a $ref relative to an embedded resource's $id", Input,
			`{"properties":{"a":{"$ref":"#/$defs/item"}},"$defs":{"item":{"$id":"https://x.example/item.json","properties":{"b":{"$ref":"#/$defs/n"}},"$defs":{"n":{"type":"number"}}}}}`,
			`{"properties":{"a":{"$ref":"#/$defs/item"}},"$defs":{"item":{"$id":"https://x.example/item.json","properties":{"b":{"$ref":"#/$defs/n"}},"$defs":{"n":{"type":"integer"}}}}}`,
			[]string{"breaking type-narrowed /properties/a/properties/b/type"}},
		{"a $ref that cannot be resolved is compared as text", Input,
			`{"properties":{"a":{"$ref":"other.json#/A"}}}`, `{"properties":{"a":{"$ref":"other.json#/B"}}}`,
			[]string{"breaking keyword-changed /properties/a/$ref"}},
	})
}

const shapes = `{"type":"object","properties":{"shape":{"oneOf":[
  {"type":"object","properties":{"kind":{"const":"circle"},"radius":{"type":"number"}},"required":["kind","radius"]},
  {"type":"object","properties":{"kind":{"const":"square"},"side":{"type":"number"}},"required":["kind","side"]}
]}}}`

func TestUnionsMatchedUp(t *testing.T) {
	reordered := `{"type":"object","properties":{"shape":{"oneOf":[
  {"type":"object","properties":{"kind":{"const":"square"},"side":{"type":"number"}},"required":["kind","side"]},
  {"type":"object","properties":{"kind":{"const":"circle"},"radius":{"type":"number"}},"required":["kind","radius"]}
]}}}`
	withTriangle := strings.Replace(shapes, `]}}}`, `,
  {"type":"object","properties":{"kind":{"const":"triangle"},"base":{"type":"number"}},"required":["kind","base"]}]}}}`, 1)
	intRadius := strings.Replace(shapes, `"radius":{"type":"number"}`, `"radius":{"type":"integer"}`, 1)
	viaRefs := `{"type":"object","properties":{"shape":{"anyOf":[{"$ref":"#/$defs/Square"},{"$ref":"#/$defs/Circle"}]}},
  "$defs":{"Circle":{"type":"object","properties":{"kind":{"const":"circle"},"radius":{"type":"number"}},"required":["kind","radius"]},
           "Square":{"type":"object","properties":{"kind":{"const":"square"},"side":{"type":"number"}},"required":["kind","side"]}}}`
	runSchemaCases(t, []schemaCase{
		{"variants reordered", Input, shapes, reordered, nil},
		{"oneOf of inline variants and anyOf of $refs", Input, shapes, viaRefs, nil},
		{"variant added, input", Input, shapes, withTriangle,
			[]string{"compatible alternative-widened /properties/shape/oneOf/2"}},
		{"variant added, output", Output, shapes, withTriangle,
			[]string{"breaking alternative-widened /properties/shape/oneOf/2"}},
		{"variant removed, input", Input, withTriangle, shapes,
			[]string{"breaking alternative-narrowed /properties/shape/oneOf/2"}},
		{"variant removed, output", Output, withTriangle, shapes,
			[]string{"compatible alternative-narrowed /properties/shape/oneOf/2"}},
		{"change inside a variant, compared in place", Input, shapes, intRadius,
			[]string{"breaking type-narrowed /properties/shape/oneOf/0/properties/radius/type"}},
		{"change inside a reordered $ref variant", Output, shapes, strings.Replace(viaRefs, `"radius":{"type":"number"}`, `"radius":{"type":"integer"}`, 1),
			[]string{"compatible type-narrowed /properties/shape/anyOf/1/properties/radius/type"}},
		{"type array and anyOf of types are one schema", Input,
			obj(`"v":{"type":["string","integer","null"]}`),
			obj(`"v":{"anyOf":[{"type":"null"},{"type":"integer"},{"type":"string"}]}`),
			nil},
		{"union variant gains a type", Input,
			obj(`"v":{"anyOf":[{"type":"string"},{"type":"integer"}]}`),
			obj(`"v":{"anyOf":[{"type":"string"},{"type":"integer"},{"type":"boolean"}]}`),
			[]string{"compatible type-widened /properties/v/type"}},
		{"untyped variants matched by shared properties", Output,
			obj(`"v":{"anyOf":[{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}}},{"type":"object","properties":{"x":{"type":"string"},"y":{"type":"string"}}}]}`),
			obj(`"v":{"anyOf":[{"type":"object","properties":{"x":{"type":"string"},"y":{"type":"integer"}}},{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}}}]}`),
			[]string{"breaking type-changed /properties/v/anyOf/0/properties/y/type"}},
		{"annotations of a variant", Input,
			obj(`"v":{"anyOf":[{"type":"string","description":"text"},{"type":"null"}]}`),
			obj(`"v":{"anyOf":[{"type":"null"},{"type":"string","description":"the text"}]}`),
			[]string{"cosmetic annotation-changed /properties/v/anyOf/1/description"}},
		{"enum-only schema and typed enum", Input,
			obj(`"c":{"enum":["a","b",null]}`), obj(`"c":{"type":["string","null"],"enum":["a","b",null]}`), nil},
	})
}

const tree = `{"$ref":"#/$defs/Node","$defs":{"Node":{"type":"object","properties":{
  "name":{"type":"string"},
  "children":{"type":"array","items":{"$ref":"#/$defs/Node"}}},"required":["name"]}}}`

func TestRecursion(t *testing.T) {
	mutual := `{"$ref":"#/$defs/A","$defs":{
	  "A":{"type":"object","properties":{"b":{"$ref":"#/$defs/B"},"name":{"type":"string"}}},
	  "B":{"type":"object","properties":{"a":{"$ref":"#/$defs/A"},"n":{"type":"number"}}}}}`
	runSchemaCases(t, []schemaCase{
		{"recursive schema against itself, restructured", Input, tree, strings.ReplaceAll(tree, "Node", "TreeNode"), nil},
		{"change in a recursive schema", Input, tree, strings.Replace(tree, `"required":["name"]`, `"required":["name","children"]`, 1),
			[]string{"breaking required-narrowed /properties/children"}},
		{"new property in a recursive schema", Output, tree, strings.Replace(tree, `"name":{"type":"string"},`, `"name":{"type":"string"},"size":{"type":"integer"},`, 1),
			[]string{"compatible property-added /properties/size"}},
		{"mutual recursion", Input, mutual, strings.Replace(mutual, `"n":{"type":"number"}`, `"n":{"type":"integer"}`, 1),
			[]string{"breaking type-narrowed /properties/b/properties/n/type"}},
		{"root self reference", Output, `{"type":"object","properties":{"next":{"$ref":"#"}}}`, `{"type":"object","properties":{"next":{"$ref":"#"},"v":{"type":"string"}}}`,
			[]string{"compatible property-added /properties/v"}},
		{"$ref cycle without content", Input, `{"$ref":"#/$defs/A","$defs":{"A":{"$ref":"#/$defs/B"},"B":{"$ref":"#/$defs/A"}}}`, `{"type":"string"}`,
			[]string{"breaking type-narrowed /type"}},
	})
}

func TestCompareSchemaRejectsBadJSON(t *testing.T) {
	if _, err := CompareSchema([]byte(`{`), []byte(`{}`), Input); err == nil {
		t.Error("no error for truncated JSON")
	}
	if _, err := CompareSchema([]byte(`{}`), []byte(`{} x`), Input); err == nil {
		t.Error("no error for trailing data")
	}
}

// TestContainsBounds: minContains and maxContains count only beside
// contains (JSON Schema 2020-12, validation 6.4.4 and 6.4.5): without it on
// either side a change of them means nothing.
func TestContainsBounds(t *testing.T) {
	runSchemaCases(t, []schemaCase{
		{"minContains without contains", Input, `{"type":"array","minContains":1}`, `{"type":"array","minContains":3}`, nil},
		{"maxContains without contains", Input, `{"type":"array","maxContains":5}`, `{"type":"array","maxContains":2}`, nil},
		{"minContains raised beside contains", Input, `{"type":"array","contains":{"type":"string"},"minContains":1}`,
			`{"type":"array","contains":{"type":"string"},"minContains":3}`, []string{"breaking bound-narrowed /minContains"}},
	})
}
