package ir

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/bundle"
)

func server(t *testing.T, tools ...string) *bundle.Server {
	t.Helper()
	s := &bundle.Server{ID: "s", ProtocolVersion: "2025-06-18"}
	for _, raw := range tools {
		tool, err := bundle.NewTool(json.RawMessage(raw))
		if err != nil {
			t.Fatal(err)
		}
		s.Tools = append(s.Tools, tool)
	}
	return s
}

func build(t *testing.T, tools ...string) *Package {
	t.Helper()
	p, err := BuildServer(server(t, tools...), "s", DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestExported(t *testing.T) {
	n := NewNamer(DefaultInitialisms())
	for in, want := range map[string]string{
		"read_note":   "ReadNote",
		"read-note":   "ReadNote",
		"userId":      "UserID",
		"user_id":     "UserID",
		"HTTPServer":  "HTTPServer",
		"row_count":   "RowCount",
		"sql":         "SQL",
		"2fa":         "X2Fa",
		"名前":          "X名前",
		"type":        "Type",
		"$ref":        "Ref",
		"":            "",
		"a.b.c":       "ABC",
		"get-env":     "GetEnv",
		"listURLs":    "ListURLs",
		"Äpfel":       "Äpfel",
		"__private__": "Private",
	} {
		if got := n.Exported(in); got != want {
			t.Errorf("Exported(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPackageName(t *testing.T) {
	for in, want := range map[string]string{
		"sqlite-explorer": "sqliteexplorer",
		"Everything":      "everything",
		"9lives":          "mcp9lives",
		"type":            "mcptype",
		"---":             "mcpserver",
	} {
		if got := PackageName(in); got != want {
			t.Errorf("PackageName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCollidingNamesAreSuffixedInOrder(t *testing.T) {
	p := build(t,
		`{"name":"read-note","inputSchema":{"type":"object"}}`,
		`{"name":"read_note","inputSchema":{"type":"object","properties":{"foo-bar":{"type":"string"},"foo_bar":{"type":"number"}}}}`)
	if p.Tools[0].Method != "ReadNote" || p.Tools[1].Method != "ReadNote2" {
		t.Fatalf("methods %q, %q", p.Tools[0].Method, p.Tools[1].Method)
	}
	f := p.Tools[1].Args.Fields
	if f[0].Name != "FooBar" || f[1].Name != "FooBar2" || f[0].JSONName != "foo-bar" || f[1].JSONName != "foo_bar" {
		t.Fatalf("fields %+v %+v", f[0], f[1])
	}
}

func TestNoInputPropertiesMeansNoArgs(t *testing.T) {
	p := build(t, `{"name":"a","inputSchema":{"type":"object","properties":{}}}`)
	if p.Tools[0].Args != nil {
		t.Fatalf("args = %+v, want none", p.Tools[0].Args)
	}
	p = build(t, `{"name":"a","inputSchema":{"type":"object","additionalProperties":{"type":"integer"}}}`)
	if a := p.Tools[0].Args; a == nil || a.Kind != KindMap || a.Elem.Kind != KindInt || a.Name != "AArgs" {
		t.Fatalf("args = %+v, want named map of int64", a)
	}
}

func TestFieldPointersAndTags(t *testing.T) {
	p := build(t, `{"name":"a","inputSchema":{"type":"object","properties":{
		"req":{"type":"string"},
		"opt":{"type":"integer"},
		"reqNull":{"type":["string","null"]},
		"optList":{"type":"array","items":{"type":"string"}},
		"any":{},
		"optNull":{"type":["integer","null"]}
	},"required":["req","reqNull"]}}`)
	want := map[string]string{
		"Req":     "string `json:\"req\"`",
		"Opt":     "*int64 `json:\"opt,omitzero\"`",
		"ReqNull": "*string `json:\"reqNull\"`",
		"OptList": "[]string `json:\"optList,omitzero\"`",
		"Any":     "json.RawMessage `json:\"any,omitzero\"`",
		"OptNull": "composition.Nullable[int64] `json:\"optNull,omitzero\"`",
	}
	for _, f := range p.Tools[0].Args.Fields {
		if got := f.GoType() + " " + f.Tag(); got != want[f.Name] {
			t.Errorf("%s: %s, want %s", f.Name, got, want[f.Name])
		}
	}
}

// TestEnvelopeRecognition covers the envelope rules (SEP-2106) for when an advertised
// outputSchema is a {"result": S} wrapper.
func TestEnvelopeRecognition(t *testing.T) {
	for _, tc := range []struct {
		name, schema string
		wrapped      bool
		result       string
		out          Output
	}{
		{"array wrapped", `{"type":"object","properties":{"result":{"type":"array","items":{"type":"string"}}},"required":["result"]}`,
			true, "[]string", Output{}},
		{"integer wrapped", `{"type":"object","properties":{"result":{"type":"integer"}},"required":["result"]}`,
			true, "int64", Output{}},
		{"nullable object wrapped", `{"type":"object","properties":{"result":{"type":["object","null"],"additionalProperties":true}},"required":["result"]}`,
			true, "map[string]json.RawMessage", Output{CanBeObject: true}},
		{"plain object inside is natural", `{"type":"object","properties":{"result":{"type":"object","properties":{"a":{"type":"string"}}}},"required":["result"]}`,
			false, "*AResult", Output{PlainObject: true, CanBeObject: true, HasResultProperty: true}},
		{"result not required is natural", `{"type":"object","properties":{"result":{"type":"integer"}}}`,
			false, "*AResult", Output{PlainObject: true, CanBeObject: true, HasResultProperty: true}},
		{"fastmcp marks it", `{"type":"object","properties":{"result":{"type":"string"}},"required":["result"],"x-fastmcp-wrap-result":true}`,
			true, "string", Output{AlwaysWraps: true}},
		{"natural array", `{"type":"array","items":{"type":"integer"}}`, false, "[]int64", Output{}},
		{"natural nullable object", `{"type":["object","null"],"properties":{"id":{"type":"integer"}}}`, false, "*AResult", Output{CanBeObject: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := build(t, `{"name":"a","inputSchema":{"type":"object"},"outputSchema":`+tc.schema+`}`)
			tool := p.Tools[0]
			if tool.Wrapped != tc.wrapped || tool.ResultGoType() != tc.result || tool.Output != tc.out {
				t.Fatalf("wrapped=%v result=%s output=%+v; want %v %s %+v", tool.Wrapped, tool.ResultGoType(), tool.Output, tc.wrapped, tc.result, tc.out)
			}
		})
	}
}

func TestResultTypeName(t *testing.T) {
	p := build(t,
		`{"name":"q","inputSchema":{"type":"object"},"annotations":{"pmcp:outputTypeName":"QueryResult"},"outputSchema":{"type":"object","title":"Ignored","properties":{"a":{"type":"string"}}}}`,
		`{"name":"r","inputSchema":{"type":"object"},"_meta":{"pmcp:outputTypeName":"Rows"},"outputSchema":{"type":"object","properties":{"a":{"type":"string"}}}}`,
		`{"name":"s","inputSchema":{"type":"object"},"outputSchema":{"type":"object","title":"Weather report","properties":{"a":{"type":"string"}}}}`,
		`{"name":"t","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"a":{"type":"string"}}}}`)
	var got []string
	for _, tool := range p.Tools {
		got = append(got, tool.Result.Name)
	}
	if strings.Join(got, ",") != "QueryResult,Rows,WeatherReport,TResult" {
		t.Fatalf("result names %v", got)
	}
}

func TestEnumsKeepCaseDistinctValues(t *testing.T) {
	p := build(t, `{"name":"a","inputSchema":{"type":"object","properties":{"c":{"enum":["a","A"]},"n":{"enum":[1,2,-3]}}}}`)
	c, n := p.Tools[0].Args.Fields[0].Type, p.Tools[0].Args.Fields[1].Type
	if c.Kind != KindEnum || len(c.Enum.Values) != 2 || c.Enum.Values[0].Const == c.Enum.Values[1].Const {
		t.Fatalf("string enum %+v", c.Enum)
	}
	if n.Enum.Base != KindInt || n.Enum.Values[2].Const != "NMinus3" || n.Enum.Values[2].Literal != "-3" {
		t.Fatalf("int enum %+v", n.Enum)
	}
}

func TestUnions(t *testing.T) {
	p := build(t, `{"name":"a","inputSchema":{"type":"object","properties":{
		"tagged":{"oneOf":[
			{"type":"object","properties":{"kind":{"const":"circle"},"r":{"type":"number"}},"required":["kind"]},
			{"type":"object","properties":{"kind":{"enum":["square"]},"side":{"type":"number"}},"required":["kind"]}]},
		"kinds":{"type":["boolean","string"]},
		"nullable":{"anyOf":[{"type":"string"},{"type":"null"}]},
		"untellable":{"anyOf":[{"type":"object","properties":{"a":{"type":"string"}}},{"type":"object","properties":{"b":{"type":"string"}}}]}
	}}}`)
	f := p.Tools[0].Args.Fields
	if u := f[0].Type; u.Kind != KindUnion || u.Union.By != ByTag || u.Union.Tag != "kind" || len(u.Union.Variants) != 2 ||
		u.Union.Variants[0].TagValue != `"circle"` || len(u.Union.Variants[0].Type.Fields) != 1 {
		t.Fatalf("tagged union %+v", f[0].Type.Union)
	}
	if u := f[1].Type; u.Kind != KindUnion || u.Union.By != ByJSONKind || u.Union.Variants[0].JSONKind != "boolean" {
		t.Fatalf("kind union %+v", f[1].Type)
	}
	if f[2].Type.Kind != KindString || !f[2].Nullable || f[2].Wrap != WrapNullable {
		t.Fatalf("nullable string %+v", f[2])
	}
	if f[3].Type.Kind != KindRaw || f[3].Type.RawReason == "" || !strings.Contains(strings.Join(f[3].Doc, " "), "raw JSON") {
		t.Fatalf("untellable union should be raw JSON with a reason: %+v", f[3])
	}
	for _, typ := range p.Types {
		if strings.HasSuffix(typ.Name, "Kind") {
			t.Errorf("the tag property of a tagged union got its own type %s", typ.Name)
		}
	}
}

func TestRefsAndRecursion(t *testing.T) {
	p := build(t, `{"name":"a","inputSchema":{"type":"object","properties":{
		"home":{"$ref":"#/$defs/Address"},
		"work":{"$ref":"#/$defs/Address"},
		"tree":{"$ref":"#/definitions/node"}
	},"$defs":{"Address":{"type":"object","properties":{"street":{"type":"string"}}}},
	"definitions":{"node":{"type":"object","properties":{"children":{"type":"array","items":{"$ref":"#/definitions/node"}}}}}}}`)
	f := p.Tools[0].Args.Fields
	if f[0].Type != f[1].Type || f[0].Type.Name != "Address" {
		t.Fatalf("$ref to the same $defs entry must give one type named Address: %s %s", f[0].Type.Name, f[1].Type.Name)
	}
	node := f[2].Type
	if node.Name != "Node" || node.Fields[0].Type.Elem != node {
		t.Fatalf("recursive definition not typed as a recursive struct: %+v", node)
	}
}

func TestExternalRefIsAnError(t *testing.T) {
	_, err := BuildServer(server(t, `{"name":"a","inputSchema":{"type":"object","properties":{"x":{"$ref":"https://example.com/s.json"}}}}`), "s", DefaultConfig())
	if err == nil || !strings.Contains(err.Error(), `tool "a", inputSchema#/properties/x`) || !strings.Contains(err.Error(), "never fetches") {
		t.Fatalf("err = %v", err)
	}
}

func TestPropertyOrderIsFieldOrder(t *testing.T) {
	p := build(t, `{"name":"a","inputSchema":{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"string"},"mid":{"type":"string"}}}}`)
	var names []string
	for _, f := range p.Tools[0].Args.Fields {
		names = append(names, f.JSONName)
	}
	if strings.Join(names, ",") != "zeta,alpha,mid" {
		t.Fatalf("order %v", names)
	}
}

func TestNoPropertiesAndAdditionalPropertiesFalseMeansNoArgs(t *testing.T) {
	p := build(t, `{"name":"a","inputSchema":{"type":"object","additionalProperties":false}}`)
	if p.Tools[0].Args != nil {
		t.Fatalf("args = %+v, want none", p.Tools[0].Args)
	}
}

func TestAllOfMergesObjects(t *testing.T) {
	p := build(t, `{"name":"a","inputSchema":{"type":"object","properties":{
		"pet":{"allOf":[{"$ref":"#/$defs/base"},{"type":"object","properties":{"bark":{"type":"boolean"}},"required":["bark"]}]},
		"code":{"allOf":[{"type":"string"},{"minLength":2}]}
	},"$defs":{"base":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}}`)
	pet := p.Tools[0].Args.Fields[0].Type
	if pet.Kind != KindStruct || len(pet.Fields) != 2 || pet.Fields[0].JSONName != "name" || pet.Fields[1].JSONName != "bark" ||
		strings.Join(pet.Required, ",") != "name,bark" {
		t.Fatalf("allOf of objects: %+v", pet)
	}
	if code := p.Tools[0].Args.Fields[1].Type; code.Kind != KindString {
		t.Fatalf("allOf of string constraints: %+v", code)
	}
}

func TestRefsByAnchorAndID(t *testing.T) {
	p := build(t, `{"name":"a","inputSchema":{"$id":"https://example.com/root.json","type":"object","properties":{
		"byAnchor":{"$ref":"#addr"},
		"byID":{"$ref":"item.json"},
		"byIDPointer":{"$ref":"item.json#/properties/n"},
		"escaped":{"$ref":"#/$defs/a~1b%25c"}
	},"$defs":{
		"address":{"$anchor":"addr","type":"object","properties":{"street":{"type":"string"}}},
		"item":{"$id":"item.json","type":"object","properties":{"n":{"type":"integer"}}},
		"a/b%c":{"type":"boolean"}
	}}}`)
	f := p.Tools[0].Args.Fields
	if f[0].Type.Kind != KindStruct || f[0].Type.Fields[0].JSONName != "street" {
		t.Fatalf("$anchor ref: %+v", f[0].Type)
	}
	if f[1].Type.Kind != KindStruct || f[1].Type.Fields[0].JSONName != "n" {
		t.Fatalf("$id ref: %+v", f[1].Type)
	}
	if f[2].Type.Kind != KindInt {
		t.Fatalf("$id + pointer ref: %+v", f[2].Type)
	}
	if f[3].Type.Kind != KindBool {
		t.Fatalf("escaped pointer ref: %+v", f[3].Type)
	}
}

// TestEnvelopeEvidenceOverridesShape: when export probed both eras, the
// recorded evidence decides. A legacy-era schema that looks like an envelope
// by shape but was the same at 2026-07-28 is natural; one recorded as
// always wrapping sets AlwaysWraps.
func TestEnvelopeEvidenceOverridesShape(t *testing.T) {
	s := server(t,
		`{"name":"looks_wrapped","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"result":{"type":"array","items":{"type":"string"}}},"required":["result"]}}`,
		`{"name":"python","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"result":{"type":"integer"}},"required":["result"]}}`)
	s.Extensions = json.RawMessage(`{"tools":{
		"looks_wrapped":{"envelope":{"alwaysWraps":false,"legacyWraps":false,"probedVersions":["2025-06-18","2026-07-28"]}},
		"python":{"envelope":{"alwaysWraps":true,"legacyWraps":true,"probedVersions":["2025-06-18","2026-07-28"]}}}}`)
	p, err := BuildServer(s, "s", DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if lw := p.Tools[0]; lw.Wrapped || lw.ResultGoType() != "*LooksWrappedResult" || !lw.Output.HasResultProperty {
		t.Errorf("looks_wrapped: wrapped=%v result=%s output=%+v; evidence says it is natural", lw.Wrapped, lw.ResultGoType(), lw.Output)
	}
	if py := p.Tools[1]; !py.Wrapped || py.ResultGoType() != "int64" || !py.Output.AlwaysWraps {
		t.Errorf("python: wrapped=%v result=%s output=%+v", py.Wrapped, py.ResultGoType(), py.Output)
	}
}

func TestAllOfContradictoryTypesIsAnError(t *testing.T) {
	_, err := BuildServer(server(t, `{"name":"a","inputSchema":{"type":"object","properties":{"x":{"allOf":[{"type":"string"},{"type":["integer","null"]}]}}}}`), "s", DefaultConfig())
	if err == nil || !strings.Contains(err.Error(), "inputSchema#/properties/x") || !strings.Contains(err.Error(), "contradict") {
		t.Fatalf("err = %v", err)
	}
	if _, err := BuildServer(server(t, `{"name":"a","inputSchema":{"type":"object","properties":{"x":{"allOf":[{"type":"number"},{"type":"integer"}]}}}}`), "s", DefaultConfig()); err != nil {
		t.Fatalf("number and integer agree on integer: %v", err)
	}
}

func TestUnionByUniqueRequiredProperty(t *testing.T) {
	p := build(t, `{"name":"a","inputSchema":{"type":"object","properties":{"src":{"oneOf":[
		{"type":"object","properties":{"url":{"type":"string"},"headers":{"type":"object"}},"required":["url"]},
		{"type":"object","title":"Local file","properties":{"path":{"type":"string"}},"required":["path"]}]}}}}`)
	u := p.Tools[0].Args.Fields[0].Type
	if u.Kind != KindUnion || u.Union.By != ByRequired || u.Union.Variants[0].UniqueProperty != "url" ||
		u.Union.Variants[0].Name != "URL" || u.Union.Variants[1].Name != "LocalFile" {
		t.Fatalf("union %+v", u.Union)
	}
}

// TestSchemaDepthLimit: a schema nested beyond Config.MaxSchemaDepth is an
// error naming server, tool and the pointer of the first schema too deep;
// at the limit it types.
func TestSchemaDepthLimit(t *testing.T) {
	nested := func(depth int) string {
		return strings.Repeat(`{"type":"object","properties":{"a":`, depth) + `{"type":"string"}` + strings.Repeat(`}}`, depth)
	}
	build := func(depth, max int) error {
		tool, err := bundle.NewTool([]byte(`{"name":"deep","inputSchema":` + nested(depth) + `}`))
		if err != nil {
			t.Fatal(err)
		}
		cfg := DefaultConfig()
		cfg.MaxSchemaDepth = max
		_, err = BuildServer(&bundle.Server{ID: "srv", Tools: []bundle.Tool{tool}}, "p", cfg)
		return err
	}
	if err := build(3, 3); err != nil {
		t.Fatalf("depth 3, limit 3: %v", err)
	}
	err := build(4, 3)
	var de *DepthError
	want := `server "srv", tool "deep", inputSchema#/properties/a/properties/a/properties/a/properties/a: the schema nests deeper than 3 levels`
	if !errors.As(err, &de) || de.Max != 3 || !strings.Contains(fmt.Sprint(err), want) {
		t.Fatalf("depth 4, limit 3: err = %v, want %s", err, want)
	}
	if err := build(DefaultMaxSchemaDepth+1, 0); !errors.As(err, &de) || de.Max != DefaultMaxSchemaDepth {
		t.Fatalf("default limit: err = %v", err)
	}
}
