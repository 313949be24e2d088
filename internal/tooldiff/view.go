package tooldiff

import (
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpbind/mcpbind/internal/jsonpointer"
	"github.com/mcpbind/mcpbind/internal/schema"
)

// doc is one decoded schema document.
type doc struct {
	root any
	vals map[string]any // pointer → value, memoised by at
	// refs resolves "$ref"s (its "$id" and anchor index), built from root
	// on the first one.
	refs *schema.Document
}

// at returns the value at the JSON pointer ptr. A pointer resolves from
// its parent's memoised value, so looking up every sub-schema of a
// document costs time linear in its size, not in size times depth.
func (d *doc) at(ptr string) (any, bool) {
	if v, ok := d.vals[ptr]; ok {
		return v, true
	}
	i := strings.LastIndexByte(ptr, '/')
	if i < 0 {
		return lookup(d.root, ptr)
	}
	parent, ok := d.at(ptr[:i])
	if !ok {
		return nil, false
	}
	v, ok := lookup(parent, ptr[i:])
	if ok {
		if d.vals == nil {
			d.vals = map[string]any{}
		}
		d.vals[ptr] = v
	}
	return v, ok
}

// resolveRef returns the pointer that ref, written in the schema at ptr,
// names inside the document (schema.Document.ResolveRef: "$id" bases,
// JSON pointers, anchors); false when it points outside the document or at
// nothing: mcpbind never fetches schemas.
func (d *doc) resolveRef(ptr, ref string) (string, bool) {
	if d.refs == nil {
		d.refs = schema.Parse(encodeJSON(d.root))
	}
	target, ok := d.refs.ResolveRef(ptr, ref)
	if !ok {
		return "", false
	}
	_, ok = d.at(target)
	return target, ok
}

// view is the conjunction of the schemas at some pointers of one document,
// with their $refs and allOf members merged in: what a value must satisfy
// there, keyword by keyword. Its anyOf/oneOf groups are kept apart (see
// variants).
type view struct {
	inputs   []string        // the pointers the view was built from
	consumed map[string]bool // union groups ("ptr/anyOf") already split off
	ptrs     []string        // every schema merged in, in visit order
	key      string
	never    bool // a false schema, or no type left

	types   []string // nil: any type
	hasEnum bool
	enum    []any
	enumKw  string

	propNames     []string
	props         map[string][]string
	required      map[string]bool
	reqNames      []string
	apPtrs        []string // additionalProperties schemas other than true
	patNames      []string
	patProps      map[string][]string
	propNamesPtrs []string
	depReq        map[string][]string

	hasItems bool
	items    []string
	prefix   [][]string
	contains []string

	bounds      map[string]bound
	multipleOf  []*big.Rat
	uniqueItems bool
	patterns    []string
	formats     []string

	unions []union

	// annotations (cosmetic) and opaque validation keywords, by keyword,
	// each value tagged with the pointer of the schema it came from.
	notes      map[string][]tagged
	notesOrder []string
	opaque     map[string][]tagged
	opaqueOrd  []string

	refName string // the $defs name of the first $ref target
	title   string
}

// union is one anyOf or oneOf group.
type union struct {
	kw, at  string
	members []string
}

// tagged is a keyword value and the schema it is from.
type tagged struct {
	ptr string
	val any
}

// bound is a numeric bound; excl marks exclusiveMinimum/exclusiveMaximum.
type bound struct {
	val  *big.Rat
	excl bool
}

// expand builds the view of the schemas at ptrs in d, following $refs and
// allOf; union groups in consumed are left out.
func expand(d *doc, ptrs []string, consumed map[string]bool) *view {
	v := &view{
		inputs: ptrs, consumed: consumed,
		props: map[string][]string{}, required: map[string]bool{}, patProps: map[string][]string{},
		depReq: map[string][]string{}, bounds: map[string]bound{},
		notes: map[string][]tagged{}, opaque: map[string][]tagged{},
	}
	seen := map[string]bool{}
	var keyPtrs []string
	var visit func(ptr string)
	visit = func(ptr string) {
		if seen[ptr] {
			return
		}
		seen[ptr] = true
		v.ptrs = append(v.ptrs, ptr)
		node, ok := d.at(ptr)
		if !ok {
			v.addOpaque("$ref", ptr, "#"+ptr)
			return
		}
		switch n := node.(type) {
		case bool:
			if !n {
				v.never = true
			}
		case *object:
			if !onlyRef(n) {
				keyPtrs = append(keyPtrs, ptr)
			}
			v.add(ptr, n)
			for _, kw := range []string{"$ref", "$dynamicRef"} {
				r, ok := n.vals[kw].(string)
				if !ok {
					continue
				}
				target, ok := d.resolveRef(ptr, r)
				if !ok {
					v.addOpaque(kw, ptr, r)
					continue
				}
				if v.refName == "" {
					v.refName = defName(target)
				}
				visit(target)
			}
			if all, ok := n.vals["allOf"].([]any); ok {
				for i := range all {
					visit(jsonpointer.Append(ptr, "allOf", strconv.Itoa(i)))
				}
			}
		default:
			v.addOpaque("schema", ptr, node)
		}
	}
	for _, p := range ptrs {
		visit(p)
	}
	if keyPtrs == nil {
		keyPtrs = v.ptrs
	}
	v.key = strings.Join(keyPtrs, "\x00")
	if v.types != nil && len(v.types) == 0 {
		v.never = true
	}
	return v
}

// onlyRef reports whether a schema object is a bare reference: nothing but
// $ref and keywords that do not constrain or document (so a recursive
// reference and what it points to are one schema for the recursion guard).
func onlyRef(n *object) bool {
	hasRef := false
	for _, k := range n.keys {
		switch k {
		case "$ref", "$dynamicRef":
			hasRef = true
		case "$defs", "definitions", "$schema", "$id", "$anchor", "$dynamicAnchor", "$comment":
		default:
			return false
		}
	}
	return hasRef
}

// defName returns the last token of a pointer into $defs or definitions.
func defName(ptr string) string {
	toks := strings.Split(ptr, "/")
	if n := len(toks); n >= 3 && (toks[n-2] == "$defs" || toks[n-2] == "definitions") {
		return jsonpointer.Unescape(toks[n-1])
	}
	return ""
}

// add merges the keywords of the schema object n at ptr into v.
func (v *view) add(ptr string, n *object) {
	for _, k := range n.keys {
		val := n.vals[k]
		switch k {
		case "type":
			var ts []string
			switch x := val.(type) {
			case string:
				ts = []string{x}
			case []any:
				for _, e := range x {
					if s, ok := e.(string); ok {
						ts = append(ts, s)
					}
				}
			default:
				v.addOpaque(k, ptr, val)
				continue
			}
			if b, _ := n.vals["nullable"].(bool); b && !slices.Contains(ts, "null") {
				ts = append(ts, "null") // OpenAPI 3.0's way to say it
			}
			v.types = intersectTypes(v.types, ts)
		case "enum", "const":
			vals, ok := val.([]any)
			if k == "const" {
				vals, ok = []any{val}, true
			}
			if !ok {
				v.addOpaque(k, ptr, val)
				continue
			}
			if v.enumKw == "" {
				v.enumKw = k
			}
			if !v.hasEnum {
				v.hasEnum, v.enum = true, dedupValues(vals)
				continue
			}
			keep := map[string]bool{}
			for _, e := range vals {
				keep[canonical(e)] = true
			}
			v.enum = slices.DeleteFunc(v.enum, func(e any) bool { return !keep[canonical(e)] })
		case "properties":
			o, ok := val.(*object)
			if !ok {
				v.addOpaque(k, ptr, val)
				continue
			}
			for _, name := range o.keys {
				if _, ok := v.props[name]; !ok {
					v.propNames = append(v.propNames, name)
				}
				v.props[name] = append(v.props[name], jsonpointer.Append(ptr, k, name))
			}
		case "required":
			a, _ := val.([]any)
			for _, e := range a {
				if s, ok := e.(string); ok && !v.required[s] {
					v.required[s] = true
					v.reqNames = append(v.reqNames, s)
				}
			}
		case "additionalProperties":
			if b, ok := val.(bool); ok && b {
				continue
			}
			if o, ok := val.(*object); ok && len(o.keys) == 0 {
				continue
			}
			v.apPtrs = append(v.apPtrs, jsonpointer.Append(ptr, k))
		case "patternProperties":
			o, ok := val.(*object)
			if !ok {
				v.addOpaque(k, ptr, val)
				continue
			}
			for _, pat := range o.keys {
				if _, ok := v.patProps[pat]; !ok {
					v.patNames = append(v.patNames, pat)
				}
				v.patProps[pat] = append(v.patProps[pat], jsonpointer.Append(ptr, k, pat))
			}
		case "propertyNames":
			v.propNamesPtrs = append(v.propNamesPtrs, jsonpointer.Append(ptr, k))
		case "dependentRequired":
			o, ok := val.(*object)
			if !ok {
				v.addOpaque(k, ptr, val)
				continue
			}
			for _, name := range o.keys {
				a, _ := o.vals[name].([]any)
				for _, e := range a {
					if s, ok := e.(string); ok && !slices.Contains(v.depReq[name], s) {
						v.depReq[name] = append(v.depReq[name], s)
					}
				}
			}
		case "items":
			if a, ok := val.([]any); ok { // draft-04 tuple
				for i := range a {
					v.addPrefix(i, jsonpointer.Append(ptr, k, strconv.Itoa(i)))
				}
				continue
			}
			v.hasItems = true
			v.items = append(v.items, jsonpointer.Append(ptr, k))
		case "prefixItems":
			a, _ := val.([]any)
			for i := range a {
				v.addPrefix(i, jsonpointer.Append(ptr, k, strconv.Itoa(i)))
			}
		case "contains":
			v.contains = append(v.contains, jsonpointer.Append(ptr, k))
		case "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum":
			// Read together below: draft-04 spells exclusiveness as a boolean.
		case "minLength", "minItems", "minProperties", "minContains":
			if r, ok := rat(val); ok {
				v.tighten(k, bound{val: r}, true)
			}
		case "maxLength", "maxItems", "maxProperties", "maxContains":
			if r, ok := rat(val); ok {
				v.tighten(k, bound{val: r}, false)
			}
		case "multipleOf":
			if r, ok := rat(val); ok && r.Sign() > 0 {
				v.multipleOf = append(v.multipleOf, r)
			}
		case "uniqueItems":
			if b, _ := val.(bool); b {
				v.uniqueItems = true
			}
		case "pattern":
			if s, ok := val.(string); ok && !slices.Contains(v.patterns, s) {
				v.patterns = append(v.patterns, s)
			}
		case "format":
			if s, ok := val.(string); ok && !slices.Contains(v.formats, s) {
				v.formats = append(v.formats, s)
			}
		case "anyOf", "oneOf":
			a, ok := val.([]any)
			if !ok {
				v.addOpaque(k, ptr, val)
				continue
			}
			if v.consumed[ptr+"/"+k] {
				continue
			}
			u := union{kw: k, at: ptr}
			for i := range a {
				u.members = append(u.members, jsonpointer.Append(ptr, k, strconv.Itoa(i)))
			}
			v.unions = append(v.unions, u)
		case "allOf", "$ref", "$dynamicRef", "$defs", "definitions", "nullable", "$id", "$anchor", "$dynamicAnchor":
			// Followed by expand, containers, read with "type", or naming a
			// schema rather than saying anything about values.
		case "not", "if", "then", "else", "dependentSchemas", "dependencies",
			"unevaluatedProperties", "unevaluatedItems", "additionalItems", "$recursiveRef":
			v.addOpaque(k, ptr, val)
		default:
			// Annotations (description, title, examples, default, deprecated,
			// readOnly, writeOnly, $comment, $schema, $id, content*, …) and
			// unknown keywords, which JSON Schema treats as annotations.
			if k == "title" && v.title == "" {
				v.title, _ = val.(string)
			}
			if _, ok := v.notes[k]; !ok {
				v.notesOrder = append(v.notesOrder, k)
			}
			v.notes[k] = append(v.notes[k], tagged{ptr, val})
		}
	}
	v.addNumberBounds(n)
}

// addNumberBounds reads minimum, maximum and their exclusive forms (a
// number since draft-06, a boolean modifier in draft-04).
func (v *view) addNumberBounds(n *object) {
	for _, side := range []struct {
		plain, excl string
		lower       bool
	}{{"minimum", "exclusiveMinimum", true}, {"maximum", "exclusiveMaximum", false}} {
		plain, hasPlain := rat(n.vals[side.plain])
		exclFlag, _ := n.vals[side.excl].(bool)
		if hasPlain {
			v.tighten(side.plain, bound{val: plain, excl: exclFlag}, side.lower)
		}
		if r, ok := rat(n.vals[side.excl]); ok {
			v.tighten(side.plain, bound{val: r, excl: true}, side.lower)
		}
	}
}

// tighten merges a bound into the view: the larger lower bound, the smaller
// upper bound.
func (v *view) tighten(kw string, b bound, lower bool) {
	cur, ok := v.bounds[kw]
	if !ok || tighter(b, cur, lower) {
		v.bounds[kw] = b
	}
}

// tighter reports whether bound a admits fewer values than b.
func tighter(a, b bound, lower bool) bool {
	c := a.val.Cmp(b.val)
	if !lower {
		c = -c
	}
	return c > 0 || (c == 0 && a.excl && !b.excl)
}

func (v *view) addPrefix(i int, ptr string) {
	for len(v.prefix) <= i {
		v.prefix = append(v.prefix, nil)
	}
	v.prefix[i] = append(v.prefix[i], ptr)
}

func (v *view) addOpaque(kw, ptr string, val any) {
	if _, ok := v.opaque[kw]; !ok {
		v.opaqueOrd = append(v.opaqueOrd, kw)
	}
	v.opaque[kw] = append(v.opaque[kw], tagged{ptr, val})
}

// kindRank orders kinds in messages: string, integer, number, boolean,
// object, array, null, any.
func kindRank(k string) int {
	switch k {
	case "string":
		return 0
	case "integer":
		return 1
	case "number":
		return 2
	case "boolean":
		return 3
	case "object":
		return 4
	case "array":
		return 5
	case "null":
		return 6
	case "any":
		return 7
	}
	return 8
}

// intersectTypes intersects two type sets (nil: any type); integer is a
// subset of number.
func intersectTypes(a, b []string) []string {
	if a == nil {
		return normTypes(b)
	}
	var out []string
	for _, t := range normTypes(b) {
		switch {
		case slices.Contains(a, t):
			out = append(out, t)
		case t == "integer" && slices.Contains(a, "number"), t == "number" && slices.Contains(a, "integer"):
			out = append(out, "integer")
		}
	}
	return normTypes(out)
}

// normTypes sorts and deduplicates a type set, dropping integer when
// number is present. It never returns nil.
func normTypes(ts []string) []string {
	out := []string{}
	for _, t := range ts {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	if slices.Contains(out, "number") {
		out = slices.DeleteFunc(out, func(t string) bool { return t == "integer" })
	}
	slices.SortFunc(out, func(x, y string) int { return kindRank(x) - kindRank(y) })
	return out
}

func dedupValues(vals []any) []any {
	seen := map[string]bool{}
	var out []any
	for _, e := range vals {
		k := canonical(e)
		if !seen[k] {
			seen[k] = true
			out = append(out, e)
		}
	}
	if out == nil {
		out = []any{}
	}
	return out
}
