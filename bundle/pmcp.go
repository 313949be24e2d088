package bundle

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpbind/mcpbind/internal/rawjson"
)

// Format is the form of file that Parse read.
type Format int

// The forms Parse reads.
const (
	// FormatBundle is an mcpbind bundle (it has "bundleVersion").
	FormatBundle Format = iota
	// FormatPMCP is the export form that PMCP (the Rust MCP SDK) documents:
	// {"version": "1.0", "servers": [{"id": …, "tools": [MCP tool
	// objects, with inputSchema and outputSchema]}]}.
	FormatPMCP
	// FormatPMCPCLI is the file `cargo pmcp schema export` writes: one
	// server, {"server_id": …, "name": …, "version": …, "tools": [{"name",
	// "description", "input_schema", "output_schema", "annotations"}], …}.
	FormatPMCPCLI
)

// String names the form for messages: "mcpbind bundle", "PMCP export" or
// "PMCP CLI export".
func (f Format) String() string {
	switch f {
	case FormatBundle:
		return "mcpbind bundle"
	case FormatPMCP:
		return "PMCP export"
	case FormatPMCPCLI:
		return "PMCP CLI export"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// Protocol versions recorded for PMCP exports, which do not record one.
const (
	// PMCPProtocolVersion is recorded for a FormatPMCP server that names no
	// protocolVersion: the documented form follows MCP 2025-06-18.
	PMCPProtocolVersion = "2025-06-18"
	// PMCPCLIProtocolVersion is recorded for a FormatPMCPCLI server: the
	// version `cargo pmcp schema export` asks for in initialize.
	PMCPCLIProtocolVersion = "2024-11-05"
)

// sniff tells a PMCP export from a bundle by its top-level members: a
// "bundleVersion" makes a bundle; else "server_id" a PMCP CLI export; else
// "version" with "servers" a PMCP export. Anything else, including data
// that is not a JSON object, is left to the bundle checks.
func sniff(data []byte) Format {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return FormatBundle
	}
	_, bv := top["bundleVersion"]
	_, sid := top["server_id"]
	_, ver := top["version"]
	_, srvs := top["servers"]
	switch {
	case bv:
		return FormatBundle
	case sid:
		return FormatPMCPCLI
	case ver && srvs:
		return FormatPMCP
	}
	return FormatBundle
}

// parsePMCP converts a PMCP export to a bundle.
//
// What is kept: server ids, names and versions (as serverInfo), and each
// tool object with "input_schema"/"output_schema" renamed to
// "inputSchema"/"outputSchema" (when the camel-case member is absent) and,
// when the tool has no output schema, the annotation "pmcp:outputSchema"
// (PMCP's earlier spelling) copied to "outputSchema". The rest of a tool is
// kept as it is. What is dropped: the endpoint URL (a bundle never records
// one), exported_at (a bundle has no timestamps), tier, resources and
// prompts. The transport is "streamable-http" (PMCP exports from HTTP
// endpoints) and the protocol version PMCPProtocolVersion or
// PMCPCLIProtocolVersion, unless a server of the documented form names
// its own.
func parsePMCP(data []byte, source string, form Format) (*Bundle, error) {
	if err := checkSyntax(data, source); err != nil {
		return nil, err
	}
	fail := func(ptr, format string, args ...any) error {
		return &Error{Source: source, Kind: KindInvalid, Pointer: ptr, Msg: form.String() + ": " + fmt.Sprintf(format, args...)}
	}
	top, err := rawjson.Members(data)
	if err != nil {
		return nil, fail("", "%v", err)
	}
	b := &Bundle{Format: form}
	ids := map[string]string{}
	addServer := func(ptr string, members []rawjson.Member, idKey, defaultVersion string) error {
		s, err := pmcpServer(members, idKey, defaultVersion)
		if err != nil {
			var pe *pmcpError
			if errors.As(err, &pe) {
				return fail(ptr+pe.ptr, "%s", pe.msg)
			}
			return fail(ptr, "%v", err)
		}
		if other, dup := ids[s.ID]; dup {
			return fail(ptr+"/"+idKey, "duplicate server id %q (also at %s)", s.ID, other)
		}
		ids[s.ID] = ptr
		b.Servers = append(b.Servers, *s)
		return nil
	}

	switch form {
	case FormatPMCPCLI:
		if err := addServer("", top, "server_id", PMCPCLIProtocolVersion); err != nil {
			return nil, err
		}
	case FormatPMCP:
		var version string
		if err := json.Unmarshal(rawjson.Get(top, "version"), &version); err != nil {
			return nil, fail("/version", "version is not a string")
		}
		if major, _, _ := strings.Cut(version, "."); major != "1" {
			return nil, fail("/version", "unsupported version %q: mcpbind reads PMCP exports of version 1.x", version)
		}
		var servers []json.RawMessage
		if err := json.Unmarshal(rawjson.Get(top, "servers"), &servers); err != nil {
			return nil, fail("/servers", "servers is not an array")
		}
		for i, raw := range servers {
			ptr := fmt.Sprintf("/servers/%d", i)
			members, err := rawjson.Members(raw)
			if err != nil {
				return nil, fail(ptr, "a server is not a JSON object")
			}
			if err := addServer(ptr, members, "id", PMCPProtocolVersion); err != nil {
				return nil, err
			}
		}
	default:
		return nil, fail("", "not a PMCP export")
	}

	// The result must be a bundle like any other: Marshal checks it
	// against the format's schema, and decode sorts it.
	out, err := b.Marshal()
	if err != nil {
		var be *Error
		if errors.As(err, &be) {
			return nil, &Error{Source: source, Kind: be.Kind, Msg: fmt.Sprintf("%s does not convert to a valid bundle: %s", form, be.Error()), Err: err}
		}
		return nil, &Error{Source: source, Kind: KindInvalid, Msg: err.Error(), Err: err}
	}
	conv, err := decode(out, source)
	if err != nil {
		return nil, err
	}
	conv.Format = form
	return conv, nil
}

// pmcpError is a problem at a JSON pointer relative to a PMCP server.
type pmcpError struct {
	ptr, msg string
}

func (e *pmcpError) Error() string { return e.ptr + ": " + e.msg }

func pmcpErrorf(ptr, format string, args ...any) error {
	return &pmcpError{ptr: ptr, msg: fmt.Sprintf(format, args...)}
}

// pmcpServer converts one PMCP server object.
func pmcpServer(members []rawjson.Member, idKey, defaultVersion string) (*Server, error) {
	str := func(key string) (string, bool, error) {
		raw := rawjson.Get(members, key)
		if raw == nil || rawjson.Kind(raw) == 'n' {
			return "", false, nil
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", false, pmcpErrorf("/"+key, "%s is not a string", key)
		}
		return s, true, nil
	}
	id, ok, err := str(idKey)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, pmcpErrorf("", "missing %s", idKey)
	}
	if err := CheckID(id); err != nil {
		return nil, pmcpErrorf("/"+idKey, "%v", err)
	}
	s := &Server{ID: id, ProtocolVersion: defaultVersion, Transport: TransportStreamableHTTP}

	if info := rawjson.Get(members, "serverInfo"); rawjson.Kind(info) == '{' {
		s.ServerInfo = info
	} else {
		name, _, err := str("name")
		if err != nil {
			return nil, err
		}
		if name == "" {
			name = id
		}
		version, hasVersion, err := str("version")
		if err != nil {
			return nil, err
		}
		info := []rawjson.Member{{Key: "name", Value: rawjson.Key(name)}}
		if hasVersion {
			info = append(info, rawjson.Member{Key: "version", Value: rawjson.Key(version)})
		}
		if s.ServerInfo, err = rawjson.Object(info); err != nil {
			return nil, err
		}
	}
	if idKey == "id" { // the documented form may carry more of a bundle's fields
		if v, ok, err := str("protocolVersion"); err != nil {
			return nil, err
		} else if ok && v != "" {
			s.ProtocolVersion = v
		}
		if v, ok, err := str("transport"); err != nil {
			return nil, err
		} else if ok {
			s.Transport = v
		}
		if c := rawjson.Get(members, "capabilities"); rawjson.Kind(c) == '{' {
			s.Capabilities = c
		}
		if v, _, err := str("instructions"); err != nil {
			return nil, err
		} else {
			s.Instructions = v
		}
	}

	rawTools := rawjson.Get(members, "tools")
	var tools []json.RawMessage
	if rawTools != nil && rawjson.Kind(rawTools) != 'n' {
		if err := json.Unmarshal(rawTools, &tools); err != nil {
			return nil, pmcpErrorf("/tools", "tools is not an array")
		}
	}
	names := map[string]int{}
	for i, raw := range tools {
		ptr := fmt.Sprintf("/tools/%d", i)
		conv, err := pmcpTool(raw)
		if err != nil {
			return nil, pmcpErrorf(ptr, "%v", err)
		}
		t, err := NewTool(conv)
		if err != nil {
			return nil, pmcpErrorf(ptr, "%v", err)
		}
		if j, dup := names[t.Name]; dup {
			return nil, pmcpErrorf(ptr+"/name", "duplicate tool name %q (also at /tools/%d)", t.Name, j)
		}
		names[t.Name] = i
		s.Tools = append(s.Tools, t)
	}
	return s, nil
}

// pmcpTool renames a PMCP tool's snake-case schema members and lifts the
// "pmcp:outputSchema" annotation, keeping member order.
func pmcpTool(raw json.RawMessage) (json.RawMessage, error) {
	members, err := rawjson.Members(raw)
	if err != nil {
		return nil, errors.New("tool is not a JSON object")
	}
	rename := map[string]string{"input_schema": "inputSchema", "output_schema": "outputSchema"}
	out := make([]rawjson.Member, 0, len(members)+1)
	for _, m := range members {
		if camel, ok := rename[m.Key]; ok {
			if rawjson.Get(members, camel) != nil {
				continue // the camel-case member wins
			}
			m.Key = camel
		}
		out = append(out, m)
	}
	if rawjson.Get(out, "outputSchema") == nil {
		if ann, err := rawjson.Members(rawjson.Get(out, "annotations")); err == nil {
			if s := rawjson.Get(ann, "pmcp:outputSchema"); s != nil && rawjson.Kind(s) != 'n' {
				out = append(out, rawjson.Member{Key: "outputSchema", Value: s})
			}
		}
	}
	return rawjson.Object(out)
}

// checkSyntax runs the checks that apply to any JSON input: not empty,
// valid JSON, no duplicate keys.
func checkSyntax(data []byte, source string) error {
	_, err := parseInstance(data, source)
	return err
}
