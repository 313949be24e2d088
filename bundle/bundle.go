// Package bundle is the mcpbind bundle: the versioned, deterministic JSON file
// that `mcpbind export` writes from live MCP servers and `mcpbind generate`
// reads; bundle.schema.json describes the format.
//
// A bundle holds, per server, the negotiated protocol version, the serverInfo,
// capabilities and instructions the server sent, and its tools. Each tool is
// kept as the raw JSON object the server listed, every field and every key
// order intact: this package never decodes a tool or a schema into Go maps or
// structs and back. Commands, URLs, headers, tokens and environment values
// have no place in the format.
//
// Parse and Load check a file in this order, and report the first problem as
// an *Error naming the file and where in it: JSON syntax (with line, column
// and byte offset), duplicate object keys, the bundleVersion, the format's
// own JSON Schema (bundle.schema.json, see Schema), then duplicate server ids
// and tool names, and facts about tools a server does not have. Marshal
// writes the canonical bytes: servers sorted by id, tools by name, two-space
// indentation, a final newline.
//
// Parse and Load also read PMCP's two export forms and convert them to a
// bundle (see Format). What mcpbind derives about a server (digests,
// envelope evidence) lives under its "x-mcpbind" member: see Facts and the
// accessors Server.Digest and Server.ToolEvidence. Server.CheckSchemas
// checks every tool schema against its dialect's meta-schema, fetching
// nothing.
package bundle

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpbind/mcpbind/internal/serverid"
)

// Version is the bundle format version this build reads and writes.
const Version = 1

// Transports recorded in Server.Transport.
const (
	// TransportStdio is a server started as a subprocess, spoken to over
	// its stdin and stdout.
	TransportStdio = "stdio"
	// TransportStreamableHTTP is the streamable HTTP transport.
	TransportStreamableHTTP = "streamable-http"
	// TransportSSE is the legacy HTTP+SSE transport.
	TransportSSE = "sse"
)

// Bundle is a parsed bundle file.
type Bundle struct {
	// BundleVersion is the format version; Marshal writes Version, and
	// accepts 0 as "Version".
	BundleVersion int `json:"bundleVersion"`
	// Servers are the exported servers. Parse returns them sorted by ID;
	// Marshal sorts them.
	Servers []Server `json:"servers"`
	// Format is the form Parse read: FormatBundle, or a PMCP export that
	// it converted (FormatPMCP, FormatPMCPCLI). Marshal always writes a
	// bundle and ignores it.
	Format Format `json:"-"`
	// Warnings are what Parse forgave in a hand-edited file, each naming
	// the JSON pointer: x-mcpbind facts about a tool the server does not
	// have, which Parse drops. Marshal ignores them.
	Warnings []string `json:"-"`
}

// Server is one exported MCP server.
type Server struct {
	// ID names the server in the bundle (and by default the generated
	// package): a letter or digit, then letters, digits, '.', '_' or '-'.
	// Unique within a bundle.
	ID string `json:"id"`
	// ServerInfo is the serverInfo object the server sent, as sent.
	ServerInfo json.RawMessage `json:"serverInfo"`
	// ProtocolVersion is the negotiated MCP protocol version.
	ProtocolVersion string `json:"protocolVersion"`
	// Transport is how the server was reached: TransportStdio,
	// TransportStreamableHTTP or TransportSSE.
	Transport string `json:"transport"`
	// Capabilities is the capabilities object the server sent, if any.
	Capabilities json.RawMessage `json:"capabilities,omitempty"`
	// Instructions is the instructions text the server sent, if any.
	Instructions string `json:"instructions,omitempty"`
	// Tools are the server's tools. Parse returns them sorted by Name;
	// Marshal sorts them. Names are unique within a server.
	Tools []Tool `json:"tools"`
	// Extensions holds facts derived by mcpbind (envelope evidence,
	// digests), stored under "x-mcpbind"; a JSON object or empty.
	Extensions json.RawMessage `json:"x-mcpbind,omitempty"`
}

// Tool is one tool, kept as the raw JSON object the server sent.
//
// Its JSON encoding is Raw, unchanged; decoding a Tool keeps the bytes
// (compacted) and extracts Name.
type Tool struct {
	// Name is the tool's "name" member, extracted from Raw.
	Name string
	// Raw is the tool object exactly as listed by the server (compacted:
	// insignificant whitespace removed, everything else byte for byte).
	Raw json.RawMessage
}

// NewTool returns the Tool for a raw tool object as a server listed it. The
// bytes are compacted (whitespace outside strings removed; keys, key order,
// numbers and string escapes are kept) and copied. It fails when raw is not
// a JSON object or has no non-empty string "name".
func NewTool(raw json.RawMessage) (Tool, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return Tool{}, fmt.Errorf("tool is not valid JSON: %w", err)
	}
	c := buf.Bytes()
	if len(c) == 0 || c[0] != '{' {
		return Tool{}, errors.New("tool is not a JSON object")
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(c, &members); err != nil {
		return Tool{}, fmt.Errorf("tool is not a JSON object: %w", err)
	}
	nameRaw, ok := members["name"] // exact key: encoding/json's struct matching is case-insensitive
	if !ok {
		return Tool{}, errors.New("missing name")
	}
	var name string
	if err := json.Unmarshal(nameRaw, &name); err != nil {
		return Tool{}, fmt.Errorf("name is not a string: %s", nameRaw)
	}
	if name == "" {
		return Tool{}, errors.New("empty name")
	}
	return Tool{Name: name, Raw: json.RawMessage(c)}, nil
}

// MarshalJSON returns t.Raw.
func (t Tool) MarshalJSON() ([]byte, error) {
	if len(t.Raw) == 0 {
		return nil, fmt.Errorf("tool %q has no raw JSON", t.Name)
	}
	return t.Raw, nil
}

// UnmarshalJSON keeps data (compacted) as t.Raw and sets t.Name from it.
func (t *Tool) UnmarshalJSON(data []byte) error {
	nt, err := NewTool(data)
	if err != nil {
		return err
	}
	*t = nt
	return nil
}

// Load reads and parses the bundle file at path, or a PMCP export (see
// Parse). Errors are *Error values whose Source is path.
func Load(path string) (*Bundle, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		cause := err
		var pe *os.PathError
		if errors.As(err, &pe) {
			cause = pe.Err
		}
		return nil, &Error{Source: path, Kind: KindIO, Msg: "cannot read bundle: " + cause.Error(), Err: err}
	}
	return Parse(data, path)
}

// Parse parses and validates a bundle. source names the data in errors
// (usually the file name). Servers come back sorted by ID and tools by Name;
// raw JSON members are compacted. Errors are *Error values.
//
// Parse also reads PMCP's exports, telling them apart by their top-level
// members (see Format), and converts them to a bundle (Bundle.Format says
// which form was read; see FormatPMCP and FormatPMCPCLI for what is kept).
func Parse(data []byte, source string) (*Bundle, error) {
	if form := sniff(data); form != FormatBundle {
		return parsePMCP(data, source, form)
	}
	if err := check(data, source); err != nil {
		return nil, err
	}
	return decode(data, source)
}

// Marshal returns the canonical bytes of b: servers sorted by ID, tools by
// name, raw members re-indented (never re-encoded), two-space indentation
// (values nested deeper than MaxIndentDepth written compact), no HTML
// escaping, a final newline. The same bundle always gives the same bytes,
// and Parse reads them back to an equal bundle. b is not modified.
//
// It fails, writing nothing, when the result would not be a valid bundle:
// a duplicate server id or tool name, a tool whose Raw is not an object with
// the same name, invalid raw JSON, or anything bundle.schema.json rejects.
// What it checks is the document it writes, decoded from b's parts (each
// raw member parsed once), not the bytes parsed again.
func (b *Bundle) Marshal() ([]byte, error) {
	d, err := b.Document()
	if err != nil {
		return nil, err
	}
	return d.Marshal()
}

// Check runs every check of Marshal without writing anything: nil means
// Marshal would succeed.
func (b *Bundle) Check() error {
	_, err := b.Document()
	return err
}

// Document is a bundle as Marshal writes it (servers sorted by ID, their
// tools by name), checked as Marshal checks it, with each raw member
// decoded once: its Marshal encodes it and its CheckSchemasWith reads the
// decoded schemas, neither parsing the raw JSON again. It is a snapshot:
// later changes to the Bundle it came from do not show in it.
type Document struct {
	servers []Server
	// tools holds, per server and per tool in the same order, the tool
	// object as decoded for the checks.
	tools [][]map[string]any
}

// Marshal returns the bytes Bundle.Marshal returns for the bundle d came
// from.
func (d *Document) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(Bundle{BundleVersion: Version, Servers: d.servers}); err != nil {
		return nil, &Error{Kind: KindInvalid, Msg: err.Error(), Err: err}
	}
	return indentJSON(buf.Bytes()), nil
}

// CheckSchemasWith returns what Bundle.CheckSchemasWith returns for the
// bundle d came from (servers in ID order), reading the schemas decoded
// when d was built.
func (d *Document) CheckSchemasWith(o CheckOptions) []Finding {
	var out []Finding
	for i := range d.servers {
		out = append(out, d.servers[i].checkSchemas(o, d.tools[i])...)
	}
	return out
}

// CheckServerSchemasWith is CheckSchemasWith for the server with the given
// id alone (nil when d has none).
func (d *Document) CheckServerSchemasWith(id string, o CheckOptions) []Finding {
	for i := range d.servers {
		if d.servers[i].ID == id {
			return d.servers[i].checkSchemas(o, d.tools[i])
		}
	}
	return nil
}

// Document checks b as Marshal does and returns it ready to write: each
// raw member is parsed once (valid JSON, no key twice), and the decoded
// document is validated against bundle.schema.json. Errors are those of
// Marshal.
func (b *Bundle) Document() (*Document, error) {
	if b.BundleVersion != 0 && b.BundleVersion != Version {
		return nil, &Error{Kind: KindVersion, Pointer: "/bundleVersion",
			Msg: fmt.Sprintf("cannot write bundleVersion %d: this build writes bundleVersion %d", b.BundleVersion, Version)}
	}
	servers := slices.Clone(b.Servers)
	slices.SortStableFunc(servers, func(x, y Server) int { return strings.Compare(x.ID, y.ID) })
	docs := make([]any, len(servers))
	decoded := make([][]map[string]any, len(servers))
	for i := range servers {
		s := &servers[i]
		ptr := fmt.Sprintf("/servers/%d", i)
		if i > 0 && servers[i-1].ID == s.ID {
			return nil, &Error{Kind: KindInvalid, Pointer: ptr + "/id", Msg: fmt.Sprintf("duplicate server id %q", s.ID)}
		}
		doc := map[string]any{"id": s.ID, "protocolVersion": s.ProtocolVersion, "transport": s.Transport, "serverInfo": nil}
		if s.Instructions != "" {
			doc["instructions"] = s.Instructions
		}
		for _, f := range []struct {
			name string
			raw  json.RawMessage
		}{{"serverInfo", s.ServerInfo}, {"capabilities", s.Capabilities}, {"x-mcpbind", s.Extensions}} {
			if len(f.raw) == 0 {
				continue
			}
			v, err := parseInstance(f.raw, "")
			if err != nil {
				return nil, &Error{Kind: KindInvalid, Pointer: ptr + "/" + f.name, Msg: "not valid JSON: " + err.Error(), Err: err}
			}
			doc[f.name] = v
		}
		tools := slices.Clone(s.Tools)
		slices.SortStableFunc(tools, func(x, y Tool) int { return strings.Compare(x.Name, y.Name) })
		toolDocs := make([]any, len(tools))
		decoded[i] = make([]map[string]any, len(tools))
		for j, t := range tools {
			tptr := fmt.Sprintf("%s/tools/%d", ptr, j)
			v, name, err := toolDoc(t.Raw)
			if err != nil {
				return nil, &Error{Kind: KindInvalid, Pointer: tptr, Msg: fmt.Sprintf("tool %q: %v", t.Name, err)}
			}
			if name != t.Name {
				return nil, &Error{Kind: KindInvalid, Pointer: tptr,
					Msg: fmt.Sprintf("tool Name %q differs from the name %q in its raw JSON", t.Name, name)}
			}
			if j > 0 && tools[j-1].Name == t.Name {
				return nil, &Error{Kind: KindInvalid, Pointer: tptr + "/name", Msg: fmt.Sprintf("duplicate tool name %q", t.Name)}
			}
			toolDocs[j] = v
			decoded[i][j] = v
		}
		if tools == nil {
			tools = []Tool{}
		}
		s.Tools = tools
		doc["tools"] = toolDocs
		if err := checkFacts(s, ptr); err != nil {
			return nil, err
		}
		docs[i] = doc
	}
	if servers == nil {
		servers = []Server{}
	}
	sch, err := compiledSchema()
	if err != nil {
		return nil, fmt.Errorf("bundle: embedded schema: %w", err) // a bug in this package
	}
	inst := map[string]any{"bundleVersion": json.Number(strconv.Itoa(Version)), "servers": docs}
	if err := sch.Validate(inst); err != nil {
		if ve, ok := errors.AsType[*jsonschema.ValidationError](err); ok {
			return nil, schemaError(ve, "")
		}
		return nil, &Error{Kind: KindSchema, Msg: err.Error(), Err: err}
	}
	return &Document{servers: servers, tools: decoded}, nil
}

// toolDoc parses a tool's raw JSON once (valid JSON, no key twice) and
// returns it decoded, as the schema validator reads it, with its name. It
// fails as NewTool does on a tool that is not an object with a non-empty
// string "name".
func toolDoc(raw json.RawMessage) (map[string]any, string, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, "", errors.New("tool is not valid JSON: empty")
	}
	v, err := parseInstance(raw, "")
	if err != nil {
		return nil, "", fmt.Errorf("tool is not valid JSON: %w", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, "", errors.New("tool is not a JSON object")
	}
	nv, ok := m["name"]
	if !ok {
		return nil, "", errors.New("missing name")
	}
	name, ok := nv.(string)
	if !ok {
		return nil, "", fmt.Errorf("name is not a string: %v", nv)
	}
	if name == "" {
		return nil, "", errors.New("empty name")
	}
	return m, name, nil
}

// CheckID reports whether id is a valid server id: a non-empty ASCII letter
// or digit, then ASCII letters, digits, '.', '_' or '-' (the pattern of
// "id" in bundle.schema.json).
func CheckID(id string) error { return serverid.Check(id) }
