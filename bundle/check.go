package bundle

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/mcpbind/mcpbind/internal/jsonpointer"
	"github.com/mcpbind/mcpbind/internal/jsonscan"
	"github.com/mcpbind/mcpbind/internal/schema"
)

// Kind classifies an *Error.
type Kind int

// The kinds of Error.
const (
	// KindIO: the file could not be read.
	KindIO Kind = iota + 1
	// KindSyntax: the data is not JSON (empty, truncated, trailing garbage)
	// or has an object with a duplicate key.
	KindSyntax
	// KindVersion: a bundleVersion this build does not read.
	KindVersion
	// KindSchema: the data does not satisfy bundle.schema.json.
	KindSchema
	// KindInvalid: a rule the schema cannot state, such as a duplicate
	// server id or tool name.
	KindInvalid
)

// String names the kind.
func (k Kind) String() string {
	switch k {
	case KindIO:
		return "io"
	case KindSyntax:
		return "syntax"
	case KindVersion:
		return "version"
	case KindSchema:
		return "schema"
	case KindInvalid:
		return "invalid"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Error is a problem with a bundle, located in its source. Its message reads
// like "bundle.json: /servers/0/tools/3: missing property 'name'" or, for a
// JSON syntax error, "bundle.json:3:14: unexpected end of JSON input (byte
// offset 57)".
type Error struct {
	// Source is the file name given to Parse or Load ("" for Marshal).
	Source string
	// Kind classifies the problem.
	Kind Kind
	// Pointer is the JSON pointer (RFC 6901) of the offending value; ""
	// for the whole document or a syntax error.
	Pointer string
	// Line and Column (1-based, in bytes) locate a syntax error; 0 otherwise.
	Line, Column int
	// Offset is the byte offset of a syntax error; 0 otherwise.
	Offset int64
	// Msg says what is wrong.
	Msg string
	// Err is the underlying error, if any.
	Err error
}

// Error formats the error as "SOURCE[:LINE:COL]: [POINTER: ]MSG".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Source)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	if e.Pointer != "" {
		b.WriteString(e.Pointer)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Kind == KindSyntax && e.Line > 0 {
		fmt.Fprintf(&b, " (byte offset %d)", e.Offset)
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

//go:embed bundle.schema.json
var schemaText string

// schemaURL is the $id of bundle.schema.json.
const schemaURL = "https://github.com/mcpbind/mcpbind/bundle/bundle.schema.json"

// Schema returns the JSON Schema (draft 2020-12) of the bundle format that
// Parse validates against.
func Schema() []byte { return []byte(schemaText) }

// compiledSchema compiles the embedded schema once; the result is immutable.
var compiledSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(schemaText))
	if err != nil {
		return nil, err
	}
	c := schema.NewCompiler()
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	return c.Compile(schemaURL)
})

// check runs every check but the duplicate-name ones that need decoding.
// The data is decoded once: the same pass finds duplicate keys and builds
// the instance that the version check and the schema read.
func check(data []byte, source string) error {
	inst, err := parseInstance(data, source)
	if err != nil {
		return err
	}
	if err := checkVersion(inst, source); err != nil {
		return err
	}
	sch, err := compiledSchema()
	if err != nil {
		return fmt.Errorf("bundle: embedded schema: %w", err) // a bug in this package
	}
	if err := sch.Validate(inst); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return &Error{Source: source, Kind: KindSchema, Msg: err.Error(), Err: err}
		}
		return schemaError(ve, source)
	}
	return nil
}

// parseInstance runs the checks that apply to any JSON input (not empty,
// valid JSON, no duplicate key) and returns the decoded value, with
// numbers as json.Number, as the schema validator reads it.
func parseInstance(data []byte, source string) (any, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &Error{Source: source, Kind: KindSyntax, Line: 1, Column: 1, Msg: "empty file, not an mcpbind bundle"}
	}
	if !json.Valid(data) {
		err := json.Unmarshal(data, new(json.RawMessage))
		if err == nil {
			err = errors.New("invalid JSON")
		}
		return nil, syntaxError(data, source, err)
	}
	// Fast path: decode, then compare the number of object members in the
	// text (one ':' outside strings each) with the keys decoded. Equal
	// means no object has a key twice; otherwise the token walk finds and
	// locates the duplicate.
	if inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data)); err == nil && countMembers(data) == countKeys(inst) {
		return inst, nil
	}
	inst, derr := decodeUnique(data)
	if derr != nil {
		derr.Source = source
		return nil, derr
	}
	return inst, nil
}

// countMembers counts the object members of valid JSON data: the colons
// outside strings.
func countMembers(data []byte) int {
	n := 0
	jsonscan.Outside(data, func(c byte) bool {
		if c == ':' {
			n++
		}
		return true
	})
	return n
}

// countKeys counts the keys of every object in a decoded value.
func countKeys(v any) int {
	switch v := v.(type) {
	case map[string]any:
		n := len(v)
		for _, e := range v {
			n += countKeys(e)
		}
		return n
	case []any:
		n := 0
		for _, e := range v {
			n += countKeys(e)
		}
		return n
	}
	return 0
}

// syntaxError locates a JSON syntax error.
func syntaxError(data []byte, source string, err error) *Error {
	off := int64(len(data))
	msg := err.Error()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
		msg = strings.TrimPrefix(se.Error(), "json: ")
	} else if errors.Is(err, io.ErrUnexpectedEOF) {
		msg = "unexpected end of JSON input"
	}
	if msg == "unexpected end of JSON input" {
		msg += " (truncated file?)"
	}
	// The decoder reports the offset after the offending byte.
	at := min(max(off-1, 0), int64(len(data)))
	line := 1 + bytes.Count(data[:at], []byte("\n"))
	col := int(at) - bytes.LastIndexByte(data[:at], '\n')
	return &Error{Source: source, Kind: KindSyntax, Line: line, Column: col, Offset: off, Msg: msg, Err: err}
}

// decodeUnique decodes valid JSON data into map[string]any, []any,
// json.Number, string, bool and nil, failing on an object with the same
// key twice (readers disagree on which one wins). One pass over the data.
func decodeUnique(data []byte) (any, *Error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var walk func(path []string) (any, *Error)
	walk = func(path []string) (any, *Error) {
		tok, err := dec.Token()
		if err != nil {
			return nil, &Error{Kind: KindSyntax, Pointer: jsonpointer.Append("", path...), Msg: err.Error(), Err: err}
		}
		switch tok {
		case json.Delim('{'):
			obj := map[string]any{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, &Error{Kind: KindSyntax, Pointer: jsonpointer.Append("", path...), Msg: err.Error(), Err: err}
				}
				k := kt.(string)
				if _, seen := obj[k]; seen {
					return nil, &Error{Kind: KindSyntax, Pointer: jsonpointer.Append("", path...), Msg: fmt.Sprintf("duplicate key %q", k)}
				}
				v, err2 := walk(append(path, k))
				if err2 != nil {
					return nil, err2
				}
				obj[k] = v
			}
			_, _ = dec.Token()
			return obj, nil
		case json.Delim('['):
			arr := []any{}
			for i := 0; dec.More(); i++ {
				v, err := walk(append(path, strconv.Itoa(i)))
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, _ = dec.Token()
			return arr, nil
		}
		return tok, nil
	}
	return walk(nil)
}

// checkVersion reports a numeric bundleVersion other than Version before the
// schema check, so that a newer bundle gets a clear message rather than
// whatever its new shape violates. A missing or non-numeric one is left to
// the schema.
func checkVersion(inst any, source string) error {
	head, ok := inst.(map[string]any)
	if !ok {
		return nil // not an object: the schema says so
	}
	var n json.Number
	switch v := head["bundleVersion"].(type) {
	case json.Number:
		n = v
	case string: // encoding/json reads a quoted number as a json.Number too
		if json.Unmarshal([]byte(strconv.Quote(v)), &n) != nil {
			return nil
		}
	default:
		return nil
	}
	if f, err := n.Float64(); err == nil && f == Version {
		return nil
	}
	msg := fmt.Sprintf("unsupported bundleVersion %s: this build of mcpbind reads bundleVersion %d", n, Version)
	if f, err := n.Float64(); err == nil && f > Version {
		msg += " (the bundle was written by a newer mcpbind)"
	}
	return &Error{Source: source, Kind: KindVersion, Pointer: "/bundleVersion", Msg: msg}
}

// schemaError reports the first (in document order) innermost violation, and
// how many others there are.
func schemaError(ve *jsonschema.ValidationError, source string) *Error {
	leaves := leafErrors(ve)
	p := message.NewPrinter(language.English)
	first := leaves[0]
	msg := first.ErrorKind.LocalizedString(p)
	if n := len(leaves) - 1; n > 0 {
		msg += fmt.Sprintf(" (and %d more problem", n)
		if n > 1 {
			msg += "s"
		}
		msg += ")"
	}
	return &Error{Source: source, Kind: KindSchema, Pointer: jsonpointer.Append("", first.InstanceLocation...), Msg: msg, Err: ve}
}

// decode turns checked data into a Bundle, sorted, and rejects duplicate
// server ids and tool names.
func decode(data []byte, source string) (*Bundle, error) {
	fail := func(ptr, msg string, err error) error {
		return &Error{Source: source, Kind: KindInvalid, Pointer: ptr, Msg: msg, Err: err}
	}
	var top struct {
		Servers []json.RawMessage `json:"servers"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fail("", err.Error(), err)
	}
	b := &Bundle{BundleVersion: Version, Servers: make([]Server, 0, len(top.Servers))}
	ids := map[string]int{}
	for i, sraw := range top.Servers {
		sptr := fmt.Sprintf("/servers/%d", i)
		var m map[string]json.RawMessage // exact keys
		if err := json.Unmarshal(sraw, &m); err != nil {
			return nil, fail(sptr, err.Error(), err)
		}
		var s Server
		var tools []json.RawMessage
		for _, f := range []struct {
			key string
			dst any
		}{
			{"id", &s.ID}, {"protocolVersion", &s.ProtocolVersion}, {"transport", &s.Transport},
			{"instructions", &s.Instructions}, {"tools", &tools},
		} {
			if raw, ok := m[f.key]; ok {
				if err := json.Unmarshal(raw, f.dst); err != nil {
					return nil, fail(sptr+"/"+f.key, err.Error(), err)
				}
			}
		}
		s.ServerInfo = compact(m["serverInfo"])
		s.Capabilities = compact(m["capabilities"])
		s.Extensions = compact(m["x-mcpbind"])
		if j, dup := ids[s.ID]; dup {
			return nil, fail(sptr+"/id", fmt.Sprintf("duplicate server id %q (also at /servers/%d)", s.ID, j), nil)
		}
		ids[s.ID] = i
		names := map[string]int{}
		s.Tools = make([]Tool, 0, len(tools))
		for j, traw := range tools {
			tptr := fmt.Sprintf("%s/tools/%d", sptr, j)
			t, err := NewTool(traw)
			if err != nil {
				return nil, fail(tptr, err.Error(), err)
			}
			if k, dup := names[t.Name]; dup {
				return nil, fail(tptr+"/name", fmt.Sprintf("duplicate tool name %q (also at %s/tools/%d)", t.Name, sptr, k), nil)
			}
			names[t.Name] = j
			s.Tools = append(s.Tools, t)
		}
		slices.SortStableFunc(s.Tools, func(x, y Tool) int { return strings.Compare(x.Name, y.Name) })
		b.Warnings = append(b.Warnings, pruneStaleFacts(&s, sptr)...)
		if err := checkFacts(&s, sptr); err != nil {
			err.Source = source
			return nil, err
		}
		b.Servers = append(b.Servers, s)
	}
	slices.SortStableFunc(b.Servers, func(x, y Server) int { return strings.Compare(x.ID, y.ID) })
	return b, nil
}

// compact returns raw without insignificant whitespace, or nil when empty.
func compact(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return slices.Clone(raw) // cannot happen after check
	}
	return buf.Bytes()
}

// leafErrors returns the innermost errors of a validation error tree,
// sorted (stably) by the instance location they are about.
func leafErrors(ve *jsonschema.ValidationError) []*jsonschema.ValidationError {
	var leaves []*jsonschema.ValidationError
	var collect func(e *jsonschema.ValidationError)
	collect = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			leaves = append(leaves, e)
			return
		}
		for _, c := range e.Causes {
			collect(c)
		}
	}
	collect(ve)
	slices.SortStableFunc(leaves, func(a, b *jsonschema.ValidationError) int {
		return slices.Compare(a.InstanceLocation, b.InstanceLocation)
	})
	return leaves
}
