package ir

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/mcpbind/mcpbind/internal/schema"
)

// kindGroups sorts the variants of a union (anyOf/oneOf members, the types
// of a type array, or the values of an enum) by the JSON kind they accept,
// in order of first appearance, so that each kind becomes one variant of a
// union told apart by JSON kind (or the whole type, when there is one kind).
type kindGroups struct {
	list []*kindGroup
	// nullable is true when a variant (or value) admits null.
	nullable bool
	// any is true when a variant accepts any value (the schema true).
	any bool
}

// kindGroup is what a union's variants say about one JSON kind.
type kindGroup struct {
	// kind is "string", "number", "boolean", "object" or "array".
	kind    string
	members []kindMember
	// values are the const and enum values of this kind, without
	// repeats, in order; an enum of them types the group when every
	// member lists its values.
	values []any
	seen   map[string]bool
	// float is true when a member says "number" or lists a number that is
	// not an integer: the group is float64, not int64.
	float bool
}

// kindMember is one variant's part in a kindGroup.
type kindMember struct {
	// ptr is the variant's pointer (not resolved, so a $ref keeps its
	// name); node is the resolved schema.
	ptr  string
	node *schema.Node
	// typ is the variant's JSON Schema type for this kind ("integer",
	// "number", "string", …), "" when the variant lists values.
	typ string
	// listed is true when the variant allows only listed values (const,
	// enum).
	listed bool
	// shared is true when the variant accepts other kinds too (a type
	// array, or values of several kinds): it cannot be typed alone.
	shared bool
}

// group returns the group of kind, adding it when new.
func (gs *kindGroups) group(kind string) *kindGroup {
	for _, g := range gs.list {
		if g.kind == kind {
			return g
		}
	}
	g := &kindGroup{kind: kind, seen: map[string]bool{}}
	gs.list = append(gs.list, g)
	return g
}

// addVariant sorts the variant schema v (at ptr) into the groups. It
// returns why the union is not typed ("" when it can be).
func (gs *kindGroups) addVariant(v *schema.Node, ptr string) string {
	if v.Boolean != nil {
		gs.any = gs.any || *v.Boolean // false matches nothing
		return ""
	}
	if values := constValues(v.S); values != nil {
		if reason := gs.addValues(v, ptr, values, v.S.Type == "number"); reason != "" {
			return "variants with " + reason
		}
		return ""
	}
	types := v.S.Types
	if v.S.Type != "" {
		types = []string{v.S.Type}
	}
	if len(types) == 0 {
		switch {
		case len(v.PropOrder) > 0 || v.S.AdditionalProperties != nil || v.S.PatternProperties != nil:
			types = []string{"object"}
		case v.S.Items != nil || v.S.PrefixItems != nil:
			types = []string{"array"}
		default:
			return "variants that say neither \"type\" nor \"const\" nor \"enum\" are not typed yet"
		}
	}
	var kinds []string
	for _, t := range types {
		if t == "null" {
			gs.nullable = true
			continue
		}
		kinds = append(kinds, t)
	}
	if slices.Contains(kinds, "integer") && slices.Contains(kinds, "number") {
		kinds = slices.DeleteFunc(kinds, func(s string) bool { return s == "integer" })
	}
	for _, t := range kinds {
		gs.addType(v, ptr, t, len(kinds) > 1)
	}
	return ""
}

// addType adds a member of JSON Schema type typ.
func (gs *kindGroups) addType(v *schema.Node, ptr, typ string, shared bool) {
	g := gs.group(jsonKind(typ))
	g.members = append(g.members, kindMember{ptr: ptr, node: v, typ: typ, shared: shared})
	if typ == "number" {
		g.float = true
	}
}

// addValues adds the const or enum values of v (at ptr); number says the
// schema's type is "number" (so its integers are float64 values).
func (gs *kindGroups) addValues(v *schema.Node, ptr string, values []any, number bool) string {
	var kinds []string
	for _, x := range values {
		kind := ""
		switch x.(type) {
		case nil:
			gs.nullable = true
			continue
		case string:
			kind = "string"
		case bool:
			kind = "boolean"
		case float64:
			kind = "number"
		default:
			return "const or enum values that are objects or arrays are not typed yet"
		}
		g := gs.group(kind)
		if f, ok := x.(float64); ok && (number || f != math.Trunc(f) || math.Abs(f) >= 1<<53) {
			g.float = true
		}
		if !slices.Contains(kinds, kind) {
			kinds = append(kinds, kind)
			g.members = append(g.members, kindMember{ptr: ptr, node: v, listed: true})
		}
		key, _ := json.Marshal(x)
		if !g.seen[string(key)] {
			g.seen[string(key)] = true
			g.values = append(g.values, x)
		}
	}
	if len(kinds) > 1 {
		for _, kind := range kinds {
			g := gs.group(kind)
			g.members[len(g.members)-1].shared = true
		}
	}
	return ""
}

// untyped returns why the groups cannot be typed: several variants of an
// object or array kind, which neither a const nor a required property told
// apart ("" when they can be typed).
func (gs *kindGroups) untyped(kw string) string {
	for _, g := range gs.list {
		if (g.kind == "object" || g.kind == "array") && len(g.members) > 1 {
			return fmt.Sprintf("%s with several %s variants that no const or required property tells apart is not typed yet", kw, g.kind)
		}
	}
	return ""
}

// groupsType types the schema n from its groups: the one group's type, or
// a union with one variant per group, told apart by JSON kind. kw names
// where the variants come from ("anyOf", "oneOf", "enum", "type").
func (ts *typeSession) groupsType(n *schema.Node, name, kw string, gs *kindGroups) (*Type, bool, error) {
	if reason := gs.untyped(kw); reason != "" {
		return ts.raw(n, reason), true, nil
	}
	if len(gs.list) == 1 {
		return ts.groupType(n, gs.list[0], name, nil)
	}
	u := &Type{Kind: KindUnion, Name: ts.b.typeName(name), Pointer: n.Ptr, SchemaDoc: ts.docKey, Union: &Union{By: ByJSONKind}}
	u.Doc = append(ts.typeDoc(u.Name, n), "", "It holds a value of one of several JSON types; exactly one field is set.")
	ts.b.pkg.Types = append(ts.b.pkg.Types, u)
	nullable := false
	for _, g := range gs.list {
		vname := kindVariantName(g.kind)
		if g.kind == "number" && !g.float {
			vname = kindVariantName("integer")
		}
		doc := []string{fmt.Sprintf("%s is the %s values of %s.", u.Name+vname, g.kind, u.Name)}
		vt, nl, err := ts.groupType(n, g, u.Name+vname, doc)
		if err != nil {
			return nil, false, err
		}
		nullable = nullable || nl
		u.Union.Variants = append(u.Union.Variants, &Variant{Name: vname, Type: vt, JSONKind: g.kind})
	}
	return u, nullable, nil
}

// groupType types one group of the schema n: a lone variant as itself (a
// variant that accepts other kinds too restricted to this one), variants
// that all list values as an enum of those values, and other variants of
// one scalar kind as the plain Go scalar (their constraints are checked by
// Validate). doc is the doc comment of an enum built here (nil: the
// schema's).
func (ts *typeSession) groupType(n *schema.Node, g *kindGroup, name string, doc []string) (*Type, bool, error) {
	listed := true
	for _, m := range g.members {
		listed = listed && m.listed
	}
	if len(g.members) == 1 {
		m := g.members[0]
		switch {
		case !m.shared && m.ptr != n.Ptr:
			return ts.typeOf(m.ptr, name)
		case !m.listed:
			t, err := ts.single(m.node, m.typ, name)
			return t, false, err
		}
	}
	base := map[string]Kind{"string": KindString, "boolean": KindBool, "number": KindInt}[g.kind]
	if base == KindInt && g.float {
		base = KindFloat
	}
	if listed {
		return ts.enumOf(n, name, base, g.values, doc), false, nil
	}
	return &Type{Kind: base, Pointer: n.Ptr}, false, nil
}
