package ir

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// document is one JSON Schema document (a tool's inputSchema or
// outputSchema) as the server sent it. Sub-schemas are addressed by JSON
// pointer (RFC 6901) from the document root, so $ref targets, generated type
// names and error messages all speak the same coordinates.
type document struct {
	raw   json.RawMessage
	nodes map[string]*node
}

// node is one sub-schema: its keywords decoded by google/jsonschema-go, the
// raw bytes, and the order of its "properties" keys (which becomes struct
// field order; Go maps would lose it).
type node struct {
	ptr       string
	raw       json.RawMessage
	s         *jsonschema.Schema
	propOrder []string
	boolean   *bool // set for the boolean schemas true and false
}

func newDocument(raw json.RawMessage) *document {
	return &document{raw: raw, nodes: map[string]*node{}}
}

// at returns the sub-schema at the JSON pointer ptr ("" is the root).
func (d *document) at(ptr string) (*node, error) {
	if n, ok := d.nodes[ptr]; ok {
		return n, nil
	}
	raw, err := lookup(d.raw, ptr)
	if err != nil {
		return nil, err
	}
	n, err := parseNode(ptr, raw)
	if err != nil {
		return nil, err
	}
	d.nodes[ptr] = n
	return n, nil
}

func parseNode(ptr string, raw json.RawMessage) (*node, error) {
	n := &node{ptr: ptr, raw: raw}
	trimmed := bytes.TrimSpace(raw)
	switch string(trimmed) {
	case "true", "false":
		b := string(trimmed) == "true"
		n.boolean = &b
		n.s = &jsonschema.Schema{}
		return n, nil
	}
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, fmt.Errorf("a schema must be an object or a boolean, got %s", abbreviate(trimmed))
	}
	n.s = new(jsonschema.Schema)
	if err := json.Unmarshal(raw, n.s); err != nil {
		return nil, fmt.Errorf("invalid schema: %v", err)
	}
	order, err := objectKeys(raw, "properties")
	if err != nil {
		return nil, err
	}
	n.propOrder = order
	return n, nil
}

// child returns the pointer of a sub-schema below n: child(n, "properties", "id").
func child(ptr string, tokens ...string) string {
	var b strings.Builder
	b.WriteString(ptr)
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escapePointer(t))
	}
	return b.String()
}

func escapePointer(token string) string {
	return strings.ReplaceAll(strings.ReplaceAll(token, "~", "~0"), "/", "~1")
}

func unescapePointer(token string) string {
	return strings.ReplaceAll(strings.ReplaceAll(token, "~1", "/"), "~0", "~")
}

// lookup walks a JSON value along a JSON pointer.
func lookup(raw json.RawMessage, ptr string) (json.RawMessage, error) {
	if ptr == "" {
		return raw, nil
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, fmt.Errorf("JSON pointer %q does not start with /", ptr)
	}
	cur := raw
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = unescapePointer(tok)
		trimmed := bytes.TrimSpace(cur)
		switch {
		case len(trimmed) > 0 && trimmed[0] == '{':
			var m map[string]json.RawMessage
			if err := json.Unmarshal(trimmed, &m); err != nil {
				return nil, err
			}
			next, ok := m[tok]
			if !ok {
				return nil, fmt.Errorf("no %q at %s", tok, ptr)
			}
			cur = next
		case len(trimmed) > 0 && trimmed[0] == '[':
			var a []json.RawMessage
			if err := json.Unmarshal(trimmed, &a); err != nil {
				return nil, err
			}
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(a) {
				return nil, fmt.Errorf("no index %q at %s", tok, ptr)
			}
			cur = a[i]
		default:
			return nil, fmt.Errorf("cannot descend into %s at %s", abbreviate(trimmed), ptr)
		}
	}
	return cur, nil
}

// objectKeys returns the keys of the object member key of raw, in document
// order (nil when absent or not an object).
func objectKeys(raw json.RawMessage, key string) ([]string, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	member, ok := m[key]
	if !ok {
		return nil, nil
	}
	return keysInOrder(member)
}

// keysInOrder lists the keys of a JSON object in the order they appear.
func keysInOrder(raw json.RawMessage) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

func abbreviate(b []byte) string {
	const max = 60
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}
