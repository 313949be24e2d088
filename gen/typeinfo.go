package gen

import (
	"strconv"
	"strings"

	"github.com/mcpbind/mcpbind/ir"
)

// typeInfo renders the fields of the bindimpl.TypeInfo literal that
// describes the named type t to the runtime codec: its schema location and
// the JSON rules its plain declaration does not carry. Every string is
// quoted with strconv.Quote; unset fields are left out.
func typeInfo(t *ir.Type) string {
	var f []string
	add := func(name, value string) { f = append(f, name+": "+value) }
	if t.SchemaDoc != "" {
		add("Doc", strconv.Quote(t.SchemaDoc))
	}
	if rel, ok := t.RelativePointer(); ok {
		// Relative: pointers of deeply nested types stay short.
		add("Base", "bindimpl.TypeOf["+t.PointerBase.Name+"]()")
		add("Pointer", strconv.Quote(rel))
	} else if t.Pointer != "" {
		add("Pointer", strconv.Quote(t.Pointer))
	}
	switch t.Kind {
	case ir.KindStruct:
		if len(t.Required) > 0 {
			add("Required", stringSlice(t.Required))
		}
		if t.Closed {
			add("Closed", "true")
		}
		if t.ExtraName != "" {
			add("Extra", strconv.Quote(t.ExtraName))
		}
		var defs []string
		for _, fl := range t.Fields {
			if fl.Default != "" {
				defs = append(defs, strconv.Quote(fl.JSONName)+": "+strconv.Quote(fl.Default))
			}
		}
		if len(defs) > 0 {
			add("Defaults", "map[string]string{"+strings.Join(defs, ", ")+"}")
		}
		if t.Tag != "" {
			add("Tag", strconv.Quote(t.Tag))
			add("TagValue", strconv.Quote(t.TagValue))
		}
	case ir.KindUnion:
		cases := make([]string, len(t.Union.Variants))
		for i, v := range t.Union.Variants {
			switch t.Union.By {
			case ir.ByTag:
				cases[i] = v.TagValue
			case ir.ByJSONKind:
				cases[i] = v.JSONKind
			case ir.ByRequired:
				cases[i] = v.UniqueProperty
			}
		}
		switch t.Union.By {
		case ir.ByTag:
			add("Union", "bindimpl.UnionByTag")
			add("UnionTag", strconv.Quote(t.Union.Tag))
		case ir.ByJSONKind:
			add("Union", "bindimpl.UnionByKind")
		case ir.ByRequired:
			add("Union", "bindimpl.UnionByRequired")
		}
		add("Cases", stringSlice(cases))
	case ir.KindTuple:
		add("Tuple", strconv.Itoa(len(t.Fields)))
		if t.MinItems > 0 {
			add("MinItems", strconv.Itoa(t.MinItems))
		}
	case ir.KindRaw:
		add("Raw", "true")
	}
	return strings.Join(f, ", ")
}

// typeUsesRawJSON reports whether the declaration of the named type t
// mentions json.RawMessage.
func typeUsesRawJSON(t *ir.Type) bool {
	if t.Kind != ir.KindStruct && t.Kind != ir.KindEnum && t.Kind != ir.KindUnion && t.Kind != ir.KindTuple && t.UsesRawJSONUnderlying() {
		return true
	}
	if t.Kind == ir.KindTuple && t.Elem != nil && t.Elem.UsesRawJSON() {
		return true
	}
	if t.Extra != nil && t.ExtraName != "" && t.Extra.UsesRawJSON() {
		return true
	}
	for _, f := range t.Fields {
		if f.Type.UsesRawJSON() {
			return true
		}
	}
	if t.Union != nil {
		for _, v := range t.Union.Variants {
			if v.Type.UsesRawJSON() {
				return true
			}
		}
	}
	return false
}
