package bindimpl

import (
	"bytes"
	"encoding/json"
	"errors"
)

// jsonKind returns the kind of the JSON value in data: "object", "array",
// "string", "number", "boolean" or "null", or "" when data is not JSON.
// Unions described by UnionByKind pick their variant with it.
func jsonKind(data []byte) string {
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

// marshalTagged encodes v, which must encode as a JSON object, with the
// property tag set to tagValue (compact JSON) as its first member.
// Tagged unions (UnionByTag) use it: their variant structs leave the tag
// out, so a caller cannot set a wrong one.
func marshalTagged(tag, tagValue string, v any) ([]byte, error) {
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
