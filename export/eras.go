package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/internal/protocol"
	"github.com/mcpbind/mcpbind/internal/rawjson"
	"github.com/mcpbind/mcpbind/internal/schema"
)

// ProbeVersion is the protocol version at which to list a server's tools a
// second time to gather envelope evidence (SEP-2106), given the version its
// first session negotiated: the newest legacy version (2025-11-25) after a
// modern session, the first modern one (2026-07-28) after a legacy one.
func ProbeVersion(negotiated string) string {
	if protocol.IsModern(negotiated) {
		return protocol.NewestLegacyVersion
	}
	return protocol.ModernVersion
}

// Era is what one session listed: its protocol version and tools.
type Era struct {
	// Version is the negotiated protocol version.
	Version string
	// Tools are the tools listed at Version.
	Tools []bundle.Tool
}

// CompareEras derives the envelope evidence (SEP-2106) for each tool of
// primary, the era whose tools the bundle keeps, from the tools listed in
// primary and in probe, a session of the same server in the other era. It
// returns the evidence by tool name and warnings about what could not be
// compared.
//
// For a tool listed in both eras: LegacyWraps when the legacy outputSchema
// is {"type":"object","properties":{"result":S},"required":["result"]}
// (optionally with the same "$schema") and S equals the modern outputSchema
// as a JSON value, as it is or with its same-document $refs re-pointed
// under #/properties/result as the TypeScript SDK does. AlwaysWraps when an
// outputSchema carries "x-fastmcp-wrap-result": true, or (without
// LegacyWraps) when the modern outputSchema is an envelope by the one rule
// generate also applies (internal/schema, Document.Envelope: an object
// schema whose only property, required, is "result", whose schema is not a
// plain "type":"object" schema) — a modern server has no other reason to
// send that shape. The natural schema is the modern outputSchema, or the
// inner schema of an envelope the server always sends.
//
// When both sessions are in one era (the server speaks only one), a tool
// gets evidence only when it is conclusive: in the modern era always (no
// legacy wrapping is possible), in the legacy era only with the FastMCP
// marker. Tools without an outputSchema in either era get none.
func CompareEras(primary, probe Era) (map[string]bundle.Evidence, []string) {
	var warnings []string
	var modern, legacy *Era
	switch {
	case protocol.IsModern(primary.Version) && !protocol.IsModern(probe.Version):
		modern, legacy = &primary, &probe
	case !protocol.IsModern(primary.Version) && protocol.IsModern(probe.Version):
		modern, legacy = &probe, &primary
	case protocol.IsModern(primary.Version):
		modern = &primary
		warnings = append(warnings, fmt.Sprintf("the server speaks the modern era only (%s), so no legacy wrapping is possible", negotiated(primary, probe)))
	default:
		legacy = &primary
		warnings = append(warnings, fmt.Sprintf("the server speaks the legacy era only (%s); envelope evidence is recorded only for tools marked x-fastmcp-wrap-result", negotiated(primary, probe)))
	}

	byName := func(e *Era) map[string]bundle.Tool {
		m := map[string]bundle.Tool{}
		if e != nil {
			for _, t := range e.Tools {
				m[t.Name] = t
			}
		}
		return m
	}
	modernTools, legacyTools := byName(modern), byName(legacy)
	out := map[string]bundle.Evidence{}
	var onlyPrimary []string
	for _, t := range primary.Tools {
		own := compactRaw(t.Member("outputSchema"))
		var mOut, lOut json.RawMessage
		mt, inModern := modernTools[t.Name]
		lt, inLegacy := legacyTools[t.Name]
		if inModern {
			mOut = compactRaw(mt.Member("outputSchema"))
		}
		if inLegacy {
			lOut = compactRaw(lt.Member("outputSchema"))
		}
		if modern != nil && legacy != nil && !(inModern && inLegacy) {
			onlyPrimary = append(onlyPrimary, t.Name)
		}
		if mOut == nil && lOut == nil {
			continue
		}
		ev := bundle.Evidence{ProbedVersions: []string{}}
		if inLegacy {
			ev.ProbedVersions = append(ev.ProbedVersions, legacy.Version)
		}
		if inModern {
			ev.ProbedVersions = append(ev.ProbedVersions, modern.Version)
		}
		marker := hasWrapMarker(mOut) || hasWrapMarker(lOut)
		switch {
		case inModern && mOut != nil:
			ev.LegacyWraps = inLegacy && lOut != nil && isLegacyWrapOf(lOut, mOut)
			ev.NaturalOutputSchema = mOut
			inner, shaped := envelopeInner(mOut, false)
			if marker || (!ev.LegacyWraps && shaped) {
				ev.AlwaysWraps = true
				if inner != nil {
					ev.NaturalOutputSchema = inner
				}
			}
		case inModern:
			continue // no outputSchema at the modern version: no natural schema
		case marker: // legacy era only
			inner, _ := envelopeInner(lOut, true)
			if inner == nil {
				continue
			}
			ev.AlwaysWraps, ev.NaturalOutputSchema = true, inner
		default:
			continue
		}
		if bytes.Equal(ev.NaturalOutputSchema, own) {
			ev.NaturalOutputSchema = nil // the file does not repeat the tool's own schema
		}
		out[t.Name] = ev
	}
	if len(onlyPrimary) > 0 {
		warnings = append(warnings, fmt.Sprintf("listed at %s but not at %s, so not compared: %s",
			primary.Version, probe.Version, strings.Join(onlyPrimary, ", ")))
	}
	return out, warnings
}

// negotiated says which versions two sessions of one era negotiated.
func negotiated(a, b Era) string {
	if a.Version == b.Version {
		return "it negotiated " + a.Version + " in both sessions"
	}
	return "it negotiated " + a.Version + " and " + b.Version
}

// hasWrapMarker reports whether out has "x-fastmcp-wrap-result": true at
// its root.
func hasWrapMarker(out json.RawMessage) bool { return schema.Parse(out).Marked() }

// envelopeInner returns the natural schema inside out when the envelope
// rule (schema.Document.Envelope; evidence: the server was seen wrapping)
// recognises out as a {"result": S} envelope.
func envelopeInner(out json.RawMessage, evidence bool) (json.RawMessage, bool) {
	doc, err := schema.Load(out)
	if err != nil {
		return nil, false
	}
	if _, ok := doc.Envelope(evidence); !ok {
		return nil, false
	}
	return schema.Inner(out)
}

// isLegacyWrapOf reports whether legacy is the envelope the TypeScript SDK
// v2 (and the C# SDK) advertise to legacy clients for the natural schema
// modern.
func isLegacyWrapOf(legacy, modern json.RawMessage) bool {
	members, err := rawjson.Members(legacy)
	if err != nil {
		return false
	}
	for _, m := range members {
		switch m.Key {
		case "type", "properties", "required":
		case "$schema":
			mm, err := rawjson.Members(modern)
			if err != nil || !rawEqual(m.Value, rawjson.Get(mm, "$schema")) {
				return false
			}
		default:
			return false
		}
	}
	if !rawEqual(rawjson.Get(members, "type"), json.RawMessage(`"object"`)) ||
		!rawEqual(rawjson.Get(members, "required"), json.RawMessage(`["result"]`)) {
		return false
	}
	props, err := rawjson.Members(rawjson.Get(members, "properties"))
	if err != nil || len(props) != 1 || props[0].Key != "result" {
		return false
	}
	inner := props[0].Value
	if rawEqual(inner, modern) {
		return true
	}
	repointed, err := schema.RewriteRefs(modern, schema.Repoint)
	return err == nil && rawEqual(inner, repointed)
}

// rawEqual reports whether a and b are equal JSON values: objects compare
// as sets of members, numbers by value. Invalid or missing JSON is equal
// to nothing.
func rawEqual(a, b json.RawMessage) bool {
	va, okA := decodeValue(a)
	vb, okB := decodeValue(b)
	return okA && okB && valueEqual(va, vb)
}

func decodeValue(raw json.RawMessage) (any, bool) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}

func valueEqual(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !valueEqual(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		return ok && slices.EqualFunc(x, y, valueEqual)
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		if !modestNumber(x) || !modestNumber(y) {
			return false // not worth an exact comparison of huge values
		}
		rx, okx := new(big.Rat).SetString(string(x))
		ry, oky := new(big.Rat).SetString(string(y))
		return okx && oky && rx.Cmp(ry) == 0
	default:
		return a == b
	}
}

// modestNumber reports whether n is short and its exponent, if any, has at
// most four digits, so that an exact comparison stays cheap.
func modestNumber(n json.Number) bool {
	s := string(n)
	if len(s) > 64 {
		return false
	}
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		return len(strings.TrimLeft(s[i+1:], "+-")) <= 4
	}
	return true
}

// compactRaw returns raw without insignificant whitespace, or nil when raw
// is empty or null.
func compactRaw(raw json.RawMessage) json.RawMessage {
	if isNull(raw) {
		return nil
	}
	return compact(raw)
}
