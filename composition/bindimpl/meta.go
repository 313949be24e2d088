package bindimpl

import (
	"encoding/json"
	"slices"
)

// Meta is the _meta object of an MCP request's params (MCP specification,
// basic protocol, "_meta"): each key with its JSON value exactly as sent
// or as it will be sent. Client interceptors add entries to a call's
// request (composition.Call.Request); a served tool's interceptors and
// handlers read the ones a client sent (ServerCall.Meta).
//
// Its Get, Set and Keys methods are those of OpenTelemetry's
// propagation.TextMapCarrier, so a propagator injects trace context
// (traceparent, tracestate, baggage: unprefixed keys, as SEP-414 and the
// OpenTelemetry MCP semantic conventions say) straight into it, without
// this package importing OpenTelemetry.
type Meta map[string]json.RawMessage

// Get returns the value of key when it is a JSON string, else "" (absent,
// or not a string).
func (m Meta) Get(key string) string {
	raw, ok := m[key]
	if !ok || len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// Set sets key to value, as a JSON string. m must not be nil.
func (m Meta) Set(key, value string) {
	b, _ := json.Marshal(value) // a string always encodes
	m[key] = b
}

// Keys returns the keys of m, sorted.
func (m Meta) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
