package schema

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/mcpbind/mcpbind/internal/jsonpointer"
)

// PointerError is a problem at one place of a document: a "$ref" that
// cannot be followed, or a sub-schema that cannot be read.
type PointerError struct {
	// Pointer is the JSON pointer of the sub-schema at fault.
	Pointer string
	// Err says what is wrong.
	Err error
}

func (e *PointerError) Error() string { return "#" + e.Pointer + ": " + e.Err.Error() }

func (e *PointerError) Unwrap() error { return e.Err }

// maxRefHops bounds a chain of "$ref"s followed from one sub-schema.
const maxRefHops = 64

// RefTarget returns the pointer that n's "$ref" names inside the
// document, resolved against the "$id" base URIs in force at n and the
// document's "$anchor"s; ok is false when it points outside the document
// (which mcpbind never fetches) or n has no "$ref".
func (d *Document) RefTarget(n *Node) (string, bool) {
	if n.Boolean != nil || n.S.Ref == "" {
		return "", false
	}
	return d.ResolveRef(n.Ptr, n.S.Ref)
}

// ResolveRef returns the pointer that ref, a "$ref" or "$dynamicRef"
// written in the sub-schema at ptr, names inside the document: resolved
// against the "$id" base URIs in force at ptr, a JSON pointer fragment or
// an "$anchor" (or "$dynamicAnchor") name. ok is false when ref points
// outside the document, which mcpbind never fetches. The target is not
// checked to exist.
func (d *Document) ResolveRef(ptr, ref string) (string, bool) {
	if d.ids == nil {
		root, _ := d.value("")
		d.ids = buildIDIndex(root)
	}
	return d.ids.resolve(ptr, ref)
}

// Resolve returns the sub-schema at ptr, following "$ref" chains inside
// the document (at most 64 hops). The error is a *PointerError at the
// sub-schema that could not be read or followed.
func (d *Document) Resolve(ptr string) (*Node, error) {
	n, err := d.Node(ptr)
	if err != nil {
		return nil, &PointerError{Pointer: ptr, Err: err}
	}
	for hops := 0; n.Boolean == nil && n.S.Ref != ""; hops++ {
		if hops >= maxRefHops {
			return nil, &PointerError{Pointer: ptr, Err: fmt.Errorf("$ref chain too long")}
		}
		target, ok := d.RefTarget(n)
		if !ok {
			return nil, &PointerError{Pointer: n.Ptr, Err: fmt.Errorf("$ref %q points outside the schema; mcpbind never fetches schemas", n.S.Ref)}
		}
		next, err := d.Node(target)
		if err != nil {
			return nil, &PointerError{Pointer: n.Ptr, Err: fmt.Errorf("$ref %q: %v", n.S.Ref, err)}
		}
		n = next
	}
	return n, nil
}

// EnvelopeInner is the pointer of the natural schema S inside an envelope
// {"type":"object","properties":{"result":S},"required":["result"]}.
const EnvelopeInner = "/properties/result"

// WrapMarker is the keyword FastMCP sets to true on an outputSchema whose
// values it wraps as {"result": v} in every protocol version.
const WrapMarker = "x-fastmcp-wrap-result"

// Marked reports whether the root carries FastMCP's marker
// ("x-fastmcp-wrap-result": true): the server wraps in every era.
func (d *Document) Marked() bool {
	root, err := d.Node("")
	if err != nil || root.Boolean != nil {
		return false
	}
	v, _ := root.S.Extra[WrapMarker].(bool)
	return v
}

// Envelope is SEP-2106's envelope rule (DESIGN §3), the one place it is
// written: it reports whether the root of this outputSchema is a
// recognised {"result": S} envelope, and returns the pointer of S
// (EnvelopeInner). With evidence (export saw the server wrap this tool's
// results) a root with a "result" property qualifies. Without it the root
// qualifies when it carries "x-fastmcp-wrap-result": true and a "result"
// property, or when it is an object schema ("type" "object" or absent)
// whose only property is "result", listed in "required", and whose
// "result" schema, after "$ref"s, is not a plain "type":"object" schema
// (no SDK wraps one).
func (d *Document) Envelope(evidence bool) (inner string, ok bool) {
	root, err := d.Node("")
	if err != nil || root.Boolean != nil || root.S.Properties["result"] == nil {
		return "", false
	}
	if evidence || d.Marked() {
		return EnvelopeInner, true
	}
	s := root.S
	if len(s.Properties) != 1 || !slices.Contains(s.Required, "result") {
		return "", false
	}
	if s.Type != "object" && (s.Type != "" || len(s.Types) > 0) {
		return "", false
	}
	res, err := d.Resolve(EnvelopeInner)
	if err != nil || res.PlainObject() {
		return "", false
	}
	return EnvelopeInner, true
}

// Listings says how a server lists this outputSchema in each protocol era
// (SEP-2106 as TypeScript SDK v2 servers apply it; DESIGN §8). generate
// decides it once and generated code carries it as data, so the runtime
// never decides it again. d is the normalized document of advertised, the
// outputSchema as the bundle holds it; inner is the pointer Envelope
// returned for it ("" when it is not an envelope); alwaysWraps says the
// server wraps in every era. It returns:
//
//   - modern: the outputSchema listed toward 2026-07-28 sessions when it
//     is not advertised itself, i.e. the natural schema Inner takes out of
//     an envelope (unless the server always wraps, which lists the
//     envelope in both eras); nil otherwise;
//   - legacy: the outputSchema listed toward earlier sessions, which are
//     then answered {"result": v}, when it differs from the modern one: the
//     advertised envelope, or the envelope Wrap builds around a natural
//     schema whose root is neither a plain "type":"object" schema nor has
//     a "result" property; nil when both eras see the same schema.
func (d *Document) Listings(advertised json.RawMessage, inner string, alwaysWraps bool) (modern, legacy json.RawMessage, err error) {
	switch {
	case alwaysWraps:
		return nil, nil, nil
	case inner != "":
		natural, ok := Inner(advertised)
		if !ok {
			natural, ok = Inner(d.raw) // the direct-map shape, an envelope only once normalized
		}
		if !ok {
			return nil, nil, fmt.Errorf("the envelope at %s cannot be taken apart", inner)
		}
		return natural, compactRaw(advertised), nil
	}
	root, err := d.Resolve("")
	if err != nil {
		return nil, nil, err
	}
	if root.PlainObject() || (root.Boolean == nil && root.S.Properties["result"] != nil) {
		return nil, nil, nil
	}
	wrapped, err := Wrap(advertised)
	if err != nil {
		return nil, nil, fmt.Errorf("wrapping it for sessions before 2026-07-28: %w", err)
	}
	return nil, wrapped, nil
}

// PlainObject reports whether n is a plain "type":"object" schema: not
// nullable (type is the string "object"), no anyOf or oneOf. No SDK wraps
// such a result.
func (n *Node) PlainObject() bool {
	return n.Boolean == nil && n.S.Type == "object" && len(n.S.AnyOf) == 0 && len(n.S.OneOf) == 0
}

// maxObjectDepth bounds how deep CanBeObject looks through anyOf/oneOf.
const maxObjectDepth = 32

// CanBeObject reports whether a JSON object can be valid against n, a
// node of d: its type admits "object", some alternative of each anyOf and
// oneOf can be an object (after "$ref"s), and an enum or const lists an
// object. Past 32 levels of alternatives it answers true.
func (d *Document) CanBeObject(n *Node) bool { return d.canBeObject(n, 0) }

func (d *Document) canBeObject(n *Node, depth int) bool {
	if depth > maxObjectDepth {
		return true
	}
	if n.Boolean != nil {
		return *n.Boolean
	}
	s := n.S
	if s.Type != "" || len(s.Types) > 0 {
		if s.Type != "object" && !slices.Contains(s.Types, "object") {
			return false
		}
	}
	for _, kw := range []struct {
		name string
		n    int
	}{{"anyOf", len(s.AnyOf)}, {"oneOf", len(s.OneOf)}} {
		if kw.n == 0 {
			continue
		}
		any := false
		for i := range kw.n {
			v, err := d.Resolve(jsonpointer.Append(n.Ptr, kw.name, strconv.Itoa(i)))
			if err == nil && d.canBeObject(v, depth+1) {
				any = true
			}
		}
		if !any {
			return false
		}
	}
	if s.Enum != nil || s.Const != nil {
		values := s.Enum
		if s.Const != nil {
			values = []any{*s.Const}
		}
		for _, v := range values {
			if _, ok := v.(map[string]any); ok {
				return true
			}
		}
		return false
	}
	return true
}

// Load normalizes raw (Normalize, warnings dropped) and parses it: the
// document every protocol fact is asked of, as ir sees it.
func Load(raw json.RawMessage) (*Document, error) {
	norm, _, err := Normalize(raw)
	if err != nil {
		return nil, err
	}
	return Parse(norm), nil
}

// TooDeep returns the JSON pointer of the first sub-schema nested more
// than max levels deep, in document order, or ok=false when there is none
// (or the document does not parse). A sub-schema is a value in a schema
// position: below a keyword such as properties, items, anyOf or $defs.
// Each value is visited once; the pointer is built only for the schema
// found.
func (d *Document) TooDeep(max int) (ptr string, ok bool) {
	root, err := d.value("")
	if err != nil {
		return "", false
	}
	tokens, ok := deeper(root, 0, max)
	if !ok {
		return "", false
	}
	for i := len(tokens) - 1; i >= 0; i-- {
		ptr = jsonpointer.Append(ptr, tokens[i])
	}
	return ptr, true
}

// deeper walks the schema v at depth; on finding a schema beyond max it
// returns the pointer's tokens, innermost first.
func deeper(v *jvalue, depth, max int) ([]string, bool) {
	if depth > max {
		return []string{}, true
	}
	if v.kind != jObject {
		return nil, false
	}
	isSchema := func(c *jvalue) bool { return c.kind == jObject || c.kind == jBool }
	for _, m := range v.members {
		switch {
		case SingleKeyword(m.key) && isSchema(m.val):
			if t, ok := deeper(m.val, depth+1, max); ok {
				return append(t, m.key), true
			}
		case ArrayKeyword(m.key) && m.val.kind == jArray:
			for i, e := range m.val.elems {
				if t, ok := deeper(e, depth+1, max); ok {
					return append(t, strconv.Itoa(i), m.key), true
				}
			}
		case MapKeyword(m.key) && m.val.kind == jObject:
			for _, pm := range m.val.members {
				if t, ok := deeper(pm.val, depth+1, max); ok {
					return append(t, pm.key, m.key), true
				}
			}
		}
	}
	return nil, false
}
