package bundle

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/mcpbind/mcpbind/internal/jsonpointer"
	"github.com/mcpbind/mcpbind/internal/schema"
)

// Finding is a problem with one schema of a bundle: a schema that its
// dialect's meta-schema rejects, an inputSchema whose root is not
// "type": "object", or recorded facts that do not match the tools.
// Findings are warnings for `mcpbind export` (errors with --strict) and
// the result of `mcpbind validate`.
type Finding struct {
	// Server is the server id.
	Server string
	// Tool is the tool name; "" for a finding about the server.
	Tool string
	// Schema names the schema: "inputSchema", "outputSchema" or
	// "x-mcpbind naturalOutputSchema"; or "x-mcpbind" for a finding about
	// recorded facts.
	Schema string
	// Pointer is the JSON pointer (RFC 6901) of the offending value within
	// the schema; "" for its root.
	Pointer string
	// Msg says what is wrong.
	Msg string
}

// String formats the finding as
// `server "s", tool "t", inputSchema#/properties/a: MSG`.
func (f Finding) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "server %q", f.Server)
	if f.Tool != "" {
		fmt.Fprintf(&b, ", tool %q", f.Tool)
	}
	if f.Schema != "" {
		b.WriteString(", ")
		b.WriteString(f.Schema)
		if f.Pointer != "" {
			b.WriteString("#")
			b.WriteString(f.Pointer)
		}
	}
	b.WriteString(": ")
	b.WriteString(f.Msg)
	return b.String()
}

// metaSchemas holds, per dialect name, a function that compiles that
// dialect's embedded meta-schema on first use and returns the same
// immutable result afterwards: a process compiles each meta-schema at most
// once, and only those of the dialects its schemas use (usually 2020-12
// alone). Built once at init and only read afterwards.
var metaSchemas = func() map[schema.Dialect]func() (*jsonschema.Schema, error) {
	m := map[schema.Dialect]func() (*jsonschema.Schema, error){}
	for _, d := range schema.Dialects() {
		m[d] = sync.OnceValues(func() (*jsonschema.Schema, error) {
			s, err := schema.NewCompiler().Compile(d.MetaSchemaURL())
			if err != nil {
				return nil, fmt.Errorf("bundle: meta-schema %s: %w", d, err)
			}
			return s, nil
		})
	}
	return m
}()

// CheckOptions bound the schema checks.
type CheckOptions struct {
	// MaxSchemaDepth bounds how deep sub-schemas may nest (the root is
	// depth 0; each sub-schema is one deeper than the schema that holds
	// it). A deeper schema is one finding at the first sub-schema beyond
	// the limit, and is not checked against its meta-schema. Zero or less
	// means DefaultMaxSchemaDepth.
	MaxSchemaDepth int
}

// DefaultMaxSchemaDepth is the CheckOptions.MaxSchemaDepth used when it is
// zero, the same default as the generator's (ir.DefaultMaxSchemaDepth).
const DefaultMaxSchemaDepth = schema.DefaultMaxDepth

// CheckSchemas checks every schema of every server of b; see
// Server.CheckSchemas.
func (b *Bundle) CheckSchemas() []Finding { return b.CheckSchemasWith(CheckOptions{}) }

// CheckSchemasWith is CheckSchemas with options.
func (b *Bundle) CheckSchemasWith(o CheckOptions) []Finding {
	var out []Finding
	for i := range b.Servers {
		out = append(out, b.Servers[i].CheckSchemasWith(o)...)
	}
	return out
}

// CheckSchemas checks each tool's inputSchema and outputSchema, and the
// natural output schemas recorded under x-mcpbind, against the meta-schema
// of their dialect: the one "$schema" names (draft-04, draft-06, draft-07,
// 2019-09 or 2020-12), else 2020-12. Nothing is fetched: a "$schema" naming
// another meta-schema is itself a finding. An inputSchema must also have
// the root "type": "object" that MCP requires.
//
// Findings come in tool order, then schema, then pointer order. Format
// assertions are left out (a "pattern" is an ECMA-262 regex that Go's
// regexp need not accept), as are unresolved $refs (the IR reports those).
func (s *Server) CheckSchemas() []Finding { return s.CheckSchemasWith(CheckOptions{}) }

// CheckSchemasWith is CheckSchemas with options.
func (s *Server) CheckSchemasWith(o CheckOptions) []Finding { return s.checkSchemas(o, nil) }

// checkSchemas is CheckSchemasWith. docs, when not nil, holds s's tools
// decoded (see Document), one per tool in order; their schemas are read
// from there rather than parsed again from the tools' raw JSON.
func (s *Server) checkSchemas(o CheckOptions, docs []map[string]any) []Finding {
	max := o.MaxSchemaDepth
	if max <= 0 {
		max = DefaultMaxSchemaDepth
	}
	var out []Finding
	facts, _ := s.Facts()
	for i, t := range s.Tools {
		var fs []Finding
		ok := false
		if docs != nil {
			fs, ok = decodedToolFindings(docs[i], max)
		}
		if !ok {
			fs = rawToolFindings(t.Raw, max)
		}
		for _, f := range fs {
			f.Server, f.Tool = s.ID, t.Name
			out = append(out, f)
		}
		if ev := facts.Tools[t.Name].Envelope; ev != nil && len(ev.NaturalOutputSchema) > 0 {
			for _, f := range checkSchema(ev.NaturalOutputSchema, max) {
				f.Server, f.Tool, f.Schema = s.ID, t.Name, "x-mcpbind naturalOutputSchema"
				out = append(out, f)
			}
		}
	}
	return out
}

// rawToolFindings checks the schemas of a raw tool (Schema, Pointer and
// Msg set), decoding each once.
func rawToolFindings(tool json.RawMessage, max int) []Finding {
	var out []Finding
	var members map[string]json.RawMessage // decoded once per tool
	_ = json.Unmarshal(tool, &members)
	for _, key := range []string{"inputSchema", "outputSchema"} {
		raw := members[key]
		if raw == nil {
			continue
		}
		doc, fs := decodeSchema(raw, max)
		if fs == nil {
			fs = checkDoc(doc)
		}
		for _, f := range fs {
			f.Schema = key
			out = append(out, f)
		}
		if key == "inputSchema" && doc != nil {
			if msg := objectRootProblem(doc, raw); msg != "" {
				out = append(out, Finding{Schema: key, Msg: msg})
			}
		}
	}
	return out
}

// decodedToolFindings is rawToolFindings of a tool already decoded (as
// parseInstance decodes it), without parsing anything. It returns false,
// and no findings, when the raw text is needed: a schema that is not an
// object, or whose JSON nesting is deeper than max (which sub-schemas can
// be only then).
func decodedToolFindings(tool map[string]any, max int) ([]Finding, bool) {
	var out []Finding
	for _, key := range []string{"inputSchema", "outputSchema"} {
		v, present := tool[key]
		if !present {
			continue
		}
		doc, isObject := v.(map[string]any)
		if !isObject || deeperThan(doc, max) {
			return nil, false
		}
		for _, f := range checkDoc(doc) {
			f.Schema = key
			out = append(out, f)
		}
		if key == "inputSchema" {
			if msg := objectRootProblem(doc, nil); msg != "" {
				out = append(out, Finding{Schema: key, Msg: msg})
			}
		}
	}
	return out, true
}

// deeperThan reports whether objects and arrays nest more than n levels
// deep in v (a scalar nests 0 levels, {} one).
func deeperThan(v any, n int) bool {
	var elems []any
	switch v := v.(type) {
	case map[string]any:
		if n == 0 {
			return true
		}
		for _, e := range v {
			if deeperThan(e, n-1) {
				return true
			}
		}
	case []any:
		if n == 0 {
			return true
		}
		elems = v
	}
	for _, e := range elems {
		if deeperThan(e, n-1) {
			return true
		}
	}
	return false
}

// CheckDigests compares the digests recorded under x-mcpbind with the
// tools: a mismatch means the tools were edited after export, or the facts
// were. Digests that are not recorded are not findings.
func (s *Server) CheckDigests() []Finding {
	facts, err := s.Facts()
	if err != nil {
		return []Finding{{Server: s.ID, Schema: "x-mcpbind", Msg: err.Error()}}
	}
	if facts.Digest == "" && len(facts.Tools) == 0 {
		return nil
	}
	server, tools, err := s.ComputeDigests()
	if err != nil {
		return []Finding{{Server: s.ID, Schema: "x-mcpbind", Msg: "cannot compute digests: " + err.Error()}}
	}
	var out []Finding
	for _, t := range s.Tools {
		if rec := facts.Tools[t.Name].Digest; rec != "" && rec != tools[t.Name] {
			out = append(out, Finding{Server: s.ID, Tool: t.Name, Schema: "x-mcpbind",
				Msg: fmt.Sprintf("recorded digest %s, but the tool's digest is %s (edited after export?)", rec, tools[t.Name])})
		}
	}
	if facts.Digest != "" && facts.Digest != server {
		out = append(out, Finding{Server: s.ID, Schema: "x-mcpbind",
			Msg: fmt.Sprintf("recorded server digest %s, but the tools' digest is %s (edited after export?)", facts.Digest, server)})
	}
	return out
}

// checkSchema validates one schema against its dialect's meta-schema. The
// findings have Pointer and Msg set.
func checkSchema(raw json.RawMessage, maxDepth int) []Finding {
	doc, fs := decodeSchema(raw, maxDepth)
	if fs != nil {
		return fs
	}
	return checkDoc(doc)
}

// decodeSchema decodes a schema as the validator reads it (numbers as
// json.Number); a schema that is not JSON, or nests sub-schemas deeper
// than maxDepth, is a finding (with the decoded document, so other checks
// of the root can still run).
func decodeSchema(raw json.RawMessage, maxDepth int) (any, []Finding) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, []Finding{{Msg: "not JSON: " + err.Error()}}
	}
	if ptr, deep := schema.Parse(raw).TooDeep(maxDepth); deep {
		return doc, []Finding{{Pointer: ptr,
			Msg: fmt.Sprintf("the schema nests deeper than %d levels (the limit; raise it with --max-schema-depth); not checked against its meta-schema", maxDepth)}}
	}
	return doc, nil
}

// checkDoc is checkSchema of a decoded schema.
func checkDoc(doc any) []Finding {
	dialect := schema.Draft2020
	if obj, ok := doc.(map[string]any); ok {
		if v, present := obj["$schema"]; present {
			uri, isString := v.(string)
			name := schema.DialectOf(uri)
			switch {
			case !isString:
				return []Finding{{Pointer: "/$schema", Msg: fmt.Sprintf("$schema is a %s, not a URI string", jsonKind(v))}}
			case name == schema.DialectUnknown || name == schema.Draft03:
				return []Finding{{Pointer: "/$schema", Msg: fmt.Sprintf("unknown $schema %q: mcpbind checks draft-04, draft-06, draft-07, 2019-09 and 2020-12 schemas and never fetches a meta-schema", uri)}}
			}
			dialect = name
		}
	}
	meta, err := metaSchemas[dialect]()
	if err != nil {
		return []Finding{{Msg: err.Error()}} // a bug in this package
	}
	err = meta.Validate(doc)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Finding{{Msg: err.Error()}}
	}
	return metaFindings(ve, dialect.String())
}

// metaFindings turns a meta-schema validation error into one finding per
// location: the innermost errors there, joined with "; ".
func metaFindings(ve *jsonschema.ValidationError, dialect string) []Finding {
	leaves := leafErrors(ve)
	p := message.NewPrinter(language.English)
	var ptrs []string
	msgs := map[string][]string{}
	for _, l := range leaves {
		ptr := jsonpointer.Append("", l.InstanceLocation...)
		msg := l.ErrorKind.LocalizedString(p)
		if _, seen := msgs[ptr]; !seen {
			ptrs = append(ptrs, ptr)
		}
		if !slices.Contains(msgs[ptr], msg) {
			msgs[ptr] = append(msgs[ptr], msg)
		}
	}
	out := make([]Finding, 0, len(ptrs))
	for _, ptr := range ptrs {
		out = append(out, Finding{Pointer: ptr, Msg: strings.Join(msgs[ptr], "; ") + " (meta-schema " + dialect + ")"})
	}
	return out
}

// objectRootProblem says why an inputSchema root, decoded from raw, is not
// the {"type": "object", …} that MCP requires, or "" when it is.
func objectRootProblem(root any, raw json.RawMessage) string {
	obj, ok := root.(map[string]any)
	if !ok {
		return fmt.Sprintf(`the root must be an object schema with "type": "object", as MCP requires; got the %s %s`, jsonKind(root), clip(raw, 40))
	}
	typ, present := obj["type"]
	switch {
	case !present:
		return `the root has no "type"; MCP requires "type": "object"`
	case typ == "object":
		return ""
	default:
		t, _ := json.Marshal(typ)
		return fmt.Sprintf(`the root has "type": %s; MCP requires "type": "object"`, t)
	}
}

// jsonKind names the JSON kind of a decoded value.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number, float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// clip shortens raw JSON for a message.
func clip(raw []byte, n int) string {
	if len(raw) > n {
		return string(raw[:n]) + "…"
	}
	return string(raw)
}
