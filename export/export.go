// Package export turns a live MCP server into a bundle entry: each tool
// object exactly as the server listed it, with the negotiated protocol
// version, serverInfo, capabilities and instructions.
//
// Export reads what a connected session learned at connection time (the
// negotiated protocol version, serverInfo, capabilities, instructions) and
// every page of tools/list, keeping each tool as the raw JSON the server
// sent. It never decodes a tool through mcp.Tool, which loses schema keywords
// and fails on boolean or type-array schema roots. It records nothing about
// how the server was reached beyond the transport's name: no command, URL,
// header, token or environment value.
//
// Under the server's "x-mcpbind" member Export records the digests of the
// tools and of the server, and, given a second session in the other
// protocol era (Options.Probe), per-tool envelope evidence (CompareEras).
package export

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/internal/rawjson"
	"github.com/mcpbind/mcpbind/internal/serverid"
)

// Session is what Export reads from a connected server. The runtime's
// *composition.Session implements it (cmd/mcpbind relies on that); tests may
// provide another.
type Session interface {
	// ProtocolVersion is the negotiated MCP protocol version.
	ProtocolVersion() string
	// Transport is the transport's name, such as "stdio" or
	// "streamable-http".
	Transport() string
	// ServerInfo is the serverInfo object the server sent, as sent.
	ServerInfo() json.RawMessage
	// Capabilities is the capabilities object the server sent, as sent, or
	// nil.
	Capabilities() json.RawMessage
	// Instructions is the instructions text the server sent, or "".
	Instructions() string
	// ListToolsRaw lists every tool, following nextCursor page by page,
	// each tool as the raw JSON object the server sent.
	ListToolsRaw(ctx context.Context) ([]json.RawMessage, error)
}

// Options configures Export.
type Options struct {
	// ID is the server's id in the bundle. Empty means Slug of the
	// serverInfo name.
	ID string
	// Probe, when not nil, is a second session with the same server,
	// opened at ProbeVersion(s.ProtocolVersion()): Export lists its tools
	// too and records per tool, under x-mcpbind, the envelope evidence
	// that CompareEras derives. The bundle keeps the tools of s.
	Probe Session
	// MCPBindVersion, when not empty, is recorded under x-mcpbind as the
	// release of mcpbind that exported the server (see
	// bundle.Facts.MCPBindVersion).
	MCPBindVersion string
	// Warn receives warnings (a probe that failed or spoke the same era,
	// digests that cannot be computed), one message per call, without a
	// trailing newline. Nil drops them.
	Warn func(msg string)
}

// Export lists s's tools and returns its bundle entry, with the digests
// of its tools and of the server recorded under x-mcpbind (see
// bundle.Facts) and, with opts.Probe, envelope evidence.
//
// A failing probe is not an error: Export warns through opts.Warn and
// records no evidence. Neither is a tool without a canonical JSON form
// (RFC 8785 cannot write a number such as 1e400): Export warns and records
// no digests.
//
// An error from s.ListToolsRaw is returned unchanged (the runtime's errors
// name the server). Every other error is an *AnswerError about what the
// server answered: a tool that is not a JSON object with a name, two tools
// with one name, a serverInfo without a name, capabilities that are not an
// object, or answers that would not make a valid bundle; or an invalid
// opts.ID (callers check it first with bundle.CheckID to tell it apart). A
// string that is not valid UTF-8 anywhere in a tool, serverInfo or
// capabilities is such an error, naming the tool and the string's JSON
// pointer (RFC 8259 §8.1 requires UTF-8).
func Export(ctx context.Context, s Session, opts Options) (*bundle.Server, error) {
	srv, _, err := ExportDocument(ctx, s, opts)
	return srv, err
}

// ExportDocument is Export that also returns the checked document of the
// bundle holding srv alone, which Export builds for its last check: a
// caller that writes that bundle encodes the document (and reads its
// schema findings) without checking it again.
func ExportDocument(ctx context.Context, s Session, opts Options) (*bundle.Server, *bundle.Document, error) {
	info := s.ServerInfo()
	name, err := serverName(info)
	if err != nil {
		return nil, nil, err
	}
	id := opts.ID
	if id == "" {
		id = serverid.Slug(name)
		if id == "" {
			return nil, nil, answerf("cannot derive a server id from serverInfo.name %q; give one with --id", name)
		}
	}
	if err := bundle.CheckID(id); err != nil {
		return nil, nil, &AnswerError{Msg: "server id", Err: err}
	}

	if ptr, bad := rawjson.InvalidUTF8(info); bad {
		return nil, nil, answerf("serverInfo: the string at JSON pointer %q is not valid UTF-8 (RFC 8259 §8.1)", ptr)
	}
	caps := s.Capabilities()
	if isNull(caps) {
		caps = nil
	} else if !isObject(caps) {
		return nil, nil, answerf("capabilities is not a JSON object: %s", clip(caps))
	} else if ptr, bad := rawjson.InvalidUTF8(caps); bad {
		return nil, nil, answerf("capabilities: the string at JSON pointer %q is not valid UTF-8 (RFC 8259 §8.1)", ptr)
	}

	raws, err := s.ListToolsRaw(ctx)
	if err != nil {
		return nil, nil, err
	}
	tools := make([]bundle.Tool, 0, len(raws))
	seen := make(map[string]int, len(raws))
	for i, raw := range raws {
		if err := checkUTF8(raw, i); err != nil {
			return nil, nil, err
		}
		t, err := bundle.NewTool(raw)
		if err != nil {
			return nil, nil, answerf("tools/list: tool %d: %v: %s", i, err, clip(raw))
		}
		if j, dup := seen[t.Name]; dup {
			return nil, nil, answerf("tools/list: tool %q listed twice (tools %d and %d)", t.Name, j, i)
		}
		seen[t.Name] = i
		tools = append(tools, t)
	}

	srv := &bundle.Server{
		ID:              id,
		ServerInfo:      compact(info),
		ProtocolVersion: s.ProtocolVersion(),
		Transport:       s.Transport(),
		Capabilities:    compact(caps),
		Instructions:    s.Instructions(),
		Tools:           tools,
	}
	warn := func(format string, args ...any) {
		if opts.Warn != nil {
			opts.Warn(fmt.Sprintf(format, args...))
		}
	}
	if opts.Probe != nil {
		evidence, warnings := probe(ctx, srv, opts.Probe)
		for _, w := range warnings {
			warn("%s", w)
		}
		if len(evidence) > 0 {
			f := bundle.Facts{Tools: map[string]bundle.ToolFacts{}}
			for name, ev := range evidence {
				f.Tools[name] = bundle.ToolFacts{Envelope: &ev}
			}
			if err := srv.SetFacts(f); err != nil {
				return nil, nil, &AnswerError{Msg: "envelope evidence", Err: err}
			}
		}
	}
	if opts.MCPBindVersion != "" {
		f, err := srv.Facts()
		if err == nil {
			f.MCPBindVersion = opts.MCPBindVersion
			err = srv.SetFacts(f)
		}
		if err != nil {
			return nil, nil, &AnswerError{Msg: "recording the mcpbind version", Err: err}
		}
	}
	if err := srv.RecordDigests(); err != nil {
		warn("no digests recorded: %v", err)
	}
	// Catch here, as a problem with the server's answers, anything that
	// would stop the bundle from being written (the schema's checks of
	// tool fields, an unknown transport, an empty protocol version): the
	// checks of Marshal, on the document, without writing it (the caller
	// encodes that document).
	doc, err := (&bundle.Bundle{Servers: []bundle.Server{*srv}}).Document()
	if err != nil {
		return nil, nil, &AnswerError{Msg: "the server's answers do not make a valid bundle", Err: err}
	}
	return srv, doc, nil
}

// probe lists the tools of the probe session and compares them with srv's.
// A failure is a warning: the bundle is still worth writing.
func probe(ctx context.Context, srv *bundle.Server, p Session) (map[string]bundle.Evidence, []string) {
	asked := ProbeVersion(srv.ProtocolVersion)
	raws, err := p.ListToolsRaw(ctx)
	if err != nil {
		return nil, []string{fmt.Sprintf("--probe-eras: listing tools at %s failed, so no envelope evidence is recorded: %v", asked, err)}
	}
	probed := Era{Version: p.ProtocolVersion()}
	for i, raw := range raws {
		t, err := bundle.NewTool(raw)
		if err != nil {
			return nil, []string{fmt.Sprintf("--probe-eras: tools/list at %s: tool %d: %v, so no envelope evidence is recorded", probed.Version, i, err)}
		}
		probed.Tools = append(probed.Tools, t)
	}
	evidence, warnings := CompareEras(Era{Version: srv.ProtocolVersion, Tools: srv.Tools}, probed)
	for i, w := range warnings {
		warnings[i] = "--probe-eras: " + w
	}
	return evidence, warnings
}

// checkUTF8 refuses a tool with a string that is not valid UTF-8 (RFC 8259
// §8.1 requires UTF-8): written raw, it would make a bundle that is not
// JSON, and a name decoded with U+FFFD in place of the bad bytes would make
// the generated client call a tool the server does not have. i is the
// tool's index in tools/list.
func checkUTF8(raw json.RawMessage, i int) error {
	ptr, bad := rawjson.InvalidUTF8(raw)
	if !bad {
		return nil
	}
	var t struct {
		Name string `json:"name"`
	}
	tool := fmt.Sprintf("tool %d", i)
	if json.Unmarshal(raw, &t) == nil && t.Name != "" {
		tool += fmt.Sprintf(" (%q)", t.Name)
	}
	return answerf("tools/list: %s: the string at JSON pointer %q is not valid UTF-8; JSON exchanged between systems must be UTF-8 (RFC 8259 §8.1), and a name with invalid bytes cannot be called back as sent", tool, ptr)
}

// AnswerError is a problem Export found in a server's answers. It does not
// name the server; the caller knows how it reached it.
type AnswerError struct {
	// Msg says what is wrong.
	Msg string
	// Err is the underlying error, if any.
	Err error
}

// Error returns Msg, followed by Err's message when there is one.
func (e *AnswerError) Error() string {
	if e.Err != nil {
		return e.Msg + ": " + e.Err.Error()
	}
	return e.Msg
}

// Unwrap returns Err.
func (e *AnswerError) Unwrap() error { return e.Err }

func answerf(format string, args ...any) error {
	return &AnswerError{Msg: fmt.Sprintf(format, args...)}
}

// serverName returns serverInfo's "name".
func serverName(info json.RawMessage) (string, error) {
	if len(info) == 0 || isNull(info) {
		return "", answerf("the server sent no serverInfo")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(info, &m); err != nil || m == nil {
		return "", answerf("serverInfo is not a JSON object: %s", clip(info))
	}
	var name string
	if raw, ok := m["name"]; !ok || json.Unmarshal(raw, &name) != nil {
		return "", answerf("serverInfo has no string name: %s", clip(info))
	}
	return name, nil
}

func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || strings.TrimSpace(string(raw)) == "null"
}

func isObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && m != nil
}

// compact removes insignificant whitespace, keeping key order, numbers and
// string escapes.
func compact(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return bytes.Clone(raw) // invalid JSON: the bundle check reports it
	}
	return buf.Bytes()
}

// clip shortens raw JSON for an error message.
func clip(raw json.RawMessage) string {
	const n = 200
	s := string(raw)
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
