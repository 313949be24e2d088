package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpbind/mcpbind/internal/jsonpointer"
)

// Document is one JSON Schema document (a tool's inputSchema or
// outputSchema) as the server sent it. Sub-schemas are addressed by JSON
// pointer (RFC 6901) from the document root, so $ref targets, generated type
// names and error messages all speak the same coordinates.
//
// The raw JSON is parsed once into an ordered tree; a pointer is resolved
// from its parent's (memoised) value, and each sub-schema is decoded once,
// without its sub-schemas, so typing a document costs time linear in its
// size whatever its depth or width. A Document memoises what it reads, so
// one goroutine uses it at a time.
type Document struct {
	raw  json.RawMessage
	root *jvalue
	// vals memoises the value at each pointer looked up (and at every
	// member of an object or array looked into).
	vals map[string]*jvalue
	// indexed marks the objects and arrays whose members are in vals.
	indexed map[*jvalue]bool
	nodes   map[string]*Node
	err     error // why raw could not be parsed
	// ids indexes "$id" and "$anchor", built on the first $ref followed.
	ids *idIndex
}

// Node is one sub-schema: its keywords decoded by google/jsonschema-go
// (sub-schemas stand in as empty schemas: read them through their own
// pointer), and the order of its "properties" keys (which becomes struct
// field order; Go maps would lose it).
type Node struct {
	// Ptr is the node's JSON pointer from the document root.
	Ptr string
	// S holds the node's own keywords; for a boolean schema, none.
	S *jsonschema.Schema
	// PropOrder lists the keys of "properties" in document order.
	PropOrder []string
	// Boolean is set for the boolean schemas true and false.
	Boolean *bool
}

// Parse returns the document of raw, one JSON Schema (a tool's
// inputSchema or outputSchema, normalized or not). Parsing is lazy and
// happens once: the first Node parses the whole text, later ones read
// the parsed tree. A raw that is not a JSON schema fails at the first
// Node.
func Parse(raw json.RawMessage) *Document {
	return &Document{raw: raw, vals: map[string]*jvalue{}, indexed: map[*jvalue]bool{}, nodes: map[string]*Node{}}
}

// Raw returns the text the document was parsed from.
func (d *Document) Raw() json.RawMessage { return d.raw }

// Node returns the sub-schema at the JSON pointer ptr ("" is the root),
// without following "$ref". It fails when raw is not JSON, when nothing
// is at ptr, or when the value there is not an object or a boolean.
func (d *Document) Node(ptr string) (*Node, error) {
	if n, ok := d.nodes[ptr]; ok {
		return n, nil
	}
	v, err := d.value(ptr)
	if err != nil {
		return nil, err
	}
	n, err := parseNode(ptr, v)
	if err != nil {
		return nil, err
	}
	d.nodes[ptr] = n
	return n, nil
}

// value returns the JSON value at ptr, parsing the document on first use.
func (d *Document) value(ptr string) (*jvalue, error) {
	if v, ok := d.vals[ptr]; ok {
		return v, nil
	}
	if ptr == "" {
		if d.root == nil && d.err == nil {
			d.root, d.err = parseTree(d.raw)
		}
		if d.err != nil {
			return nil, d.err
		}
		d.vals[""] = d.root
		return d.root, nil
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, fmt.Errorf("JSON pointer %q does not start with /", ptr)
	}
	i := strings.LastIndexByte(ptr, '/')
	parent, err := d.value(ptr[:i])
	if err != nil {
		return nil, err
	}
	if !d.indexed[parent] {
		d.indexed[parent] = true
		for _, m := range parent.members {
			d.vals[ptr[:i]+"/"+jsonpointer.Escape(m.key)] = m.val
		}
		for j, e := range parent.elems {
			d.vals[ptr[:i]+"/"+strconv.Itoa(j)] = e
		}
		if v, ok := d.vals[ptr]; ok {
			return v, nil
		}
	}
	// Not found under its canonical spelling: say why.
	tok := jsonpointer.Unescape(ptr[i+1:])
	switch parent.kind {
	case jObject:
		if v := parent.get(tok); v != nil {
			return v, nil
		}
		return nil, fmt.Errorf("no %q at %s", tok, ptr)
	case jArray:
		if j, err := strconv.Atoi(tok); err == nil && j >= 0 && j < len(parent.elems) {
			return parent.elems[j], nil
		}
		return nil, fmt.Errorf("no index %q at %s", tok, ptr)
	}
	var buf bytes.Buffer
	parent.encode(&buf)
	return nil, fmt.Errorf("cannot descend into %s at %s", abbreviate(buf.Bytes()), ptr)
}

// parseTree parses a whole JSON text into an ordered tree.
func parseTree(raw json.RawMessage) (*jvalue, error) {
	trimmed := bytes.TrimSpace(raw)
	if !json.Valid(trimmed) {
		return nil, errors.New("the schema is not valid JSON")
	}
	p := &jparser{data: trimmed}
	return p.value(0)
}

func parseNode(ptr string, v *jvalue) (*Node, error) {
	n := &Node{Ptr: ptr}
	switch v.kind {
	case jBool:
		b := v.b
		n.Boolean = &b
		n.S = &jsonschema.Schema{}
		return n, nil
	case jObject:
	default:
		var buf bytes.Buffer
		v.encode(&buf)
		return nil, fmt.Errorf("a schema must be an object or a boolean, got %s", abbreviate(buf.Bytes()))
	}
	var buf bytes.Buffer
	encodeShallow(v, &buf)
	n.S = new(jsonschema.Schema)
	if err := json.Unmarshal(buf.Bytes(), n.S); err != nil {
		return nil, fmt.Errorf("invalid schema: %v", err)
	}
	if props := v.get("properties"); props != nil && props.kind == jObject {
		n.PropOrder = make([]string, len(props.members))
		for i, m := range props.members {
			n.PropOrder[i] = m.key
		}
	}
	return n, nil
}

// encodeShallow writes the schema object v with each sub-schema object in
// a schema position replaced by {}: what decoding one node needs, in time
// proportional to the node's own keywords rather than its whole subtree.
func encodeShallow(v *jvalue, buf *bytes.Buffer) {
	stub := func(e *jvalue) {
		if e.kind == jObject {
			buf.WriteString("{}")
		} else {
			e.encode(buf)
		}
	}
	buf.WriteByte('{')
	for i, m := range v.members {
		if i > 0 {
			buf.WriteByte(',')
		}
		m.encodeKey(buf)
		switch {
		case SingleKeyword(m.key) && m.val.kind == jObject:
			buf.WriteString("{}")
		case ArrayKeyword(m.key) && m.val.kind == jArray:
			buf.WriteByte('[')
			for j, e := range m.val.elems {
				if j > 0 {
					buf.WriteByte(',')
				}
				stub(e)
			}
			buf.WriteByte(']')
		case MapKeyword(m.key) && m.val.kind == jObject:
			buf.WriteByte('{')
			for j, pm := range m.val.members {
				if j > 0 {
					buf.WriteByte(',')
				}
				pm.encodeKey(buf)
				stub(pm.val)
			}
			buf.WriteByte('}')
		default:
			m.val.encode(buf)
		}
	}
	buf.WriteByte('}')
}

func abbreviate(b []byte) string {
	const max = 60
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}
