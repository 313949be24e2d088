package bindimpl

import (
	"bytes"
	"encoding/json"
)

// Unwrap applies the envelope rules of SEP-2106 to a tool's
// result value raw (its structuredContent, or the JSON in its text content)
// in a session at protocol version version, for a tool whose natural result
// type is described by o. It returns the value to decode as the natural type,
// and whether it took it out of a {"result": v} envelope.
//
// With onlyResult meaning "raw is a JSON object whose only key is result",
// the value is unwrapped when
//
//	onlyResult && !o.HasResultProperty &&
//	    ((version < ModernProtocolVersion && !o.PlainObject) || !o.CanBeObject || o.AlwaysWraps)
//
// that is: SDKs (TypeScript v2, C#) wrap every non-plain-object result for
// clients before 2026-07-28, even objects and null; some (Python, FastMCP)
// wrap non-object results in every version; and a natural schema with a
// top-level "result" property makes {"result": v} a natural value, never an
// envelope. Otherwise raw is returned as it is. Protocol versions are
// YYYY-MM-DD strings and compare as strings ("" counts as legacy).
//
// Unwrap is pure; composition.Session.Invoke applies it to every result it
// decodes.
func Unwrap(version string, o Output, raw json.RawMessage) (json.RawMessage, bool) {
	if o.HasResultProperty {
		return raw, false
	}
	legacy := version < ModernProtocolVersion
	if !((legacy && !o.PlainObject) || !o.CanBeObject || o.AlwaysWraps) {
		return raw, false
	}
	inner, ok := onlyResult(raw)
	if !ok {
		return raw, false
	}
	return inner, true
}

// WrapResult returns {"result": v}: the envelope a server sends a result
// in toward a client before 2026-07-28 when the tool's natural output
// schema root is not a plain object, or in every era when it always wraps
// (SEP-2106). [Unwrap] takes it off.
func WrapResult(v json.RawMessage) json.RawMessage {
	return append(append(append(make(json.RawMessage, 0, len(v)+len(`{"result":}`)), `{"result":`...), v...), '}')
}

// onlyResult returns v when raw is a JSON object with exactly one member,
// named "result", whose value is v.
func onlyResult(raw json.RawMessage) (json.RawMessage, bool) {
	trimmed := bytes.TrimLeft(raw, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	key, err := dec.Token()
	if err != nil || key != "result" {
		return nil, false
	}
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, false
	}
	if _, err := dec.Token(); err == nil {
		return nil, false // trailing data: not one JSON value
	}
	return v, true
}
