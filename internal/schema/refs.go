package schema

import (
	"github.com/mcpbind/mcpbind/internal/jsonpointer"
	"net/url"
	"strconv"
	"strings"
)

// idIndex maps the resources of one schema document to JSON pointers: every
// "$id" (resolved against the enclosing base URI) and every "$anchor" or
// "$dynamicAnchor" (as base#anchor; the first one of a name wins). $ref values are resolved against the base URI in force
// at the referring schema, so "#foo", "item.json" and
// "item.json#/properties/x" all find their target without fetching.
type idIndex struct {
	// bases maps a schema's JSON pointer to its base URI.
	bases map[string]*url.URL
	// targets maps an absolute URI (without fragment, or base#anchor) to
	// the pointer of the schema it names.
	targets map[string]string
}

// root is the base URI of a document without "$id".
const rootBase = "mcpbind:///schema.json"

func buildIDIndex(root *jvalue) *idIndex {
	idx := &idIndex{bases: map[string]*url.URL{}, targets: map[string]string{}}
	base, _ := url.Parse(rootBase)
	idx.targets[rootBase] = ""
	if root != nil {
		idx.walk(root, "", base)
	}
	return idx
}

// walk visits each value below v once.
func (idx *idIndex) walk(v *jvalue, ptr string, base *url.URL) {
	switch v.kind {
	case jObject:
		if id := v.get("$id"); id != nil && id.kind == jString && id.str != "" {
			if u, err := base.Parse(id.str); err == nil {
				u.Fragment = ""
				base = u
				idx.targets[u.String()] = ptr
			}
		}
		idx.bases[ptr] = base
		for _, kw := range []string{"$anchor", "$dynamicAnchor"} {
			if anchor := v.get(kw); anchor != nil && anchor.kind == jString && anchor.str != "" {
				a := *base
				a.Fragment = anchor.str
				if _, taken := idx.targets[a.String()]; !taken {
					idx.targets[a.String()] = ptr
				}
			}
		}
		for _, m := range v.members {
			if DataKeyword(m.key) {
				continue
			}
			idx.walk(m.val, jsonpointer.Append(ptr, m.key), base)
		}
	case jArray:
		for i, e := range v.elems {
			idx.walk(e, jsonpointer.Append(ptr, strconv.Itoa(i)), base)
		}
	}
}

// resolve returns the JSON pointer a $ref written at the schema ptr names,
// or ok=false when it points outside the document.
func (idx *idIndex) resolve(ptr, ref string) (string, bool) {
	base := idx.bases[ptr]
	if base == nil {
		base, _ = url.Parse(rootBase)
	}
	u, err := base.Parse(ref)
	if err != nil {
		return "", false
	}
	frag := u.Fragment
	u.Fragment = ""
	doc, ok := idx.targets[u.String()]
	if !ok {
		return "", false
	}
	switch {
	case frag == "":
		return doc, true
	case strings.HasPrefix(frag, "/"):
		return doc + frag, true
	}
	a := *u
	a.Fragment = frag
	target, ok := idx.targets[a.String()]
	return target, ok
}
