package bundle

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/mcpbind/mcpbind/internal/digest"
	"github.com/mcpbind/mcpbind/internal/jsonpointer"
	"github.com/mcpbind/mcpbind/internal/rawjson"
)

// Facts is the decoded "x-mcpbind" member of a server: what mcpbind derived
// about the server, kept apart from the server's own fields, which hold exactly what the
// server sent.
//
// In the file it reads, keys in this order (encoding/json sorts the tool
// names):
//
//	"x-mcpbind": {
//	  "digest": "sha256:…",
//	  "tools": {
//	    "count_rows": {
//	      "digest": "sha256:…",
//	      "envelope": {
//	        "alwaysWraps": false,
//	        "legacyWraps": true,
//	        "probedVersions": ["2025-11-25", "2026-07-28"]
//	      }
//	    }
//	  }
//	}
//
// Unknown members are allowed by bundle.schema.json (so that a later facts
// kind does not need a new bundleVersion) and kept by Parse and Marshal,
// but SetFacts writes only the members below.
type Facts struct {
	// Digest is the server digest (see package internal/digest): the
	// SHA-256 of the canonical JSON of the tools sorted by name, as
	// "sha256:" and 64 hex digits. "" when not recorded.
	Digest string `json:"digest,omitempty"`
	// MCPBindVersion is the release version of the mcpbind that exported
	// the server ("v1.2.3"), or "" when not recorded: a build from a
	// checkout records none, so that exporting the same server again with
	// the same mcpbind gives the same bytes.
	MCPBindVersion string `json:"mcpbindVersion,omitempty"`
	// Tools holds the facts about each tool, by tool name. Every name is a
	// tool of the server.
	Tools map[string]ToolFacts `json:"tools,omitempty"`
}

// ToolFacts is what mcpbind derived about one tool.
type ToolFacts struct {
	// Digest is the SHA-256 of the canonical JSON of the tool object.
	Digest string `json:"digest,omitempty"`
	// Envelope is the envelope evidence of `mcpbind export --probe-eras`,
	// or nil when none was recorded.
	Envelope *Evidence `json:"envelope,omitempty"`
}

// Evidence is what probing a server in both protocol eras showed about the
// {"result": v} envelopes of one tool (SEP-2106; the README's "Envelopes"
// section states the rules).
type Evidence struct {
	// AlwaysWraps: the server sends the tool's results as {"result": v} in
	// every protocol version (the Python SDK, FastMCP). Recorded when the
	// outputSchema carries "x-fastmcp-wrap-result": true, or when the
	// outputSchema listed at 2026-07-28 (when no SDK needs to wrap) is an
	// envelope: an object schema whose only property, required, is
	// "result", whose schema is not a plain "type":"object" schema.
	AlwaysWraps bool `json:"alwaysWraps"`
	// LegacyWraps: toward clients before 2026-07-28 the server advertises
	// the envelope {"type":"object","properties":{"result":S},
	// "required":["result"]} (with $refs re-pointed under
	// #/properties/result) of the schema S it advertises at 2026-07-28,
	// and so wraps the values too (the TypeScript SDK v2, the C# SDK).
	LegacyWraps bool `json:"legacyWraps"`
	// NaturalOutputSchema is the schema of the tool's unwrapped result: the
	// outputSchema listed at 2026-07-28, or the inner schema of an
	// envelope the server always sends. Nil when the tool has no
	// outputSchema.
	//
	// The file omits it when it is byte for byte the tool's own
	// outputSchema; Server.ToolEvidence fills it in again, so callers
	// always get it.
	NaturalOutputSchema json.RawMessage `json:"naturalOutputSchema,omitempty"`
	// ProbedVersions are the protocol versions whose tools/list the
	// evidence compares, in ascending order. One version means the server
	// spoke one era only: AlwaysWraps was then read from that era's
	// schema and LegacyWraps is false.
	ProbedVersions []string `json:"probedVersions"`
}

// Facts decodes s.Extensions. An empty Extensions gives zero Facts. A
// server returned by Parse or Load always decodes.
func (s *Server) Facts() (Facts, error) {
	var f Facts
	if len(bytes.TrimSpace(s.Extensions)) == 0 {
		return f, nil
	}
	if err := json.Unmarshal(s.Extensions, &f); err != nil {
		return Facts{}, fmt.Errorf("server %q: x-mcpbind: %w", s.ID, err)
	}
	return f, nil
}

// SetFacts encodes f into s.Extensions deterministically (object keys
// sorted, tool names sorted, no HTML escaping, raw schemas kept byte for
// byte); zero Facts clear it. Unknown members already in s.Extensions are
// dropped. It fails when f names a tool s does not have or a digest is
// malformed.
func (s *Server) SetFacts(f Facts) error {
	if f.Digest != "" && !digest.Valid(f.Digest) {
		return fmt.Errorf("server %q: x-mcpbind digest %q is not sha256:<64 hex digits>", s.ID, f.Digest)
	}
	has := s.toolNames()
	for name, tf := range f.Tools {
		if !has[name] {
			return fmt.Errorf("server %q: x-mcpbind names tool %q, which the server does not have", s.ID, name)
		}
		if tf.Digest != "" && !digest.Valid(tf.Digest) {
			return fmt.Errorf("server %q, tool %q: x-mcpbind digest %q is not sha256:<64 hex digits>", s.ID, name, tf.Digest)
		}
	}
	if f.Digest == "" && f.MCPBindVersion == "" && len(f.Tools) == 0 {
		s.Extensions = nil
		return nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(f); err != nil {
		return fmt.Errorf("server %q: x-mcpbind: %w", s.ID, err)
	}
	s.Extensions = json.RawMessage(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	return nil
}

// Digest returns the server digest recorded under x-mcpbind, or "" when
// there is none. Generated code embeds it for composition.WithDigestCheck.
func (s *Server) Digest() string {
	f, _ := s.Facts()
	return f.Digest
}

// ToolDigest returns the digest of tool name recorded under x-mcpbind, or
// "" when there is none. It decodes x-mcpbind each time: a caller that
// asks about every tool decodes once with Facts and asks Facts.ToolDigest.
func (s *Server) ToolDigest(name string) string {
	f, _ := s.Facts()
	return f.ToolDigest(name)
}

// ToolDigest returns the digest of tool name, or "" when none is recorded.
func (f Facts) ToolDigest(name string) string { return f.Tools[name].Digest }

// ToolEvidence returns the envelope evidence recorded for tool name by
// `mcpbind export --probe-eras`, and whether there is any. A tool without
// evidence is left to the IR's shape rules (see package ir).
//
// NaturalOutputSchema is always filled in when the tool has an output
// schema: from x-mcpbind, or else the tool's own outputSchema (which the
// file then does not repeat). The returned value shares no memory with s.
// It decodes x-mcpbind each time: a caller that asks about every tool
// decodes once with Facts and asks Facts.ToolEvidence.
func (s *Server) ToolEvidence(name string) (Evidence, bool) {
	f, _ := s.Facts()
	var own json.RawMessage
	if i := slices.IndexFunc(s.Tools, func(t Tool) bool { return t.Name == name }); i >= 0 && f.Tools[name].Envelope != nil {
		own = s.Tools[i].Member("outputSchema")
	}
	return f.ToolEvidence(name, own)
}

// ToolEvidence returns the envelope evidence recorded for tool name, and
// whether there is any, as Server.ToolEvidence does; outputSchema is the
// tool's own outputSchema (nil when it has none), which fills in
// NaturalOutputSchema when the file omits it. The returned value shares no
// memory with f or outputSchema.
func (f Facts) ToolEvidence(name string, outputSchema json.RawMessage) (Evidence, bool) {
	ev := f.Tools[name].Envelope
	if ev == nil {
		return Evidence{}, false
	}
	out := *ev
	out.ProbedVersions = slices.Clone(ev.ProbedVersions)
	out.NaturalOutputSchema = slices.Clone(ev.NaturalOutputSchema)
	if out.NaturalOutputSchema == nil {
		out.NaturalOutputSchema = slices.Clone(outputSchema)
	}
	return out, true
}

// ComputeDigests returns the server digest and every tool's digest, by
// name, computed from s.Tools (see package internal/digest). It fails when
// a tool has no canonical JSON form, such as a number outside the range of
// a double (1e400).
func (s *Server) ComputeDigests() (server string, tools map[string]string, err error) {
	raws := make([]json.RawMessage, 0, len(s.Tools))
	for _, t := range s.Tools {
		raws = append(raws, t.Raw)
	}
	server, each, err := digest.All(raws) // each tool canonicalized once
	if err != nil {
		if te, ok := errors.AsType[*digest.ToolError](err); ok {
			return "", nil, fmt.Errorf("server %q, tool %q: %w", s.ID, s.Tools[te.Index].Name, te.Err)
		}
		return "", nil, fmt.Errorf("server %q: %w", s.ID, err)
	}
	tools = make(map[string]string, len(s.Tools))
	for i, t := range s.Tools {
		tools[t.Name] = each[i]
	}
	return server, tools, nil
}

// RecordDigests computes the digests of s's tools and records them in
// s.Extensions, keeping the envelope evidence already there. On error s is
// unchanged.
func (s *Server) RecordDigests() error {
	server, tools, err := s.ComputeDigests()
	if err != nil {
		return err
	}
	f, err := s.Facts()
	if err != nil {
		return err
	}
	f.Digest = server
	if f.Tools == nil {
		f.Tools = make(map[string]ToolFacts, len(tools))
	}
	for name, d := range tools {
		tf := f.Tools[name]
		tf.Digest = d
		f.Tools[name] = tf
	}
	return s.SetFacts(f)
}

// Member returns the raw value of the tool object's member key (exact
// match), or nil when the tool has none.
func (t Tool) Member(key string) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(t.Raw, &m) != nil {
		return nil
	}
	return m[key]
}

// toolNames returns the set of s's tool names: one lookup per name, not a
// scan of the tools (a server can have thousands).
func (s *Server) toolNames() map[string]bool {
	has := make(map[string]bool, len(s.Tools))
	for _, t := range s.Tools {
		has[t.Name] = true
	}
	return has
}

// checkFacts checks what bundle.schema.json cannot say about a server's
// x-mcpbind: that every tool it names exists. ptr is the server's JSON
// pointer.
func checkFacts(s *Server, ptr string) *Error {
	if len(s.Extensions) == 0 {
		return nil
	}
	var f struct {
		Tools map[string]json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(s.Extensions, &f); err != nil {
		return &Error{Kind: KindInvalid, Pointer: ptr + "/x-mcpbind", Msg: err.Error(), Err: err}
	}
	names := make([]string, 0, len(f.Tools))
	for name := range f.Tools {
		names = append(names, name)
	}
	slices.Sort(names)
	has := s.toolNames()
	for _, name := range names {
		if !has[name] {
			return &Error{Kind: KindInvalid, Pointer: ptr + "/x-mcpbind/tools/" + jsonpointer.Escape(name),
				Msg: fmt.Sprintf("x-mcpbind has facts about tool %q, which the server does not have", name)}
		}
	}
	return nil
}

// pruneStaleFacts drops from s.Extensions the facts about tools s does not
// have (a bundle edited by hand after a tool was removed) and returns one
// warning per tool dropped, naming the JSON pointer under ptr, the server's.
// Other members, and their order, are kept byte for byte. An x-mcpbind that
// does not decode is left to checkFacts.
func pruneStaleFacts(s *Server, ptr string) []string {
	if len(s.Extensions) == 0 {
		return nil
	}
	members, err := rawjson.Members(s.Extensions)
	if err != nil {
		return nil
	}
	var warnings []string
	for i, m := range members {
		if m.Key != "tools" {
			continue
		}
		tools, err := rawjson.Members(m.Value)
		if err != nil {
			return nil
		}
		kept := tools[:0:0]
		has := s.toolNames()
		for _, tm := range tools {
			if has[tm.Key] {
				kept = append(kept, tm)
				continue
			}
			warnings = append(warnings, fmt.Sprintf("%s/x-mcpbind/tools/%s: facts about tool %q, which the server does not have, are ignored",
				ptr, jsonpointer.Escape(tm.Key), tm.Key))
		}
		if len(warnings) == 0 {
			return nil
		}
		obj, err := rawjson.Object(kept)
		if err != nil {
			return nil
		}
		members[i].Value = obj
	}
	if len(warnings) == 0 {
		return nil
	}
	ext, err := rawjson.Object(members)
	if err != nil {
		return nil
	}
	s.Extensions = ext
	return warnings
}
