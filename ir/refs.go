package ir

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
)

// idIndex maps the resources of one schema document to JSON pointers: every
// "$id" (resolved against the enclosing base URI) and every "$anchor"
// (as base#anchor). $ref values are resolved against the base URI in force
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

// keywords whose values are data, not schemas: never scanned for $id.
var dataKeywords = map[string]bool{"const": true, "enum": true, "examples": true, "default": true}

func buildIDIndex(raw json.RawMessage) *idIndex {
	idx := &idIndex{bases: map[string]*url.URL{}, targets: map[string]string{}}
	base, _ := url.Parse(rootBase)
	idx.targets[rootBase] = ""
	idx.walk(raw, "", base)
	return idx
}

func (idx *idIndex) walk(raw json.RawMessage, ptr string, base *url.URL) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 {
		return
	}
	switch trimmed[0] {
	case '{':
		var m map[string]json.RawMessage
		if json.Unmarshal(trimmed, &m) != nil {
			return
		}
		var id string
		if v, ok := m["$id"]; ok && json.Unmarshal(v, &id) == nil && id != "" {
			if u, err := base.Parse(id); err == nil {
				u.Fragment = ""
				base = u
				idx.targets[u.String()] = ptr
			}
		}
		idx.bases[ptr] = base
		var anchor string
		if v, ok := m["$anchor"]; ok && json.Unmarshal(v, &anchor) == nil && anchor != "" {
			a := *base
			a.Fragment = anchor
			idx.targets[a.String()] = ptr
		}
		for k, v := range m {
			if dataKeywords[k] {
				continue
			}
			idx.walk(v, child(ptr, k), base)
		}
	case '[':
		var a []json.RawMessage
		if json.Unmarshal(trimmed, &a) != nil {
			return
		}
		for i, v := range a {
			idx.walk(v, child(ptr, strconv.Itoa(i)), base)
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
