package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpbind/mcpbind/internal/jsonpointer"
)

// Normalize rewrites one schema document (a tool's inputSchema or
// outputSchema) into canonical JSON Schema 2020-12, so that the IR sees one
// way to say each thing (STYLE "Normalize before the IR"). It is a pure
// function: the same input gives the same output and warnings.
//
// The dialect comes from "$schema": 2020-12 when absent; 2019-09, draft-07,
// draft-06 and draft-04 are recognised; draft-03 is read as draft-04 and an
// unknown URI as 2020-12, each with a warning; an embedded resource may
// switch dialect with its own "$schema". The rules:
//
//   - draft-04 "id" becomes "$id"; an "id" or "$id" that is only a fragment
//     ("#foo", draft-04 to draft-07) becomes "$anchor": "foo".
//   - A boolean "exclusiveMaximum"/"exclusiveMinimum" (draft-04) takes the
//     value of "maximum"/"minimum", which is removed; false is removed. In
//     a later dialect, where it is invalid, the same happens with a warning.
//   - Array-form "items" becomes "prefixItems", and "additionalItems"
//     becomes "items" (draft-04 to 2019-09). "additionalItems" without
//     array-form items is ignored by those drafts and removed. In a 2020-12
//     document, where they are not keywords, the same happens with a warning.
//   - "dependencies" splits into "dependentRequired" (array members) and
//     "dependentSchemas" (schema members), merged into existing ones.
//   - "$ref" with sibling keywords: in draft-07 and earlier the siblings are
//     ignored by the specification, so they are removed (with a warning);
//     "$schema", "definitions" and "$defs" stay, and a value inside a removed
//     sibling that another "$ref" points to is kept under "$defs". In
//     2019-09 and 2020-12 the sibling assertions and applicators move into
//     "allOf": [{"$ref": …}, {siblings}] at the place of "$ref"; annotations
//     (title, description, default, …), core keywords ($id, $defs, …),
//     unevaluatedProperties/unevaluatedItems and unknown keywords stay
//     beside it.
//   - The lightweight "direct map" argument shape
//     (../shared/reference/go-lightweight-arg-schema-validator.md), an
//     object whose values are field specs such as {"type": "float",
//     "required": true}, becomes an object schema with "properties" and
//     "required" (with a warning). Its field-spec conventions are also
//     rewritten where they appear inside a JSON Schema: "type": "float" →
//     "number", "type": "enum" (with "values" or "enum") → "enum",
//     "isArray": true → an array of the field, a boolean "required" in a
//     property → the parent's "required" list, and a scalar "enum" on an
//     array type → the enum of its items.
//   - A "$schema" of an older dialect is rewritten to the 2020-12 URI, so
//     Normalize is idempotent.
//
// Key order is kept everywhere: rewritten keywords stay where they were, and
// values that are not rewritten keep their bytes. "definitions" is kept
// (refs to #/definitions/… still resolve). When a rule moves a sub-schema,
// every "$ref" whose JSON pointer led to it (or into it) is rewritten to its
// new place, so no reference breaks; refs are resolved against "$id" base
// URIs, and refs to other documents are left alone.
//
// A document that needs no change is returned as it was, byte for byte.
// Otherwise the result is compact JSON. Warnings name the JSON pointer (in
// the input) of what they are about, "#/properties/a: …", and come in
// document order. The error is for input that is not one JSON value, has a
// duplicate key, is nested more than 10,000 levels deep, or is not an object
// or a boolean.
func Normalize(raw json.RawMessage) (json.RawMessage, []string, error) {
	trimmed := bytes.TrimSpace(raw)
	if !json.Valid(trimmed) {
		return nil, nil, errors.New("normalize: the schema is not valid JSON")
	}
	p := &jparser{data: trimmed}
	root, err := p.value(0)
	if err != nil {
		return nil, nil, fmt.Errorf("normalize: %w", err)
	}
	switch root.kind {
	case jBool:
		return raw, nil, nil
	case jObject:
	default:
		return nil, nil, fmt.Errorf("normalize: a schema must be an object or a boolean, got %s", abbreviate(trimmed))
	}
	n := &normalizer{order: map[*jvalue]int{}, resources: map[string]*jvalue{}}
	direct := isDirectMap(root)
	if direct {
		root = directMapToSchema(root)
		n.changed = true
		n.directMap = true
	}
	n.orig = indexPointers(root)
	rankValues(root, n.order)
	if direct {
		n.warnf(root, `the schema is the lightweight "direct map" shape (field specs such as {"type": "float", "required": true}); read as a JSON Schema object`)
	}
	n.scan(root)
	root = n.schema(root, Draft2020)
	n.relocateRefs(root)
	warnings := n.sortedWarnings()
	if !n.changed {
		return raw, warnings, nil
	}
	var buf bytes.Buffer
	root.encode(&buf)
	return json.RawMessage(buf.Bytes()), warnings, nil
}

// schema2020 is the $schema URI of the canonical dialect.
const schema2020 = "https://json-schema.org/draft/2020-12/schema"

// dialectOf reads the "$schema" of v, if any, returning def otherwise.
// warn, when not nil, receives a note about an unknown or draft-03 URI.
func dialectOf(v *jvalue, def Dialect, warn func(string)) Dialect {
	s := v.get("$schema")
	if s == nil || s.kind != jString {
		return def
	}
	uri := s.str
	switch d := DialectOf(uri); d {
	case DialectUnknown:
		if warn != nil {
			warn(fmt.Sprintf("unknown $schema %q; read as JSON Schema 2020-12", uri))
		}
		return Draft2020
	case Draft03:
		if warn != nil {
			warn(fmt.Sprintf("$schema %q is draft-03, which mcpbind does not support; read as draft-04", uri))
		}
		return Draft04
	default:
		return d
	}
}

// Where sub-schemas sit, and what the rules do with a keyword. These are
// functions rather than tables so that the package holds no mutable state.

// refMovingKeyword reports whether a 2019-09 or 2020-12 "$ref" with
// sibling k moves k into "allOf": the assertions and applicators. format and
// the content keywords are annotations in 2020-12 but decide Go types in
// mcpbind, so they move with the assertions. unevaluatedProperties and
// unevaluatedItems stay beside the new allOf: there they still see what
// both the $ref and the moved siblings evaluated.
func refMovingKeyword(k string) bool {
	switch k {
	case "type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
		"maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxContains", "minContains",
		"maxProperties", "minProperties", "required", "dependentRequired", "allOf", "anyOf", "oneOf", "not", "if",
		"then", "else", "dependentSchemas", "prefixItems", "items", "contains", "properties", "patternProperties",
		"additionalProperties", "propertyNames", "format",
		"contentEncoding", "contentMediaType", "contentSchema", "$dynamicRef", "$recursiveRef":
		return true
	}
	return false
}

// oldRefKeeps reports whether a sibling k of a draft-07 (or older) "$ref"
// is kept: it is not an assertion, and refs into definitions must resolve.
func oldRefKeeps(k string) bool {
	switch k {
	case "$ref", "$schema", "definitions", "$defs":
		return true
	}
	return false
}

// annotationKeyword reports whether k describes an array as a whole when
// "isArray" wraps a field spec.
func annotationKeyword(k string) bool {
	switch k {
	case "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly", "$comment":
		return true
	}
	return false
}

// fieldSpecType reports whether t is a "type" of a direct-map field spec.
func fieldSpecType(t string) bool {
	switch t {
	case "string", "integer", "float", "number", "boolean", "enum", "array":
		return true
	}
	return false
}

// normalizer holds the state of one Normalize call.
type normalizer struct {
	// orig gives every value of the (possibly direct-map-converted) input
	// its JSON pointer, for warnings.
	orig pointerIndex
	// order ranks the same values in document order.
	order map[*jvalue]int
	// resources maps absolute base URIs to the schema objects that define
	// them ("$id"), with the document root under defaultBase.
	resources map[string]*jvalue
	refs      []*refSite
	// targets are the values that some "$ref" points to by JSON pointer.
	targets   map[*jvalue]bool
	warnings  []warning
	changed   bool
	directMap bool
}

// defaultBase is the base URI of a document without a root "$id". It only
// serves to resolve refs inside the document.
const defaultBase = "https://mcpbind.invalid/schema.json"

// refSite is one "$ref" of the input.
type refSite struct {
	str  *jvalue  // the "$ref" string value
	text string   // the ref as written
	base *url.URL // the base URI it is resolved against
	// Set when the ref points into the document by JSON pointer:
	prefix   string  // the ref up to "#"
	resource *jvalue // the schema object the fragment pointer starts at
	ptr      string  // the fragment as a JSON pointer, unescaped from the URI
	target   *jvalue
}

// warning is one warning and the document position of what it is about.
type warning struct {
	pos  int // the rank of the value in document order
	text string
}

func (n *normalizer) warnf(v *jvalue, format string, args ...any) {
	ptr, ok := n.orig.pointer(v)
	pos := n.order[v]
	if !ok {
		ptr, pos = "", 0
	}
	n.warnings = append(n.warnings, warning{pos: pos, text: "#" + ptr + ": " + fmt.Sprintf(format, args...)})
}

// sortedWarnings returns the warnings in document order of what they are
// about (in rule order for the same value).
func (n *normalizer) sortedWarnings() []string {
	slices.SortStableFunc(n.warnings, func(a, b warning) int { return a.pos - b.pos })
	out := make([]string, len(n.warnings))
	for i, w := range n.warnings {
		out[i] = w.text
	}
	return out
}

// scan walks the input's schemas to find base URIs and "$ref"s, and
// resolves every ref that points into the document by JSON pointer, before
// any rule moves a value.
func (n *normalizer) scan(root *jvalue) {
	base, _ := url.Parse(defaultBase)
	n.resources[defaultBase] = root
	n.scanSchema(root, Draft2020, base)
	n.targets = map[*jvalue]bool{}
	for _, r := range n.refs {
		n.resolve(r)
		if r.target != nil {
			n.targets[r.target] = true
		}
	}
}

func (n *normalizer) scanSchema(v *jvalue, d Dialect, base *url.URL) {
	if v.kind != jObject {
		return
	}
	d = dialectOf(v, d, nil)
	ref := v.get("$ref")
	idKey := "$id"
	if d == Draft04 {
		idKey = "id"
	}
	// In draft-07 and earlier an id beside $ref is ignored, like every
	// sibling of $ref.
	if id := v.get(idKey); id != nil && id.kind == jString && (d > Draft07 || ref == nil) {
		if u, err := url.Parse(id.str); err == nil && (u.Scheme != "" || u.Host != "" || u.Path != "" || u.Opaque != "") {
			abs := base.ResolveReference(u)
			abs.Fragment, abs.RawFragment = "", ""
			base = abs
			n.resources[abs.String()] = v
		}
	}
	if ref != nil && ref.kind == jString {
		n.refs = append(n.refs, &refSite{str: ref, text: ref.str, base: base})
	}
	eachSubschema(v, func(c *jvalue) *jvalue {
		n.scanSchema(c, d, base)
		return c
	})
}

// resolve finds the target of a ref that points into the document by JSON
// pointer. Anchors (location-independent), refs to other documents and
// dangling refs are left unresolved: no rule needs to rewrite them.
func (n *normalizer) resolve(r *refSite) {
	u, err := url.Parse(r.text)
	if err != nil {
		return
	}
	abs := r.base.ResolveReference(u)
	frag := abs.Fragment
	if frag != "" && !strings.HasPrefix(frag, "/") {
		return
	}
	abs.Fragment, abs.RawFragment = "", ""
	res := n.resources[abs.String()]
	if res == nil {
		return
	}
	target := res.at(frag)
	if target == nil {
		return
	}
	before, _, _ := strings.Cut(r.text, "#")
	r.prefix, r.resource, r.ptr, r.target = before, res, frag, target
}

// eachSubschema calls fn on every direct sub-schema of the schema object v
// (objects and booleans in schema positions, in key order) and stores what
// fn returns in its place.
func eachSubschema(v *jvalue, fn func(*jvalue) *jvalue) {
	isSchema := func(c *jvalue) bool { return c.kind == jObject || c.kind == jBool }
	for _, m := range v.members {
		switch {
		case SingleKeyword(m.key) && isSchema(m.val):
			m.val = fn(m.val)
		case ArrayKeyword(m.key) && m.val.kind == jArray:
			for i, e := range m.val.elems {
				if isSchema(e) {
					m.val.elems[i] = fn(e)
				}
			}
		case MapKeyword(m.key) && m.val.kind == jObject:
			for _, pm := range m.val.members {
				if isSchema(pm.val) {
					pm.val = fn(pm.val)
				}
			}
		}
	}
}

// schema applies the rules to the schema object v and, recursively, to its
// sub-schemas. It returns what replaces v (itself, or an array schema
// wrapping it for "isArray").
func (n *normalizer) schema(v *jvalue, d Dialect) *jvalue {
	if v.kind != jObject {
		return v
	}
	if s := v.get("$schema"); s != nil && s.kind == jString {
		d = dialectOf(v, d, func(msg string) { n.warnf(v, "%s", msg) })
		if d < Draft2020 {
			s.setString(schema2020)
			n.changed = true
		}
	}
	n.ids(v, d)
	n.exclusiveBounds(v, d)
	n.arrayItems(v, d)
	n.dependencies(v)
	n.fieldSpec(v)
	if p := v.get("properties"); p != nil && p.kind == jObject {
		n.hoistRequired(v, p)
	}
	n.refSiblings(v, d)
	eachSubschema(v, func(c *jvalue) *jvalue { return n.schema(c, d) })
	return n.isArray(v)
}

// ids turns draft-04 "id" into "$id" and fragment-only ids into "$anchor".
func (n *normalizer) ids(v *jvalue, d Dialect) {
	key := "$id"
	if d == Draft04 {
		key = "id"
		if v.get("$id") != nil {
			return
		}
	}
	id := v.get(key)
	if id == nil || id.kind != jString {
		return
	}
	if d <= Draft07 && strings.HasPrefix(id.str, "#") && len(id.str) > 1 {
		v.rename(key, "$anchor")
		id.setString(id.str[1:])
		n.changed = true
		return
	}
	if key == "id" {
		v.rename("id", "$id")
		n.changed = true
	}
}

// exclusiveBounds turns boolean exclusiveMaximum/exclusiveMinimum into
// their numeric form.
func (n *normalizer) exclusiveBounds(v *jvalue, d Dialect) {
	for _, pair := range [][2]string{{"exclusiveMaximum", "maximum"}, {"exclusiveMinimum", "minimum"}} {
		ex := v.get(pair[0])
		if ex == nil || ex.kind != jBool {
			continue
		}
		n.changed = true
		if d != Draft04 {
			n.warnf(v, "boolean %s is draft-04 syntax; converted to the numeric form", pair[0])
		}
		bound := v.get(pair[1])
		switch {
		case !ex.b:
			v.remove(pair[0])
		case bound == nil:
			v.remove(pair[0])
			n.warnf(v, "%s: true without %s has no effect; removed", pair[0], pair[1])
		default:
			v.set(pair[0], bound)
			v.remove(pair[1])
		}
	}
}

// arrayItems turns array-form "items" into "prefixItems" and
// "additionalItems" into "items".
func (n *normalizer) arrayItems(v *jvalue, d Dialect) {
	items := v.get("items")
	add := v.get("additionalItems")
	if items != nil && items.kind == jArray {
		if v.get("prefixItems") != nil {
			n.warnf(v, "array-form items beside prefixItems; items left as is")
			return
		}
		if d == Draft2020 {
			n.warnf(v, "array-form items is draft 2019-09 or earlier; read as prefixItems")
		}
		v.rename("items", "prefixItems")
		if add != nil {
			v.rename("additionalItems", "items")
		}
		n.changed = true
		return
	}
	if add == nil {
		return
	}
	n.changed = true
	if items == nil && v.get("prefixItems") != nil {
		n.warnf(v, "additionalItems beside prefixItems is not 2020-12; read as items")
		v.rename("additionalItems", "items")
		return
	}
	n.warnf(v, "additionalItems without array-form items has no effect; removed")
	v.remove("additionalItems")
}

// dependencies splits "dependencies" into dependentRequired and
// dependentSchemas, at its place.
func (n *normalizer) dependencies(v *jvalue) {
	i := v.index("dependencies")
	if i < 0 || v.members[i].val.kind != jObject {
		return
	}
	deps := v.members[i].val
	req := &jvalue{kind: jObject}
	sch := &jvalue{kind: jObject}
	var order []*jmember
	for _, m := range deps.members {
		dst, key := sch, "dependentSchemas"
		if m.val.kind == jArray {
			dst, key = req, "dependentRequired"
		}
		if len(dst.members) == 0 {
			order = append(order, &jmember{key: key, val: dst})
		}
		dst.members = append(dst.members, &jmember{key: m.key, val: m.val})
	}
	v.members = slices.Delete(v.members, i, i+1)
	for _, m := range order {
		if existing := v.get(m.key); existing != nil && existing.kind == jObject {
			for _, dm := range m.val.members {
				if existing.get(dm.key) != nil {
					n.warnf(v, "dependencies and %s both constrain %q; the dependencies entry is dropped", m.key, dm.key)
					continue
				}
				existing.members = append(existing.members, dm)
			}
			continue
		}
		v.members = slices.Insert(v.members, i, m)
		i++
	}
	n.changed = true
}

// fieldSpec rewrites the lightweight field-spec conventions that are not
// JSON Schema: "type": "float" and "type": "enum" (with "values").
func (n *normalizer) fieldSpec(v *jvalue) {
	t := v.get("type")
	if t == nil {
		return
	}
	switch {
	case t.kind == jString && t.str == "float":
		t.setString("number")
		n.changed = true
		n.lightf(v, `"type": "float" is not JSON Schema; read as "number"`)
	case t.kind == jString && t.str == "enum":
		v.remove("type")
		if v.get("enum") == nil && v.get("values") != nil {
			v.rename("values", "enum")
		}
		n.changed = true
		n.lightf(v, `"type": "enum" is not JSON Schema; read as "enum"`)
	case t.kind == jArray:
		for _, e := range t.elems {
			if e.kind == jString && e.str == "float" {
				e.setString("number")
				n.changed = true
				n.lightf(v, `"type": "float" is not JSON Schema; read as "number"`)
			}
		}
	}
	// A scalar enum on an array: the lightweight validator checks each
	// element against it (in JSON Schema it could never match).
	if t := v.get("type"); t != nil && t.kind == jString && t.str == "array" {
		if e := v.get("enum"); e != nil && e.kind == jArray && len(e.elems) > 0 && !slices.ContainsFunc(e.elems, func(x *jvalue) bool { return x.kind == jArray }) {
			items := v.get("items")
			switch {
			case items == nil:
				v.set("items", &jvalue{kind: jObject, members: []*jmember{{key: "enum", val: e}}})
				v.remove("enum")
			case items.kind == jObject && items.get("enum") == nil:
				items.members = append(items.members, &jmember{key: "enum", val: e})
				v.remove("enum")
			default:
				return
			}
			n.changed = true
			n.lightf(v, "an enum of scalars on an array applies to its items")
		}
	}
}

// lightf warns about a field-spec convention, unless the whole document is
// a direct map (one warning says so already).
func (n *normalizer) lightf(v *jvalue, format string, args ...any) {
	if !n.directMap {
		n.warnf(v, format, args...)
	}
}

// hoistRequired moves boolean "required" members of property schemas into
// the parent's "required" list, in property order.
func (n *normalizer) hoistRequired(v, props *jvalue) {
	var names []string
	for _, pm := range props.members {
		if pm.val.kind != jObject {
			continue
		}
		r := pm.val.get("required")
		if r == nil || r.kind != jBool {
			continue
		}
		pm.val.remove("required")
		n.changed = true
		n.lightf(pm.val, `a boolean "required" in a property is not JSON Schema; listed in the parent's "required"`)
		if r.b {
			names = append(names, pm.key)
		}
	}
	if len(names) == 0 {
		return
	}
	req := v.get("required")
	if req == nil || req.kind != jArray {
		req = &jvalue{kind: jArray}
		i := v.index("properties")
		v.members = slices.Insert(v.members, i+1, &jmember{key: "required", val: req})
	}
	for _, name := range names {
		if !slices.ContainsFunc(req.elems, func(e *jvalue) bool { return e.kind == jString && e.str == name }) {
			req.elems = append(req.elems, newString(name))
		}
	}
}

// isArray wraps a field spec marked "isArray": true into an array schema
// whose items are the spec; annotations describe the array.
func (n *normalizer) isArray(v *jvalue) *jvalue {
	flag := v.get("isArray")
	if flag == nil || flag.kind != jBool {
		return v
	}
	v.remove("isArray")
	n.changed = true
	if !flag.b {
		return v
	}
	n.lightf(v, `"isArray" is not JSON Schema; read as an array of the field`)
	t := v.get("type")
	if t != nil && t.kind == jString && t.str == "array" {
		return v
	}
	if items := v.get("items"); items != nil && (items.kind == jObject || items.kind == jBool) {
		// items names the element; the spec is the array.
		if t != nil {
			v.set("type", newString("array"))
		} else {
			v.members = slices.Insert(v.members, 0, &jmember{key: "type", val: newString("array")})
		}
		return v
	}
	w := &jvalue{kind: jObject, members: []*jmember{{key: "type", val: newString("array")}}}
	kept := v.members[:0]
	for _, m := range v.members {
		if annotationKeyword(m.key) {
			w.members = append(w.members, m)
			continue
		}
		kept = append(kept, m)
	}
	v.members = kept
	w.members = append(w.members, &jmember{key: "items", val: v})
	return w
}

// refSiblings applies the "$ref" sibling rule of the dialect.
func (n *normalizer) refSiblings(v *jvalue, d Dialect) {
	ri := v.index("$ref")
	if ri < 0 {
		return
	}
	if d <= Draft07 {
		var dropped []string
		var moved []*jvalue
		kept := v.members[:0]
		for _, m := range v.members {
			if oldRefKeeps(m.key) {
				kept = append(kept, m)
				continue
			}
			dropped = append(dropped, m.key)
			moved = append(moved, n.targetsIn(m.val)...)
		}
		if len(dropped) == 0 {
			return
		}
		v.members = kept
		n.changed = true
		n.warnf(v, "$ref with sibling keywords in draft-07 or earlier: the siblings are ignored, removed: %s", strings.Join(dropped, ", "))
		if len(moved) > 0 {
			// Keep what other refs point into, under $defs.
			defs := v.get("$defs")
			if defs == nil || defs.kind != jObject {
				defs = &jvalue{kind: jObject}
				v.members = append(v.members, &jmember{key: "$defs", val: defs})
			}
			for _, t := range moved {
				name := "mcpbind-ref-target"
				for k := 2; defs.get(name) != nil; k++ {
					name = "mcpbind-ref-target-" + strconv.Itoa(k)
				}
				defs.members = append(defs.members, &jmember{key: name, val: t})
				n.warnf(t, "a $ref points here, inside a removed sibling of $ref; kept as $defs/%s", name)
			}
		}
		return
	}
	var moving []*jmember
	rest := make([]*jmember, 0, len(v.members))
	for _, m := range v.members {
		if refMovingKeyword(m.key) {
			moving = append(moving, m)
			continue
		}
		rest = append(rest, m)
	}
	if len(moving) == 0 {
		return
	}
	refMember := v.members[ri]
	allOf := &jvalue{kind: jArray, elems: []*jvalue{
		{kind: jObject, members: []*jmember{refMember}},
		{kind: jObject, members: moving},
	}}
	ri = slices.Index(rest, refMember)
	rest[ri] = &jmember{key: "allOf", val: allOf}
	v.members = rest
	n.changed = true
}

// targetsIn returns the outermost ref targets inside v (v included).
func (n *normalizer) targetsIn(v *jvalue) []*jvalue {
	if n.targets[v] {
		return []*jvalue{v}
	}
	var out []*jvalue
	for _, m := range v.members {
		out = append(out, n.targetsIn(m.val)...)
	}
	for _, e := range v.elems {
		out = append(out, n.targetsIn(e)...)
	}
	return out
}

// relocateRefs rewrites the JSON pointer of every "$ref" whose target
// moved relative to the resource it starts from.
func (n *normalizer) relocateRefs(root *jvalue) {
	now := indexPointers(root)
	for _, r := range n.refs {
		if _, live := now[r.str]; !live || r.target == nil {
			continue // removed with its schema, or not a pointer into the document
		}
		tp, ok1 := now.pointer(r.target)
		rp, ok2 := now.pointer(r.resource)
		if !ok1 || !ok2 {
			n.warnf(r.str, "the target of $ref %q was removed", r.str.str)
			continue
		}
		if !strings.HasPrefix(tp, rp) {
			n.warnf(r.str, "the target of $ref %q moved out of its resource", r.str.str)
			continue
		}
		rel := strings.TrimPrefix(tp, rp)
		if rel == r.ptr {
			continue
		}
		frag := (&url.URL{Fragment: rel}).EscapedFragment()
		r.str.setString(r.prefix + "#" + frag)
		n.changed = true
	}
}

// isDirectMap reports whether the root object is the lightweight "direct
// map" shape: every member is a field spec (an object whose "type" is one
// of fieldSpecTypes), and no member is a JSON Schema keyword that holds a
// schema, unless some spec uses a convention only field specs have.
func isDirectMap(root *jvalue) bool {
	if len(root.members) == 0 {
		return false
	}
	marker, keyword := false, false
	for _, m := range root.members {
		spec := m.val
		if spec.kind != jObject {
			return false
		}
		t := spec.get("type")
		if t == nil || t.kind != jString || !fieldSpecType(t.str) {
			return false
		}
		if t.str == "float" || t.str == "enum" || spec.get("isArray") != nil || spec.get("values") != nil {
			marker = true
		}
		if r := spec.get("required"); r != nil && r.kind == jBool {
			marker = true
		}
		if SingleKeyword(m.key) || MapKeyword(m.key) {
			keyword = true
		}
	}
	return marker || !keyword
}

// directMapToSchema wraps a direct map into {"type": "object",
// "properties": …}; the field-spec rules then rewrite each property.
func directMapToSchema(root *jvalue) *jvalue {
	props := &jvalue{kind: jObject, members: root.members}
	return &jvalue{kind: jObject, members: []*jmember{
		{key: "type", val: newString("object")},
		{key: "properties", val: props},
	}}
}

// pointerIndex gives each value below a root its JSON pointer. It keeps,
// per value, only its parent and the reference token that leads to it, and
// writes a pointer out when asked: storing every value's pointer would take
// memory quadratic in the nesting depth.
type pointerIndex map[*jvalue]pointerStep

// pointerStep is where a value sits: its parent (nil for the root) and its
// unescaped reference token there.
type pointerStep struct {
	parent *jvalue
	token  string
}

// indexPointers indexes every value below root (root included).
func indexPointers(root *jvalue) pointerIndex {
	into := pointerIndex{}
	var walk func(v, parent *jvalue, token string)
	walk = func(v, parent *jvalue, token string) {
		into[v] = pointerStep{parent: parent, token: token}
		for _, m := range v.members {
			walk(m.val, v, m.key)
		}
		for i, e := range v.elems {
			walk(e, v, strconv.Itoa(i))
		}
	}
	walk(root, nil, "")
	return into
}

// pointer returns v's JSON pointer ("" for the root), and false when v is
// not below the indexed root.
func (ix pointerIndex) pointer(v *jvalue) (string, bool) {
	var tokens []string
	for {
		step, ok := ix[v]
		if !ok {
			return "", false
		}
		if step.parent == nil {
			break
		}
		tokens = append(tokens, step.token)
		v = step.parent
	}
	slices.Reverse(tokens)
	return jsonpointer.Append("", tokens...), true
}

// rankValues numbers the values below v in document order.
func rankValues(v *jvalue, into map[*jvalue]int) {
	into[v] = len(into)
	for _, m := range v.members {
		rankValues(m.val, into)
	}
	for _, e := range v.elems {
		rankValues(e, into)
	}
}

// The ordered JSON tree Normalize works on. Leaves keep their source bytes
// until a rule changes them; objects keep their member order.

type jkind uint8

const (
	jNull jkind = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

type jvalue struct {
	kind    jkind
	raw     []byte // the source bytes of a leaf
	str     string // the decoded string (jString)
	b       bool   // jBool
	elems   []*jvalue
	members []*jmember
}

type jmember struct {
	key    string
	rawKey []byte // the key's source bytes, quotes included
	val    *jvalue
}

func newString(s string) *jvalue {
	v := &jvalue{kind: jString}
	v.setString(s)
	return v
}

func (v *jvalue) setString(s string) {
	v.kind, v.str, v.raw = jString, s, quoteJSON(s)
}

func (v *jvalue) index(key string) int {
	if v.kind != jObject {
		return -1
	}
	return slices.IndexFunc(v.members, func(m *jmember) bool { return m.key == key })
}

func (v *jvalue) get(key string) *jvalue {
	if i := v.index(key); i >= 0 {
		return v.members[i].val
	}
	return nil
}

// set replaces the value of key in place, or appends the member.
func (v *jvalue) set(key string, val *jvalue) {
	if i := v.index(key); i >= 0 {
		v.members[i].val = val
		return
	}
	v.members = append(v.members, &jmember{key: key, val: val})
}

func (v *jvalue) remove(key string) {
	if i := v.index(key); i >= 0 {
		v.members = slices.Delete(v.members, i, i+1)
	}
}

// rename changes a member's key in place.
func (v *jvalue) rename(from, to string) {
	if i := v.index(from); i >= 0 {
		v.members[i].key, v.members[i].rawKey = to, nil
	}
}

// at follows a JSON pointer from v ("" is v itself).
func (v *jvalue) at(ptr string) *jvalue {
	if ptr == "" {
		return v
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil
	}
	cur := v
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = jsonpointer.Unescape(tok)
		switch cur.kind {
		case jObject:
			next := cur.get(tok)
			if next == nil {
				return nil
			}
			cur = next
		case jArray:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(cur.elems) || strconv.Itoa(i) != tok {
				return nil
			}
			cur = cur.elems[i]
		default:
			return nil
		}
	}
	return cur
}

func (v *jvalue) encode(buf *bytes.Buffer) {
	switch v.kind {
	case jObject:
		buf.WriteByte('{')
		for i, m := range v.members {
			if i > 0 {
				buf.WriteByte(',')
			}
			m.encodeKey(buf)
			m.val.encode(buf)
		}
		buf.WriteByte('}')
	case jArray:
		buf.WriteByte('[')
		for i, e := range v.elems {
			if i > 0 {
				buf.WriteByte(',')
			}
			e.encode(buf)
		}
		buf.WriteByte(']')
	default:
		buf.Write(v.raw)
	}
}

// encodeKey writes the member's key and the colon after it.
func (m *jmember) encodeKey(buf *bytes.Buffer) {
	if m.rawKey != nil {
		buf.Write(m.rawKey)
	} else {
		buf.Write(quoteJSON(m.key))
	}
	buf.WriteByte(':')
}

// quoteJSON encodes s as a JSON string, escaping like encoding/json but
// leaving <, > and & as they are.
func quoteJSON(s string) []byte {
	const hex = "0123456789abcdef"
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// jparser reads a JSON text already checked by json.Valid into a jvalue
// tree, keeping each leaf's bytes.
type jparser struct {
	data []byte
	pos  int
}

// maxDepth bounds nesting, so a hostile schema cannot exhaust the stack.
const maxDepth = 10000

func (p *jparser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *jparser) value(depth int) (*jvalue, error) {
	if depth > maxDepth {
		return nil, errors.New("the schema is nested too deeply")
	}
	p.skipSpace()
	switch c := p.data[p.pos]; {
	case c == '{':
		p.pos++
		v := &jvalue{kind: jObject}
		seen := map[string]bool{}
		for {
			p.skipSpace()
			if p.data[p.pos] == '}' {
				p.pos++
				return v, nil
			}
			if p.data[p.pos] == ',' {
				p.pos++
				p.skipSpace()
			}
			start := p.pos
			p.skipString()
			rawKey := p.data[start:p.pos]
			var key string
			if err := json.Unmarshal(rawKey, &key); err != nil {
				return nil, err
			}
			if seen[key] {
				return nil, fmt.Errorf("duplicate key %q", key)
			}
			seen[key] = true
			p.skipSpace()
			p.pos++ // ':'
			val, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			v.members = append(v.members, &jmember{key: key, rawKey: rawKey, val: val})
		}
	case c == '[':
		p.pos++
		v := &jvalue{kind: jArray}
		for {
			p.skipSpace()
			if p.data[p.pos] == ']' {
				p.pos++
				return v, nil
			}
			if p.data[p.pos] == ',' {
				p.pos++
			}
			e, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			v.elems = append(v.elems, e)
		}
	case c == '"':
		start := p.pos
		p.skipString()
		v := &jvalue{kind: jString, raw: p.data[start:p.pos]}
		if err := json.Unmarshal(v.raw, &v.str); err != nil {
			return nil, err
		}
		return v, nil
	case c == 't':
		p.pos += 4
		return &jvalue{kind: jBool, b: true, raw: []byte("true")}, nil
	case c == 'f':
		p.pos += 5
		return &jvalue{kind: jBool, raw: []byte("false")}, nil
	case c == 'n':
		p.pos += 4
		return &jvalue{kind: jNull, raw: []byte("null")}, nil
	default:
		start := p.pos
		for p.pos < len(p.data) && strings.IndexByte("+-0123456789.eE", p.data[p.pos]) >= 0 {
			p.pos++
		}
		return &jvalue{kind: jNumber, raw: p.data[start:p.pos]}, nil
	}
}

// skipString moves past the string literal at p.pos.
func (p *jparser) skipString() {
	p.pos++ // opening quote
	for p.data[p.pos] != '"' {
		if p.data[p.pos] == '\\' {
			p.pos++
		}
		p.pos++
	}
	p.pos++
}
