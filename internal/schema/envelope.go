// This file holds the JSON Schema side of the {"result": v} envelopes of
// SEP-2106: recognising an envelope, taking its inner schema out, and
// building the envelope the TypeScript SDK v2 advertises before 2026-07-28.

package schema

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/mcpbind/mcpbind/internal/rawjson"
)

// Wrap returns the envelope schema
// {"type":"object","properties":{"result":S},"required":["result"]} of the
// natural schema S, with S's same-document $refs re-pointed under
// #/properties/result, as the TypeScript SDK v2 lists a tool whose output
// schema root is not a plain "type":"object" schema to clients before
// 2026-07-28. It fails when schema is not JSON.
func Wrap(schema json.RawMessage) (json.RawMessage, error) {
	inner, err := RewriteRefs(schema, Repoint)
	if err != nil {
		return nil, err
	}
	return rawjson.Object([]rawjson.Member{
		{Key: "type", Value: json.RawMessage(`"object"`)},
		{Key: "properties", Value: json.RawMessage(`{"result":` + string(inner) + `}`)},
		{Key: "required", Value: json.RawMessage(`["result"]`)},
	})
}

// compactRaw returns raw without insignificant whitespace (raw itself when
// it is not valid JSON).
func compactRaw(raw json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return bytes.Clone(raw)
	}
	return buf.Bytes()
}

// Inner returns the natural schema inside the envelope schema (the
// "result" member of its "properties"), with $refs into
// #/properties/result re-pointed to its root, and the envelope's $schema,
// $defs and definitions (which the Python SDK keeps at the root) added
// when it lacks them. Member order is kept. ok is false when schema has no
// "result" property. Whether schema is an envelope at all is
// Document.Envelope's to say; Inner only takes the text out.
func Inner(schema json.RawMessage) (json.RawMessage, bool) {
	members, err := rawjson.Members(schema)
	if err != nil {
		return nil, false
	}
	props, err := rawjson.Members(rawjson.Get(members, "properties"))
	if err != nil {
		return nil, false
	}
	result := rawjson.Get(props, "result")
	if result == nil {
		return nil, false
	}
	inner, err := RewriteRefs(result, Unpoint)
	if err != nil {
		return nil, false
	}
	innerMembers, err := rawjson.Members(inner)
	if err != nil {
		return inner, true // a boolean schema
	}
	if s := rawjson.Get(members, "$schema"); s != nil && rawjson.Get(innerMembers, "$schema") == nil {
		innerMembers = append([]rawjson.Member{{Key: "$schema", Value: s}}, innerMembers...)
	}
	for _, key := range []string{"$defs", "definitions"} {
		if d := rawjson.Get(members, key); d != nil && rawjson.Get(innerMembers, key) == nil {
			innerMembers = append(innerMembers, rawjson.Member{Key: key, Value: d})
		}
	}
	out, err := rawjson.Object(innerMembers)
	if err != nil {
		return nil, false
	}
	return out, true
}

// Repoint maps a same-document reference of a natural schema to where it
// points once the schema sits under #/properties/result.
func Repoint(ref string) string {
	switch {
	case ref == "#":
		return "#/properties/result"
	case strings.HasPrefix(ref, "#/"):
		return "#/properties/result" + ref[1:]
	}
	return ref
}

// Unpoint undoes Repoint.
func Unpoint(ref string) string {
	const base = "#/properties/result"
	if rest, ok := strings.CutPrefix(ref, base); ok && (rest == "" || rest[0] == '/') {
		return "#" + rest
	}
	return ref
}

// DataKeyword reports whether keyword's value is data, not a subschema
// (never scanned for sub-schemas, "$id" or "$ref").
func DataKeyword(keyword string) bool {
	switch keyword {
	case "const", "enum", "default", "examples":
		return true
	}
	return false
}

// RewriteRefs returns schema with every "$ref" and "$dynamicRef" string
// mapped through f, keeping member order. Like the TypeScript SDK it does
// not look into data keywords (const, enum, default, examples), treats the
// members of properties, $defs and the like as names, and leaves alone a
// subschema whose "$id" sets a new base URI (one not starting with "#").
func RewriteRefs(schema json.RawMessage, f func(string) string) (json.RawMessage, error) {
	return rewriteNode(schema, false, f)
}

func rewriteNode(raw json.RawMessage, nameMap bool, f func(string) string) (json.RawMessage, error) {
	switch rawjson.Kind(raw) {
	case '[':
		var elems []json.RawMessage
		if err := json.Unmarshal(raw, &elems); err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		buf.WriteByte('[')
		for i, e := range elems {
			if i > 0 {
				buf.WriteByte(',')
			}
			re, err := rewriteNode(e, false, f)
			if err != nil {
				return nil, err
			}
			buf.Write(re)
		}
		buf.WriteByte(']')
		return buf.Bytes(), nil
	case '{':
	default:
		return compactRaw(raw), nil
	}
	members, err := rawjson.Members(raw)
	if err != nil {
		return nil, err
	}
	if !nameMap {
		var id string
		if json.Unmarshal(rawjson.Get(members, "$id"), &id) == nil && id != "" && !strings.HasPrefix(id, "#") {
			return compactRaw(raw), nil
		}
	}
	for i, m := range members {
		var v json.RawMessage
		switch {
		case nameMap:
			v, err = rewriteNode(m.Value, false, f)
		case m.Key == "$ref" || m.Key == "$dynamicRef":
			var ref string
			if json.Unmarshal(m.Value, &ref) != nil {
				v = m.Value
				break
			}
			v = rawjson.Key(f(ref))
		case DataKeyword(m.Key):
			v = m.Value
		case MapKeyword(m.Key):
			v, err = rewriteNode(m.Value, true, f)
		default:
			v, err = rewriteNode(m.Value, false, f)
		}
		if err != nil {
			return nil, err
		}
		members[i].Value = v
	}
	return rawjson.Object(members)
}
