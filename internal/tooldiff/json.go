package tooldiff

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpbind/mcpbind/internal/jsonpointer"
)

// object is a decoded JSON object that keeps its key order (schema
// property order is the order findings are reported in). Decoded values are
// nil, bool, json.Number, string, []any and *object.
type object struct {
	keys []string
	vals map[string]any
}

// get returns the member key.
func (o *object) get(key string) (any, bool) {
	v, ok := o.vals[key]
	return v, ok
}

// decodeJSON decodes one JSON value, keeping object key order and numbers
// as written. A duplicate key keeps its first position and its last value,
// as encoding/json does.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("trailing data after the JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil
	}
	switch d {
	case '{':
		o := &object{vals: map[string]any{}}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k, _ := kt.(string)
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			if _, dup := o.vals[k]; !dup {
				o.keys = append(o.keys, k)
			}
			o.vals[k] = v
		}
		_, err := dec.Token()
		return o, err
	case '[':
		a := []any{}
		for dec.More() {
			v, err := decodeValue(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := dec.Token()
		return a, err
	}
	return nil, fmt.Errorf("unexpected %v", d)
}

// encodeJSON returns the compact JSON of a decoded value, in its key order.
func encodeJSON(v any) json.RawMessage {
	var b bytes.Buffer
	writeJSON(&b, v, false)
	return b.Bytes()
}

// canonical returns a key for a decoded value under which equal JSON values
// are equal: object keys sorted, numbers normalized (1, 1.0 and 1e0 are one
// number).
func canonical(v any) string {
	var b bytes.Buffer
	writeJSON(&b, v, true)
	return b.String()
}

func writeJSON(b *bytes.Buffer, v any, canon bool) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case json.Number:
		if canon {
			if r, ok := new(big.Rat).SetString(string(x)); ok {
				if r.IsInt() {
					b.WriteString(r.Num().String())
				} else {
					b.WriteString(r.RatString())
				}
				return
			}
		}
		b.WriteString(string(x))
	case string:
		q, _ := json.Marshal(x)
		b.Write(q)
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, e, canon)
		}
		b.WriteByte(']')
	case *object:
		keys := x.keys
		if canon {
			keys = slices.Sorted(slices.Values(keys))
		}
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			q, _ := json.Marshal(k)
			b.Write(q)
			b.WriteByte(':')
			writeJSON(b, x.vals[k], canon)
		}
		b.WriteByte('}')
	}
}

// display returns a short JSON rendering of v for messages.
func display(v any) string {
	s := string(encodeJSON(v))
	const max = 60
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}

// jsonKind returns the JSON Schema type of a decoded value: "null",
// "boolean", "integer" (a number without a fractional part), "number",
// "string", "array" or "object".
func jsonKind(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		if r, ok := new(big.Rat).SetString(string(x)); ok && r.IsInt() {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

// rat parses a JSON number.
func rat(v any) (*big.Rat, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, false
	}
	return new(big.Rat).SetString(string(n))
}

// ratString formats a number for messages.
func ratString(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// lookup walks a decoded value along a JSON pointer.
func lookup(root any, ptr string) (any, bool) {
	if ptr == "" {
		return root, true
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, false
	}
	cur := root
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = jsonpointer.Unescape(tok)
		switch x := cur.(type) {
		case *object:
			v, ok := x.vals[tok]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) || strconv.Itoa(i) != tok {
				return nil, false
			}
			cur = x[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// valueDiff lists the leaf-level differences between two decoded values
// below ptr: objects are compared member by member, anything else as a
// whole. A nil old or new entry means the member is absent on that side.
func valueDiff(old, new any, oldOK, newOK bool, ptr string, out *[]leafChange) {
	oo, oIsObj := old.(*object)
	no, nIsObj := new.(*object)
	if oldOK && newOK && oIsObj && nIsObj {
		for _, k := range no.keys {
			ov, ok := oo.vals[k]
			valueDiff(ov, no.vals[k], ok, true, jsonpointer.Append(ptr, k), out)
		}
		for _, k := range oo.keys {
			if _, ok := no.vals[k]; !ok {
				valueDiff(oo.vals[k], nil, true, false, jsonpointer.Append(ptr, k), out)
			}
		}
		return
	}
	if oldOK == newOK && (!oldOK || canonical(old) == canonical(new)) {
		return
	}
	*out = append(*out, leafChange{ptr: ptr, old: old, new: new, oldOK: oldOK, newOK: newOK})
}

// leafChange is one difference found by valueDiff.
type leafChange struct {
	ptr          string
	old, new     any
	oldOK, newOK bool
}

// jpath is a JSON pointer under construction: a chain of suffixes, so that
// a comparison deep in a schema does not copy its ancestors' pointer at
// every level (that is quadratic in the depth). String writes it out, when
// a change is reported there. The nil *jpath is the root, "".
type jpath struct {
	parent *jpath
	suffix string // pointer text: escaped tokens, each after a '/'
}

// child returns the pointer to the member tokens (unescaped) below p.
func (p *jpath) child(tokens ...string) *jpath {
	return &jpath{parent: p, suffix: jsonpointer.Append("", tokens...)}
}

// plus returns p followed by suffix, already pointer text.
func (p *jpath) plus(suffix string) *jpath {
	if suffix == "" {
		return p
	}
	return &jpath{parent: p, suffix: suffix}
}

// String returns the pointer.
func (p *jpath) String() string {
	n := 0
	for q := p; q != nil; q = q.parent {
		n += len(q.suffix)
	}
	buf := make([]byte, n)
	for q := p; q != nil; q = q.parent {
		n -= len(q.suffix)
		copy(buf[n:], q.suffix)
	}
	return string(buf)
}
