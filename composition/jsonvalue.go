package composition

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// JSONKind returns the kind of the JSON value in data: "object", "array",
// "string", "number", "boolean" or "null", or "" when data is not JSON.
// Generated union types use it to pick a variant by JSON kind.
func JSONKind(data []byte) string {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return ""
	}
	switch c := data[0]; {
	case c == '{':
		return "object"
	case c == '[':
		return "array"
	case c == '"':
		return "string"
	case c == 't' || c == 'f':
		return "boolean"
	case c == 'n':
		return "null"
	case c == '-' || (c >= '0' && c <= '9'):
		return "number"
	}
	return ""
}

// UnionTag returns the value of the property tag of the JSON object in
// data, as compact JSON (`"circle"`, `3`). Generated tagged unions use it to
// pick a variant. It fails when data is not an object or lacks the property.
func UnionTag(data []byte, tag string) (string, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return "", fmt.Errorf("want a JSON object with a %q property: %w", tag, err)
	}
	v, ok := fields[tag]
	if !ok {
		return "", fmt.Errorf("the object has no %q property", tag)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, v); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// MarshalTagged encodes v, which must encode as a JSON object, with the
// property tag set to tagValue (compact JSON) as its first member.
// Generated tagged unions use it: their variant structs leave the tag out,
// so a caller cannot set a wrong one.
func MarshalTagged(tag, tagValue string, v any) ([]byte, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	body = bytes.TrimSpace(body)
	if len(body) < 2 || body[0] != '{' {
		return nil, errors.New("a tagged union variant must encode as a JSON object")
	}
	key, err := json.Marshal(tag)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteByte('{')
	b.Write(key)
	b.WriteByte(':')
	b.WriteString(tagValue)
	if rest := bytes.TrimSpace(body[1:]); len(rest) > 0 && rest[0] != '}' {
		b.WriteByte(',')
	}
	b.Write(body[1:])
	return b.Bytes(), nil
}

// ObjectHas returns the set of property names of the JSON object in data.
// Generated unions whose variants are told apart by a required property
// use it. It fails when data is not an object.
func ObjectHas(data []byte) (map[string]bool, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil || fields == nil {
		return nil, fmt.Errorf("want a JSON object, got %s", abbreviateJSON(data))
	}
	has := make(map[string]bool, len(fields))
	for k := range fields {
		has[k] = true
	}
	return has, nil
}
