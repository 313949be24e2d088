package ir

import (
	"slices"
	"strings"
	"testing"
)

// countryTool is a tool whose arguments use a country enum and a nested
// filter object that other tools repeat word for word.
func countryTool(name string) string {
	return `{"name":"` + name + `","inputSchema":{"type":"object","properties":{
		"q":{"type":"string"},
		"country":{"type":"string","enum":["US","DE","FR"],"description":"Country code"},
		"filter":{"type":"object","properties":{"lang":{"type":"string"}},"required":["lang"]}}}}`
}

func typeNames(p *Package) []string {
	var names []string
	for _, t := range p.Types {
		names = append(names, t.Name)
	}
	return names
}

// TestDedupMergesIdenticalTypes: structurally identical named types are
// declared once, named after their common property, and every field uses
// the survivor; the tools' own argument types stay apart.
func TestDedupMergesIdenticalTypes(t *testing.T) {
	p := build(t, countryTool("news_search"), countryTool("web_search"), countryTool("image_search"))
	names := typeNames(p)
	for _, want := range []string{"Country", "Filter", "NewsSearchArgs", "WebSearchArgs", "ImageSearchArgs"} {
		if !slices.Contains(names, want) {
			t.Errorf("types %v lack %s", names, want)
		}
	}
	if len(names) != 5 {
		t.Errorf("types = %v, want 5", names)
	}
	for _, tool := range p.Tools {
		if got := tool.Args.Fields[1].Type.Name; got != "Country" {
			t.Errorf("%s: country field is %s", tool.Name, got)
		}
	}
	for _, ty := range p.Types {
		if ty.Name == "Country" {
			if ty.Enum.Values[0].Const != "CountryUS" {
				t.Errorf("enum constant %s, want CountryUS", ty.Enum.Values[0].Const)
			}
			if !strings.HasPrefix(ty.Doc[0], "Country is the type of ") || !strings.Contains(ty.Doc[0], "WebSearchArgs.Country") {
				t.Errorf("doc = %q", ty.Doc[0])
			}
		}
	}
}

// TestDedupStableWhenAnUnrelatedToolIsAdded: adding a tool with other
// types renames nothing.
func TestDedupStableWhenAnUnrelatedToolIsAdded(t *testing.T) {
	before := typeNames(build(t, countryTool("a"), countryTool("b")))
	after := typeNames(build(t, countryTool("a"), countryTool("b"),
		`{"name":"c","inputSchema":{"type":"object","properties":{"region":{"type":"string","enum":["JP"]}}}}`))
	for _, n := range before {
		if !slices.Contains(after, n) {
			t.Errorf("adding an unrelated tool removed %s: %v → %v", n, before, after)
		}
	}
}

// TestDedupKeepsDifferentTypesApart: a different value set is a different
// type.
func TestDedupKeepsDifferentTypesApart(t *testing.T) {
	p := build(t, countryTool("a"),
		`{"name":"b","inputSchema":{"type":"object","properties":{"country":{"type":"string","enum":["US","DE"],"description":"Country code"}}}}`)
	if n := len(p.Types); n != 5 {
		t.Errorf("types = %v, want 5 (no merge)", typeNames(p))
	}
}

// TestReservedPackageFunctions: a type named like the package's Marshal or
// Unmarshal function gets another name.
func TestReservedPackageFunctions(t *testing.T) {
	p := build(t, `{"name":"x","inputSchema":{"type":"object","properties":{"a":{"$ref":"#/$defs/marshal"},"b":{"$ref":"#/$defs/unmarshal"}},
		"$defs":{"marshal":{"type":"object","properties":{"k":{"type":"string"}}},"unmarshal":{"type":"object","properties":{"j":{"type":"string"}}}}}}`)
	for _, n := range typeNames(p) {
		if n == "Marshal" || n == "Unmarshal" {
			t.Errorf("types %v declare %s, which the package's function has", typeNames(p), n)
		}
	}
}

// refTool is a tool whose "filter" object refers to a "$defs" entry that
// only its own document defines, with the given pattern.
func refTool(name, pattern string) string {
	return `{"name":"` + name + `","inputSchema":{"type":"object","properties":{
		"filter":{"type":"object","properties":{"v":{"$ref":"#/$defs/v"}}}},
		"$defs":{"v":{"type":"string","pattern":"` + pattern + `"}}}}`
}

// TestDedupKeepsRefsInTheirDocument: two schemas with the same text whose
// $ref points into different documents are different types, while the
// same $ref text in documents that agree still merges within the rules.
func TestDedupKeepsRefsInTheirDocument(t *testing.T) {
	p := build(t, refTool("a", "^a"), refTool("b", "^b"))
	var filters []string
	for _, n := range typeNames(p) {
		if strings.Contains(n, "Filter") {
			filters = append(filters, n)
		}
	}
	if len(filters) != 2 {
		t.Errorf("filter types = %v (all %v), want two: their $refs resolve in different documents", filters, typeNames(p))
	}
}

// TestDedupDeepSchemaMergesNothing: a schema nested hundreds deep, each
// level of its own shape, keeps one type per level (signatures of deep
// types stay distinct), and two tools with that schema share them.
func TestDedupDeepSchemaMergesNothing(t *testing.T) {
	deep := func(name string) string {
		var b strings.Builder
		b.WriteString(`{"name":"` + name + `","inputSchema":`)
		for range 300 {
			b.WriteString(`{"type":"object","properties":{"s":{"type":"string"},"a":`)
		}
		b.WriteString(`{"type":"string"}`)
		for range 300 {
			b.WriteString(`}}`)
		}
		b.WriteString(`}`)
		return b.String()
	}
	one := len(build(t, deep("x")).Types)
	two := len(build(t, deep("x"), deep("y")).Types)
	if one != 300 || two != 2+299 {
		t.Errorf("types: one tool %d (want 300), two tools %d (want 301: both args types and 299 shared)", one, two)
	}
}

// TestDedupAlternativesInAnyOrder: two schemas that list the same union
// alternatives in another order, with the same Go shape, are one type.
func TestDedupAlternativesInAnyOrder(t *testing.T) {
	tool := func(name, alts string) string {
		return `{"name":"` + name + `","inputSchema":{"type":"object","properties":{
			"filter":{"type":"object","properties":{"v":{"anyOf":[` + alts + `]}}}}}}`
	}
	p := build(t, tool("a", `{"type":"string"},{"type":"null"}`), tool("b", `{"type":"null"},{"type":"string"}`))
	if names := typeNames(p); len(names) != 3 || !slices.Contains(names, "Filter") {
		t.Errorf("types = %v, want AArgs, BArgs and one Filter", names)
	}
}

// TestDedupMergesWhateverTheDescriptions: enums with the same values and
// Go shape are one type although each property describes it in its own
// words (gitlab's visibility enums); the doc keeps the first description
// in declaration order, and each field keeps its own.
func TestDedupMergesWhateverTheDescriptions(t *testing.T) {
	tool := func(name, desc string) string {
		return `{"name":"` + name + `","inputSchema":{"type":"object","properties":{
			"visibility":{"type":"string","enum":["internal","private","public"],"description":"` + desc + `"}}}}`
	}
	p := build(t, tool("create_group", "The group's visibility."), tool("create_repository", "Repository visibility level."))
	if names := typeNames(p); !slices.Equal(names, []string{"CreateGroupArgs", "Visibility", "CreateRepositoryArgs"}) {
		t.Fatalf("types = %v, want one Visibility", names)
	}
	for i, want := range []string{"The group's visibility.", "Repository visibility level."} {
		if f := p.Tools[i].Args.Fields[0]; f.Type.Name != "Visibility" || !slices.Contains(f.Doc, want) {
			t.Errorf("%s.Visibility: type %s, doc %q; want Visibility, %q", p.Tools[i].Name, f.Type.Name, f.Doc, want)
		}
	}
}
