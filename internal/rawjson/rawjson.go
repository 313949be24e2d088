// Package rawjson edits JSON objects without decoding them into Go maps:
// members keep their order and their values keep their bytes. The bundle
// and export packages use it where a schema's key order matters (property
// order becomes field order in generated code).
package rawjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Member is one member of a JSON object: its key (unescaped) and its raw
// value, byte for byte as in the source.
type Member struct {
	// Key is the member name.
	Key string
	// Value is the raw JSON value.
	Value json.RawMessage
}

// Members splits a JSON object into its members, in source order. It fails
// when raw is not one JSON object.
func Members(raw json.RawMessage) ([]Member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var out []Member
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := kt.(string)
		if !ok {
			return nil, fmt.Errorf("object key %v is not a string", kt)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, Member{Key: key, Value: v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("data after the JSON object")
	}
	return out, nil
}

// Object writes members as a compact JSON object, in order. Keys are
// encoded without HTML escaping; values are compacted, not re-encoded. It
// fails when a value is not valid JSON.
func Object(members []Member) (json.RawMessage, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(Key(m.Key))
		buf.WriteByte(':')
		if err := json.Compact(&buf, m.Value); err != nil {
			return nil, fmt.Errorf("member %q: %w", m.Key, err)
		}
	}
	buf.WriteByte('}')
	return json.RawMessage(buf.Bytes()), nil
}

// Key returns the JSON string for s, without HTML escaping.
func Key(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// Get returns the value of the first member named key, or nil.
func Get(members []Member, key string) json.RawMessage {
	for _, m := range members {
		if m.Key == key {
			return m.Value
		}
	}
	return nil
}

// Kind returns the JSON kind of raw's first byte after whitespace:
// '{', '[', '"', 't'/'f' (boolean), 'n' (null), or a digit or '-'
// (number); 0 for empty input.
func Kind(raw json.RawMessage) byte {
	t := bytes.TrimLeft(raw, " \t\r\n")
	if len(t) == 0 {
		return 0
	}
	return t[0]
}
