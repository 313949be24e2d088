// Package serverconf reads the servers config file (servers.yaml) that
// `mcpbind export --config` and composition/serverconfig.LoadRegistry share,
// and resolves each server's ${NAME} references into plain data: the command
// line or URL, environment, working directory, headers, protocol version,
// timeout, and the values that messages must never show. Resolved.Connection
// is the one mapping of a resolved server to a composition transport and
// options.
package serverconf

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpbind/mcpbind/internal/serverid"
)

// A servers config file lists the MCP servers that `mcpbind export --config`
// exports into one bundle, by id:
//
//	servers:
//	  sqlite:                       # the server's id in the bundle
//	    command: [./sqlite-explorer, --dir, data]   # or a string, plus args: […]
//	    env: {LOG_LEVEL: debug}
//	    cwd: examples               # relative to the config file's folder
//	  remote:
//	    url: https://example.com/mcp
//	    headers: {Authorization: "Bearer ${API_TOKEN}"}
//	    protocolVersion: "2025-06-18"
//	    timeout: 1m
//	  hosted:
//	    url: https://mcp.example.com/mcp
//	    auth: oauth                 # the login kept by `mcpbind login URL`
//	  hosted2:
//	    url: https://mcp.example.org/mcp
//	    auth: {oauth: {clientId: my-client, scopes: [read, write]}}
//
// Strings in command, args, env values, cwd, url and header values may
// reference environment variables as ${NAME}; "$$" is a literal "$". They are
// expanded when a server is resolved (Server.Resolve), never written
// anywhere. Top-level keys starting with "x-" are ignored, so they can hold
// YAML anchors for aliases and merge keys ("<<: *defaults").

// Config is a parsed servers config file.
type Config struct {
	// Source is the file name given to Parse or Load; errors
	// and relative cwd values refer to it.
	Source string
	// Servers are the configured servers, sorted by ID.
	Servers []Server
}

// Server is one configured server, as written: its strings may still
// hold ${NAME} references. Exactly one of Command and URL is set.
type Server struct {
	// ID is the server's id in the bundle (its key under "servers").
	ID string
	// Command is the program of a stdio server followed by its arguments
	// ("command", a string or a list, then "args").
	Command []string
	// Env holds environment variables for a stdio server, added to
	// mcpbind's own, in file order.
	Env []KeyValue
	// Dir is the working directory of a stdio server ("cwd"), as written.
	// Resolve interprets a relative one against the config file's folder,
	// which is also the default.
	Dir string
	// URL is the streamable HTTP endpoint of an HTTP server.
	URL string
	// Headers are HTTP headers sent to an HTTP server, in file order.
	Headers []KeyValue
	// ProtocolVersion pins the MCP protocol version ("" negotiates).
	ProtocolVersion string
	// Timeout bounds connecting and listing tools (0: the caller's default).
	Timeout time.Duration
	// OAuth, set by "auth: oauth", says that an HTTP server is reached with
	// the OAuth login kept by `mcpbind login URL` (MCP authorization).
	OAuth *OAuth

	// Line and Column locate the server's id in the config file.
	Line, Column int

	// source is the config file's name; positions locates values for
	// errors found when resolving, keyed by field (see field names in
	// Resolve's errors).
	source    string
	positions map[string]textPos
}

// OAuth is the "auth" of an HTTP server that uses the kept OAuth login:
// "auth: oauth", or "auth: {oauth: {clientId: ID, scopes: [S, …]}}". Its
// strings are literal (no ${NAME}): they are not secrets.
type OAuth struct {
	// ClientID is the pre-registered client the login was made with; ""
	// for a client mcpbind registered.
	ClientID string
	// Scopes are the scopes to ask for; none: what the server asks for.
	Scopes []string
}

// KeyValue is one entry of an env or headers mapping.
type KeyValue struct {
	// Key is the variable or header name.
	Key string
	// Value is the value as written; it may hold ${NAME} references.
	Value string
}

// Error is a problem with a servers config file, located in it when
// possible. Its message reads like
// `servers.yaml:7:14: server "remote": url: environment variable API_HOST is not set`.
// It never contains the value of a variable, header or env entry.
type Error struct {
	// Source is the config file's name.
	Source string
	// Line and Column (1-based) locate the problem; 0 when unknown.
	Line, Column int
	// Server is the id of the server concerned, or "".
	Server string
	// Msg says what is wrong.
	Msg string
	// Err is the underlying error, if any.
	Err error
}

// Error formats the error as "SOURCE[:LINE:COL]: [server "ID": ]MSG".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Source)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
	}
	b.WriteString(": ")
	if e.Server != "" {
		fmt.Fprintf(&b, "server %q: ", e.Server)
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// Load reads and parses the servers config file at path. Errors are
// *Error values.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		cause := err
		var pe *os.PathError
		if errors.As(err, &pe) {
			cause = pe.Err
		}
		return nil, &Error{Source: path, Msg: "cannot read the servers config: " + cause.Error(), Err: err}
	}
	return Parse(data, path)
}

// Parse parses a servers config file; source names it in errors and
// is the base of relative cwd values. Errors are *Error values that
// give the line and column: YAML syntax errors (including a key given twice),
// an unknown key, a value of the wrong kind, a server with both or neither of
// command and url, an invalid id, URL, header name, protocol version,
// duration or ${…} reference.
func Parse(data []byte, source string) (*Config, error) {
	file, err := parser.ParseBytes(data, 0)
	if err != nil {
		var ye yaml.Error
		if errors.As(err, &ye) && ye.GetToken() != nil {
			p := ye.GetToken().Position
			return nil, &Error{Source: source, Line: p.Line, Column: p.Column, Msg: ye.GetMessage(), Err: err}
		}
		return nil, &Error{Source: source, Msg: err.Error(), Err: err}
	}
	p := &configParser{source: source, anchors: map[string]ast.Node{}}
	return p.parse(file)
}

// configParser walks the YAML syntax tree of a config file.
type configParser struct {
	source  string
	anchors map[string]ast.Node
}

// errAt returns a *Error located at node n.
func (p *configParser) errAt(n ast.Node, server, format string, args ...any) error {
	e := &Error{Source: p.source, Server: server, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		if tk := n.GetToken(); tk != nil {
			e.Line, e.Column = tk.Position.Line, tk.Position.Column
		}
	}
	return e
}

func (p *configParser) parse(file *ast.File) (*Config, error) {
	var body ast.Node
	for i, doc := range file.Docs {
		if doc == nil || doc.Body == nil {
			continue
		}
		if body != nil {
			return nil, p.errAt(doc.Body, "", "more than one YAML document; put every server under one servers: mapping (document %d)", i+1)
		}
		body = doc.Body
	}
	if body == nil {
		return nil, &Error{Source: p.source, Line: 1, Column: 1, Msg: "empty servers config: want a servers: mapping of server ids to servers"}
	}
	ast.Walk(anchorCollector(p.anchors), body)

	cfg := &Config{Source: p.source}
	top, err := p.mapping(body, "", "the servers config")
	if err != nil {
		return nil, err
	}
	var serversNode ast.Node
	for _, e := range top {
		switch {
		case e.key == "servers":
			serversNode = e.value
		case strings.HasPrefix(e.key, "x-"):
			// extension: anchors for aliases elsewhere
		default:
			return nil, p.errAt(e.keyNode, "", "unknown top-level key %q (want servers, or x-… for anchors)", e.key)
		}
	}
	if serversNode == nil {
		return nil, p.errAt(body, "", "missing servers: mapping of server ids to servers")
	}
	servers, err := p.mapping(serversNode, "", "servers")
	if err != nil {
		return nil, err
	}
	if len(servers) == 0 {
		return nil, p.errAt(serversNode, "", "servers is empty: configure at least one server")
	}
	for _, e := range servers {
		if err := serverid.Check(e.key); err != nil {
			return nil, p.errAt(e.keyNode, "", "server id: %v", err)
		}
		sc, err := p.server(e)
		if err != nil {
			return nil, err
		}
		cfg.Servers = append(cfg.Servers, *sc)
	}
	slices.SortFunc(cfg.Servers, func(a, b Server) int { return strings.Compare(a.ID, b.ID) })
	return cfg, nil
}

// serverKeys are the keys of a server mapping.
const serverKeys = "command, args, env, cwd, url, headers, auth, protocolVersion or timeout"

// server reads one server mapping.
func (p *configParser) server(e entry) (*Server, error) {
	id := e.key
	pos := posOf(e.keyNode)
	sc := &Server{ID: id, Line: pos.Line, Column: pos.Column, source: p.source, positions: map[string]textPos{}}
	fields, err := p.mapping(e.value, id, "the server")
	if err != nil {
		return nil, err
	}
	got := map[string]entry{}
	for _, f := range fields {
		got[f.key] = f
	}
	for _, f := range fields {
		if !slices.Contains([]string{"command", "args", "env", "cwd", "url", "headers", "auth", "protocolVersion", "timeout"}, f.key) {
			return nil, p.errAt(f.keyNode, id, "unknown key %q (want %s)", f.key, serverKeys)
		}
	}
	cmd, hasCmd := got["command"]
	u, hasURL := got["url"]
	switch {
	case hasCmd && hasURL:
		return nil, p.errAt(u.keyNode, id, "both command and url: give command for a stdio server or url for an HTTP server")
	case !hasCmd && !hasURL:
		return nil, p.errAt(e.keyNode, id, "neither command nor url: give command for a stdio server or url for an HTTP server")
	}
	stdioOnly, httpOnly := []string{"args", "env", "cwd"}, []string{"headers", "auth"}
	if hasURL {
		for _, k := range stdioOnly {
			if f, ok := got[k]; ok {
				return nil, p.errAt(f.keyNode, id, "%s applies to stdio servers (command); this is an HTTP server (url)", k)
			}
		}
	} else {
		for _, k := range httpOnly {
			if f, ok := got[k]; ok {
				return nil, p.errAt(f.keyNode, id, "%s applies to HTTP servers (url); this is a stdio server (command)", k)
			}
		}
	}

	if hasCmd {
		if sc.Command, err = p.stringOrList(cmd, id, "command"); err != nil {
			return nil, err
		}
		if len(sc.Command) == 0 || sc.Command[0] == "" {
			return nil, p.errAt(cmd.value, id, "command is empty")
		}
		for i := range sc.Command {
			sc.positions[fmt.Sprintf("command[%d]", i)] = position(cmd.value, i)
		}
		if a, ok := got["args"]; ok {
			args, err := p.stringList(a, id, "args")
			if err != nil {
				return nil, err
			}
			for i := range args {
				sc.positions[fmt.Sprintf("command[%d]", len(sc.Command)+i)] = position(a.value, i)
			}
			sc.Command = append(sc.Command, args...)
		}
		if f, ok := got["env"]; ok {
			if sc.Env, err = p.keyValues(f, id, "env", sc.positions); err != nil {
				return nil, err
			}
			for _, kv := range sc.Env {
				if strings.ContainsAny(kv.Key, "=\x00") {
					return nil, p.errAt(f.value, id, "env: invalid variable name %q", kv.Key)
				}
			}
		}
		if f, ok := got["cwd"]; ok {
			if sc.Dir, err = p.scalar(f, id); err != nil {
				return nil, err
			}
			sc.positions["cwd"] = posOf(f.value)
		}
	} else {
		if sc.URL, err = p.scalar(u, id); err != nil {
			return nil, err
		}
		sc.positions["url"] = posOf(u.value)
		if !strings.Contains(sc.URL, "$") {
			if err := checkURL(sc.URL); err != nil {
				return nil, p.errAt(u.value, id, "url: %v", err)
			}
		}
		if f, ok := got["headers"]; ok {
			if sc.Headers, err = p.keyValues(f, id, "headers", sc.positions); err != nil {
				return nil, err
			}
			for _, kv := range sc.Headers {
				if err := checkHeaderName(kv.Key); err != nil {
					return nil, p.errAt(f.value, id, "headers: %v", err)
				}
			}
		}
		if f, ok := got["auth"]; ok {
			if sc.OAuth, err = p.auth(f, id); err != nil {
				return nil, err
			}
			for _, kv := range sc.Headers {
				if strings.EqualFold(kv.Key, "Authorization") {
					return nil, p.errAt(f.keyNode, id, "auth: oauth and an Authorization header both authorize; give one")
				}
			}
		}
	}
	if f, ok := got["protocolVersion"]; ok {
		if sc.ProtocolVersion, err = p.scalar(f, id); err != nil {
			return nil, err
		}
		if !mcp.IsValidProtocolVersion(sc.ProtocolVersion) {
			return nil, p.errAt(f.value, id, "protocolVersion: unknown protocol version %q (known: %s)", sc.ProtocolVersion, strings.Join(mcp.ValidProtocolVersions, ", "))
		}
	}
	if f, ok := got["timeout"]; ok {
		s, err := p.scalar(f, id)
		if err != nil {
			return nil, err
		}
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return nil, p.errAt(f.value, id, "timeout: want a duration such as 30s or 2m, got %q", s)
		}
		sc.Timeout = d
	}
	// Every ${…} reference must be well formed.
	check := func(field, s string) error {
		if _, err := expand(s, func(string) (string, bool) { return "", true }); err != nil {
			return &Error{Source: p.source, Line: sc.positions[field].Line, Column: sc.positions[field].Column, Server: id, Msg: field + ": " + err.Error()}
		}
		return nil
	}
	for _, fv := range sc.templates() {
		if err := check(fv.field, fv.value); err != nil {
			return nil, err
		}
	}
	return sc, nil
}

// auth reads "auth: oauth" or "auth: {oauth: {clientId: …, scopes: […]}}".
func (p *configParser) auth(e entry, id string) (*OAuth, error) {
	n, err := p.deref(e.value, id)
	if err != nil {
		return nil, err
	}
	const want = `want "oauth" or {oauth: {clientId: ID, scopes: [SCOPE, …]}}`
	if s, ok := scalarText(n); ok {
		if s != "oauth" {
			return nil, p.errAt(e.value, id, "auth: unknown %q (%s)", s, want)
		}
		return &OAuth{}, nil
	}
	fields, err := p.mapping(e.value, id, "auth")
	if err != nil {
		return nil, err
	}
	if len(fields) != 1 || fields[0].key != "oauth" {
		return nil, p.errAt(e.value, id, "auth: %s", want)
	}
	o := &OAuth{}
	inner, err := p.mapping(fields[0].value, id, "auth.oauth")
	if err != nil {
		return nil, err
	}
	for _, f := range inner {
		switch f.key {
		case "clientId":
			if o.ClientID, err = p.scalar(f, id); err != nil {
				return nil, err
			}
		case "scopes":
			if o.Scopes, err = p.stringList(f, id, "auth.oauth.scopes"); err != nil {
				return nil, err
			}
			for i, sc := range o.Scopes {
				if sc == "" || strings.ContainsAny(sc, " \t\r\n\"\\") {
					return nil, p.errAt(f.value, id, "auth.oauth.scopes[%d]: %q is not a scope token (RFC 6749 §3.3)", i, sc)
				}
			}
		default:
			return nil, p.errAt(f.keyNode, id, "auth.oauth: unknown key %q (want clientId or scopes)", f.key)
		}
	}
	return o, nil
}

// fieldValue is one string of a Server that may hold references.
type fieldValue struct{ field, value string }

// templates lists the strings of s that may hold ${NAME} references, with
// their field names (the keys of s.positions).
func (s *Server) templates() []fieldValue {
	var out []fieldValue
	for i, v := range s.Command {
		out = append(out, fieldValue{fmt.Sprintf("command[%d]", i), v})
	}
	for _, kv := range s.Env {
		out = append(out, fieldValue{"env." + kv.Key, kv.Value})
	}
	if s.Dir != "" {
		out = append(out, fieldValue{"cwd", s.Dir})
	}
	if s.URL != "" {
		out = append(out, fieldValue{"url", s.URL})
	}
	for _, kv := range s.Headers {
		out = append(out, fieldValue{"headers." + kv.Key, kv.Value})
	}
	return out
}

// entry is one key and value of a YAML mapping, aliases resolved.
type entry struct {
	key     string
	keyNode ast.Node
	value   ast.Node
}

// mapping returns the entries of a mapping node in order, with merge keys
// ("<<") expanded: merged entries come after the mapping's own and never
// override them. A null node is an empty mapping.
func (p *configParser) mapping(n ast.Node, server, what string) ([]entry, error) {
	return p.mappingDepth(n, server, what, 0)
}

func (p *configParser) mappingDepth(n ast.Node, server, what string, depth int) ([]entry, error) {
	if depth > 16 {
		return nil, p.errAt(n, server, "merge keys nested too deeply")
	}
	n, err := p.deref(n, server)
	if err != nil {
		return nil, err
	}
	if _, ok := n.(*ast.NullNode); ok {
		return nil, nil
	}
	m, ok := n.(*ast.MappingNode)
	if !ok {
		return nil, p.errAt(n, server, "%s: want a mapping (key: value lines), got %s", what, describe(n))
	}
	var own, merged []entry
	seen := map[string]bool{}
	for _, mv := range m.Values {
		if _, isMerge := mv.Key.(*ast.MergeKeyNode); isMerge {
			v, err := p.deref(mv.Value, server)
			if err != nil {
				return nil, err
			}
			sources := []ast.Node{v}
			if seq, ok := v.(*ast.SequenceNode); ok {
				sources = seq.Values
			}
			for _, src := range sources {
				es, err := p.mappingDepth(src, server, "merge key <<", depth+1)
				if err != nil {
					return nil, err
				}
				merged = append(merged, es...)
			}
			continue
		}
		keyNode, err := p.deref(mv.Key, server)
		if err != nil {
			return nil, err
		}
		key, ok := scalarText(keyNode)
		if !ok {
			return nil, p.errAt(mv.Key, server, "%s: a key must be a string, got %s", what, describe(keyNode))
		}
		seen[key] = true
		own = append(own, entry{key: key, keyNode: mv.Key, value: mv.Value})
	}
	for _, e := range merged {
		if !seen[e.key] {
			seen[e.key] = true
			own = append(own, e)
		}
	}
	return own, nil
}

// deref follows anchors, aliases and tags to the node holding the value.
func (p *configParser) deref(n ast.Node, server string) (ast.Node, error) {
	for range 64 {
		switch v := n.(type) {
		case *ast.AnchorNode:
			n = v.Value
		case *ast.TagNode:
			n = v.Value
		case *ast.AliasNode:
			name, _ := scalarText(v.Value)
			target, ok := p.anchors[name]
			if !ok {
				return nil, p.errAt(v, server, "alias *%s names no anchor", name)
			}
			n = target
		default:
			return n, nil
		}
	}
	return nil, p.errAt(n, server, "aliases nested too deeply")
}

// scalar reads a string value: any scalar, as written (so that 2025-06-18
// or 8080 stay text).
func (p *configParser) scalar(e entry, server string) (string, error) {
	n, err := p.deref(e.value, server)
	if err != nil {
		return "", err
	}
	s, ok := scalarText(n)
	if !ok {
		return "", p.errAt(e.value, server, "%s: want a string, got %s", e.key, describe(n))
	}
	return s, nil
}

// stringList reads a list of strings (null: empty).
func (p *configParser) stringList(e entry, server, what string) ([]string, error) {
	n, err := p.deref(e.value, server)
	if err != nil {
		return nil, err
	}
	if _, ok := n.(*ast.NullNode); ok {
		return nil, nil
	}
	seq, ok := n.(*ast.SequenceNode)
	if !ok {
		return nil, p.errAt(e.value, server, "%s: want a list of strings, got %s", what, describe(n))
	}
	out := make([]string, 0, len(seq.Values))
	for i, item := range seq.Values {
		v, err := p.deref(item, server)
		if err != nil {
			return nil, err
		}
		s, ok := scalarText(v)
		if !ok {
			return nil, p.errAt(item, server, "%s[%d]: want a string, got %s", what, i, describe(v))
		}
		out = append(out, s)
	}
	return out, nil
}

// stringOrList reads a string (one item) or a list of strings.
func (p *configParser) stringOrList(e entry, server, what string) ([]string, error) {
	n, err := p.deref(e.value, server)
	if err != nil {
		return nil, err
	}
	if s, ok := scalarText(n); ok {
		return []string{s}, nil
	}
	return p.stringList(e, server, what)
}

// keyValues reads a mapping of strings to strings, recording positions under
// what.KEY.
func (p *configParser) keyValues(e entry, server, what string, positions map[string]textPos) ([]KeyValue, error) {
	es, err := p.mapping(e.value, server, what)
	if err != nil {
		return nil, err
	}
	out := make([]KeyValue, 0, len(es))
	for _, kv := range es {
		v, err := p.deref(kv.value, server)
		if err != nil {
			return nil, err
		}
		s, ok := scalarText(v)
		if !ok {
			if _, null := v.(*ast.NullNode); !null {
				return nil, p.errAt(kv.value, server, "%s.%s: want a string, got %s", what, kv.key, describe(v))
			}
		}
		positions[what+"."+kv.key] = posOf(kv.value)
		out = append(out, KeyValue{Key: kv.key, Value: s})
	}
	return out, nil
}

// scalarText returns the text of a scalar node as written (the unquoted
// string of a quoted one, the folded text of a block scalar).
func scalarText(n ast.Node) (string, bool) {
	switch v := n.(type) {
	case *ast.StringNode:
		return v.Value, true
	case *ast.LiteralNode:
		if v.Value != nil {
			return v.Value.Value, true
		}
		return "", true
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode:
		return n.GetToken().Value, true
	}
	return "", false
}

// describe names the kind of a node for messages.
func describe(n ast.Node) string {
	switch n.(type) {
	case *ast.MappingNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a list"
	case *ast.NullNode:
		return "nothing (null)"
	case *ast.StringNode, *ast.LiteralNode:
		return "a string"
	case *ast.IntegerNode, *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		return "a number"
	case *ast.BoolNode:
		return "a boolean"
	}
	return "a " + strings.ToLower(n.Type().String())
}

// textPos is a line and column (1-based) in a config file.
type textPos struct{ Line, Column int }

// posOf returns where node n starts.
func posOf(n ast.Node) textPos {
	if n == nil || n.GetToken() == nil {
		return textPos{}
	}
	p := n.GetToken().Position
	return textPos{p.Line, p.Column}
}

// position returns the position of item i of a list node, or of the node.
func position(n ast.Node, i int) textPos {
	if seq, ok := n.(*ast.SequenceNode); ok && i < len(seq.Values) {
		return posOf(seq.Values[i])
	}
	return posOf(n)
}

// anchorCollector records every anchor of a tree by name.
type anchorCollector map[string]ast.Node

// Visit implements ast.Visitor.
func (a anchorCollector) Visit(n ast.Node) ast.Visitor {
	if an, ok := n.(*ast.AnchorNode); ok {
		if name, ok := scalarText(an.Name); ok {
			a[name] = an.Value
		}
	}
	return a
}

// checkURL reports whether raw is an absolute http or https URL. Its error
// does not quote raw, which may hold a token.
func checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("not an http or https URL")
	}
	return nil
}

// checkHeaderName reports whether name is a valid HTTP header name.
func checkHeaderName(name string) error {
	if name == "" {
		return errors.New("empty header name")
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		if !alnum && !strings.ContainsRune("!#$%&'*+-.^_`|~", rune(c)) {
			return fmt.Errorf("invalid header name %q", name)
		}
	}
	return nil
}

// expand replaces ${NAME} references in s with lookup(NAME) and "$$" with
// "$"; any other "$" stays. It fails on a malformed reference or, naming
// it, an unset variable. Its errors never contain a value.
func expand(s string, lookup func(string) (string, bool)) (string, error) {
	if !strings.Contains(s, "$") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '$' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
		case '{':
			end := strings.IndexByte(s[i+2:], '}')
			if end < 0 {
				return "", errors.New("unterminated ${…} reference (write $$ for a literal $)")
			}
			name := s[i+2 : i+2+end]
			if !validVarName(name) {
				return "", fmt.Errorf("invalid environment variable name %q in ${…} (want letters, digits and _, not starting with a digit)", name)
			}
			v, ok := lookup(name)
			if !ok {
				return "", &UnsetVariableError{Name: name}
			}
			b.WriteString(v)
			i += 2 + end
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// UnsetVariableError is a ${NAME} reference to an environment variable that
// is not set.
type UnsetVariableError struct {
	// Name is the variable's name.
	Name string
}

// Error names the variable.
func (e *UnsetVariableError) Error() string {
	return fmt.Sprintf("environment variable %s is not set", e.Name)
}

func validVarName(name string) bool {
	if name == "" || ('0' <= name[0] && name[0] <= '9') {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// Select returns the servers named by ids, in the order of c.Servers, or
// every server when ids is empty. An id that is not configured is a
// *Error listing the configured ones.
func (c *Config) Select(ids ...string) ([]Server, error) {
	if len(ids) == 0 {
		return slices.Clone(c.Servers), nil
	}
	var known []string
	for _, s := range c.Servers {
		known = append(known, s.ID)
	}
	for _, id := range ids {
		if !slices.Contains(known, id) {
			return nil, &Error{Source: c.Source, Msg: fmt.Sprintf("no server %q is configured (configured: %s)", id, strings.Join(known, ", "))}
		}
	}
	var out []Server
	for _, s := range c.Servers {
		if slices.Contains(ids, s.ID) {
			out = append(out, s)
		}
	}
	return out, nil
}

// Resolved is a server ready to connect to: a Server with its ${NAME}
// references expanded. Exactly one of Command and URL is set.
type Resolved struct {
	// ID is the server's id (its key under "servers").
	ID string
	// Command is the program of a stdio server and its arguments, expanded.
	Command []string
	// Env holds "KEY=VALUE" entries added to a stdio server's environment,
	// in file order.
	Env []string
	// Dir is a stdio server's working directory: cwd taken against the
	// config file's folder, which is also the default. It exists.
	Dir string
	// URL is the streamable HTTP endpoint of an HTTP server.
	URL string
	// Headers are the HTTP headers of an HTTP server, expanded and trimmed,
	// in file order.
	Headers []KeyValue
	// ProtocolVersion pins the MCP protocol version ("" negotiates).
	ProtocolVersion string
	// Timeout bounds connecting and listing tools (0: the caller's default).
	Timeout time.Duration
	// OAuth is the server's "auth: oauth", or nil.
	OAuth *OAuth
	// Secrets are the values (header values, env values, expanded
	// variables) that must not appear in messages or logs.
	Secrets []string
}

// Resolve expands s's ${NAME} references with lookup (os.LookupEnv in
// mcpbind) and returns the server to connect to. A relative cwd is taken
// against the config file's folder, which is also the default working
// directory. Errors are *Error values naming the server, the field and the
// variable (an unset variable wraps an *UnsetVariableError), never a value.
func (s *Server) Resolve(lookup func(string) (string, bool)) (*Resolved, error) {
	r := &Resolved{ID: s.ID, ProtocolVersion: s.ProtocolVersion, Timeout: s.Timeout, OAuth: s.OAuth}
	recording := func(name string) (string, bool) {
		v, ok := lookup(name)
		if ok && v != "" {
			r.Secrets = append(r.Secrets, v)
		}
		return v, ok
	}
	fail := func(field string, err error) error {
		pos := s.positions[field]
		return &Error{Source: s.source, Line: pos.Line, Column: pos.Column, Server: s.ID, Msg: field + ": " + err.Error(), Err: err}
	}
	get := func(field, v string) (string, error) {
		out, err := expand(v, recording)
		if err != nil {
			return "", fail(field, err)
		}
		return out, nil
	}
	if s.URL != "" {
		u, err := get("url", s.URL)
		if err != nil {
			return nil, err
		}
		if err := checkURL(u); err != nil {
			return nil, fail("url", fmt.Errorf("after expanding environment variables: %w", err))
		}
		r.URL = u
		for _, h := range s.Headers {
			field := "headers." + h.Key
			v, err := get(field, h.Value)
			if err != nil {
				return nil, err
			}
			v = strings.TrimSpace(v)
			if strings.ContainsAny(v, "\r\n\x00") {
				return nil, fail(field, errors.New("the value holds a line break or NUL"))
			}
			r.Secrets = append(r.Secrets, v)
			r.Headers = append(r.Headers, KeyValue{Key: h.Key, Value: v})
		}
		return r, nil
	}
	r.Command = make([]string, len(s.Command))
	for i, a := range s.Command {
		v, err := get(fmt.Sprintf("command[%d]", i), a)
		if err != nil {
			return nil, err
		}
		r.Command[i] = v
	}
	if len(r.Command) == 0 || r.Command[0] == "" {
		return nil, fail("command[0]", errors.New("the command is empty after expanding environment variables"))
	}
	for _, kv := range s.Env {
		v, err := get("env."+kv.Key, kv.Value)
		if err != nil {
			return nil, err
		}
		r.Secrets = append(r.Secrets, v)
		r.Env = append(r.Env, kv.Key+"="+v)
	}
	dir, err := get("cwd", s.Dir)
	if err != nil {
		return nil, err
	}
	base := filepath.Dir(s.source)
	switch {
	case dir == "":
		dir = base
	case !filepath.IsAbs(dir):
		dir = filepath.Join(base, dir)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fail("cwd", fmt.Errorf("working directory %s is not a folder", dir))
	}
	r.Dir = dir
	return r, nil
}
