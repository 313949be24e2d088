package composition

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/mcpbind/mcpbind/composition/bindimpl"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpbind/mcpbind/internal/rawjson"
)

// Own tools: the tools a composing server declares itself, with Go types,
// served by the same runtime as a generated Register (Serve) and called in
// tests like a generated client's method.

// OwnTool is a tool a server declares with Go types: In is its arguments
// (a struct, encoded as a JSON object), Out its result. Make one with
// [NewTool], usually in a package-level variable; it is immutable and safe
// for concurrent use.
//
// Serving: [OwnTool.Serve] binds the handler, and [Serve] adds the tool to
// an mcp-go server, alone or with other own tools, in one call or several
// (a generated Register may add its tools to the same server):
//
//	var tableReport = composition.NewTool[ReportArgs, Report]("table_report",
//		"Report the tables of the database.",
//		composition.WithTitle("Table report"),
//		composition.WithAnnotations(composition.Annotations{ReadOnly: true, Idempotent: true}))
//
//	err := composition.Serve(s, []composition.ServedTool{tableReport.Serve(d.tableReport)})
//
// Testing: [OwnTool.Call] calls the tool, typed, through any [Caller] —
// in a test, a session connected in process, no export needed:
//
//	s, err := composition.Connect(ctx, composition.InProcess(srv))
//	rep, err := tableReport.Call(ctx, s, ReportArgs{SampleRows: 2}) // Report, error
//
// The call goes through the same JSON-RPC, argument check, era envelope
// and decoding as a generated client's, so a test sees what a client sees.
type OwnTool[In, Out any] struct {
	tool         bindimpl.Tool
	toolJSON     string
	legacyOutput string
	// fill: Out can hold a slice or map that encodes as [] or {} when nil
	// (see emptyNils); fillIn: In can; ptr: Out is a pointer, whose nil is
	// refused.
	fill, fillIn, ptr bool
	// err is why the declaration failed (schema inference), reported by
	// Serve (through composition.Serve) and by Call.
	err error
}

// Annotations are the hints of a tool's annotations (MCP specification,
// server/tools, ToolAnnotations). All four are listed as given, false
// included, so the specification's defaults (destructive and open-world
// when absent) never apply to an own tool.
type Annotations struct {
	// ReadOnly (readOnlyHint): the tool does not modify its environment.
	ReadOnly bool
	// Destructive (destructiveHint): the tool may delete or overwrite.
	Destructive bool
	// Idempotent (idempotentHint): a second call with the same arguments
	// has no further effect.
	Idempotent bool
	// OpenWorld (openWorldHint): the tool reaches entities outside the
	// server's control (the web, a third party).
	OpenWorld bool
}

// ToolOption sets an optional member of an own tool's object ([NewTool]).
type ToolOption struct {
	apply func(*ownToolObject)
}

// WithTitle sets the tool's title, its name for people.
func WithTitle(title string) ToolOption {
	return ToolOption{apply: func(o *ownToolObject) { o.Title = title }}
}

// WithAnnotations sets the tool's annotations. Without it the tool is
// listed with "annotations": {}.
func WithAnnotations(a Annotations) ToolOption {
	return ToolOption{apply: func(o *ownToolObject) {
		o.Annotations = &ownAnnotations{ReadOnly: a.ReadOnly, Destructive: a.Destructive, Idempotent: a.Idempotent, OpenWorld: a.OpenWorld}
	}}
}

// WithToolMeta sets the tool's _meta object: JSON text of an object, keys
// as the MCP specification's _meta rules allow (basic/index, "General
// fields"). Text that is not a JSON object makes the declaration fail.
func WithToolMeta(meta string) ToolOption {
	return ToolOption{apply: func(o *ownToolObject) { o.Meta = json.RawMessage(meta) }}
}

// ownToolObject is the tool object an own tool is listed with, in this
// member order.
type ownToolObject struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	Annotations  *ownAnnotations `json:"annotations,omitempty"`
	Meta         json.RawMessage `json:"_meta,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
}

// ownAnnotations is Annotations as listed.
type ownAnnotations struct {
	ReadOnly    bool `json:"readOnlyHint"`
	Destructive bool `json:"destructiveHint"`
	Idempotent  bool `json:"idempotentHint"`
	OpenWorld   bool `json:"openWorldHint"`
}

// NewTool declares the tool name (as tools/list names it) with a
// description, arguments In and result Out. Its inputSchema and
// outputSchema are inferred from In and Out by
// github.com/google/jsonschema-go (jsonschema.For): a field's `json` name,
// required unless omitempty or omitzero, no other properties for a struct,
// the `jsonschema` tag as the property's description, fields in
// declaration order. Two changes: a Go slice is typed "array" (not
// ["null","array"]; a nil slice in a result is sent as [], and a nil map,
// typed "object", as {}, so the result
// matches), and a json.RawMessage is any JSON value (the schema true). Out may be a
// pointer: its schema is the pointee's, and a handler's nil is a tool
// error.
//
// In must be a struct (its schema an object). When Out's schema is not a
// plain "type":"object" (an int, a []T, an interface), the tool is
// listed and answered by era as a generated Register does
// ([ServedTool.WithLegacyOutputSchema]): natural toward 2026-07-28 clients,
// wrapped as {"result": v} with the envelope schema toward earlier ones.
//
// A type the library cannot describe (a channel, a func, a map with
// non-string keys, a cycle), or In not an object, does not panic: Serve's
// tool makes [Serve] fail naming the tool, and Call returns the error.
func NewTool[In, Out any](name, description string, opts ...ToolOption) *OwnTool[In, Out] {
	t := &OwnTool[In, Out]{tool: bindimpl.Tool{Name: name}}
	obj := ownToolObject{Name: name, Description: description}
	for _, o := range opts {
		if o.apply != nil {
			o.apply(&obj)
		}
	}
	if obj.Annotations != nil {
		t.tool.ReadOnly, t.tool.Idempotent = obj.Annotations.ReadOnly, obj.Annotations.Idempotent
	}
	fail := func(format string, args ...any) *OwnTool[In, Out] {
		t.err = fmt.Errorf("composition: declaring tool %q: %s", name, fmt.Sprintf(format, args...))
		return t
	}
	if obj.Meta != nil && (!json.Valid(obj.Meta) || rawjson.Kind(obj.Meta) != '{') {
		return fail("its _meta is not a JSON object")
	}
	in, err := InferSchema(reflect.TypeFor[In]())
	if err != nil {
		return fail("inferring the inputSchema from %s: %v", reflect.TypeFor[In](), err)
	}
	if in.Type != "object" {
		return fail("its arguments type %s is not a struct or map (an inputSchema must be an object)", reflect.TypeFor[In]())
	}
	outType := reflect.TypeFor[Out]()
	t.ptr = outType.Kind() == reflect.Pointer
	if t.ptr {
		outType = outType.Elem()
	}
	out, err := InferSchema(outType)
	if err != nil {
		return fail("inferring the outputSchema from %s: %v", reflect.TypeFor[Out](), err)
	}
	t.fill = holdsNilable(reflect.TypeFor[Out](), map[reflect.Type]bool{})
	t.fillIn = holdsNilable(reflect.TypeFor[In](), map[reflect.Type]bool{})
	_, hasResult := out.Properties["result"]
	t.tool.Output = bindimpl.Output{
		PlainObject:       out.Type == "object",
		CanBeObject:       out.Type == "object" || (out.Type == "" && len(out.Types) == 0),
		HasResultProperty: out.Type == "object" && hasResult,
	}
	if obj.InputSchema, err = json.Marshal(in); err == nil {
		obj.OutputSchema, err = json.Marshal(out)
	}
	if err != nil {
		return fail("encoding its schemas: %v", err)
	}
	if string(obj.OutputSchema) == "true" { // Out is an interface: any value
		obj.OutputSchema = json.RawMessage(`{}`)
	}
	if !t.tool.Output.PlainObject {
		t.legacyOutput = `{"type":"object","properties":{"result":` + string(obj.OutputSchema) + `},"required":["result"]}`
	}
	text, err := json.Marshal(obj)
	if err != nil {
		return fail("encoding its tool object: %v", err)
	}
	t.toolJSON = string(text)
	t.tool.InputDoc, t.tool.OutputDoc = name+"#inputSchema", name+"#outputSchema"
	t.tool.Schemas = bindimpl.NewSchemaSet(map[string]string{
		t.tool.InputDoc:  string(obj.InputSchema),
		t.tool.OutputDoc: string(obj.OutputSchema),
	})
	return t
}

// Serve returns the tool answered by f, for [Serve] (composition.Serve).
// Each call's arguments are first validated against the inputSchema (an
// unknown property, a wrong type, a missing required property is refused,
// before f runs, as a tool error `invalid arguments for tool "name" at
// /pointer: …`, as a generated Register refuses them), then decoded into an
// In with encoding/json. f's value is sent by era as [Serve] states; its
// error is a tool error (isError: true) with the error's text, or a
// [*ToolError]'s Text or Result. With [WithServerResultValidation] the
// value is also checked against the outputSchema ([WithServerArgsValidation]
// adds nothing: an own tool's arguments are always validated). A
// declaration that failed makes Serve fail with its error.
func (t *OwnTool[In, Out]) Serve(f func(ctx context.Context, args In) (Out, error)) ServedTool {
	run := func(ctx context.Context, raw json.RawMessage) (any, error) {
		if err := t.tool.ValidateArgs(ctx, raw); err != nil {
			return nil, err
		}
		var args In
		if err := t.tool.DecodeArgs(raw, &args); err != nil {
			return nil, err
		}
		v, err := f(ctx, args)
		if err != nil {
			return nil, err
		}
		rv := reflect.ValueOf(&v).Elem()
		if t.ptr && rv.IsNil() {
			return nil, fmt.Errorf("the tool returned no result (a nil %s)", rv.Type())
		}
		if t.fill {
			if filled, ok := emptyNils(rv); ok {
				return filled.Interface(), nil
			}
		}
		return v, nil
	}
	return bindimpl.ServeRaw(t.tool, t.toolJSON, run, t.err).WithLegacyOutputSchema(t.legacyOutput)
}

// Call calls the tool through c — a [*Session] (in a test, one connected
// to the server with [InProcess]) or a [Registry]'s server — and returns
// its result decoded into an Out, with the rules of a generated client's
// method (bindimpl.CallAs): the result unwrapped by the era of the session that
// answered, a tool error as a [*ToolError], and the session's validation
// options applied. A nil slice or map in args that the inputSchema
// requires is sent as [] or {}, as the tool sends its results.
func (t *OwnTool[In, Out]) Call(ctx context.Context, c Caller, args In) (Out, error) {
	if t.err != nil {
		var zero Out
		return zero, t.err
	}
	var send any = args
	if t.fillIn {
		if filled, ok := emptyNils(reflect.ValueOf(&args).Elem()); ok {
			send = filled.Interface()
		}
	}
	return bindimpl.CallAs[Out](ctx, c, &t.tool, send)
}

// InferSchema returns the JSON Schema [NewTool] infers for values of the Go
// type rt: jsonschema.ForType of github.com/google/jsonschema-go with a
// slice typed "array" rather than ["null","array"] and a json.RawMessage
// as any JSON value (the schema true). It fails for a type the library
// cannot describe (a channel, a func, a map with non-string keys, a cycle).
func InferSchema(rt reflect.Type) (*jsonschema.Schema, error) {
	s, err := jsonschema.ForType(rt, &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[json.RawMessage](): {},
	}})
	if err != nil {
		return nil, err
	}
	nonNullSlices(s)
	return s, nil
}

// nonNullSlices rewrites every "type":["null","array"] in s (jsonschema-go's
// schema of a Go slice, whose nil marshals as null) to "type":"array".
func nonNullSlices(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if slices.Equal(s.Types, []string{"null", "array"}) {
		s.Types, s.Type = nil, "array"
	}
	nonNullSlices(s.Items)
	nonNullSlices(s.AdditionalProperties)
	for _, p := range s.Properties {
		nonNullSlices(p)
	}
}

// copyOnce sets *out to a copy of rv (an array or a struct) unless it
// already holds one.
func copyOnce(out *reflect.Value, rv reflect.Value) {
	if !out.IsValid() {
		*out = reflect.New(rv.Type()).Elem()
		out.Set(rv)
	}
}

// changed returns out and true when emptyNils made a copy, rv and false
// otherwise.
func changed(out, rv reflect.Value) (reflect.Value, bool) {
	if out.IsValid() {
		return out, true
	}
	return rv, false
}

var marshalerType = reflect.TypeFor[json.Marshaler]()

// ownEncoding reports whether values of rt encode themselves (a
// json.Marshaler, or []byte as base64), so emptyNils leaves them alone.
func ownEncoding(rt reflect.Type) bool {
	return rt.Implements(marshalerType) || reflect.PointerTo(rt).Implements(marshalerType) ||
		(rt.Kind() == reflect.Slice && rt.Elem().Kind() == reflect.Uint8)
}

// holdsNilable reports whether a value of rt can hold a slice or map that
// emptyNils would fill (not inside an interface, whose schema admits
// null).
func holdsNilable(rt reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[rt] || ownEncoding(rt) {
		return false
	}
	seen[rt] = true
	switch rt.Kind() {
	case reflect.Slice, reflect.Map:
		return true
	case reflect.Pointer, reflect.Array:
		return holdsNilable(rt.Elem(), seen)
	case reflect.Struct:
		for _, f := range reflect.VisibleFields(rt) {
			if f.IsExported() && holdsNilable(f.Type, seen) {
				return true
			}
		}
	}
	return false
}

// emptyNils returns rv with every nil slice and map that encoding/json
// would send as null made empty (sent as [] and {}, as their schemas say),
// and true, when it has one; rv and false otherwise. rv is not modified:
// the structs, arrays, maps, slices and pointees on the way to a nil one
// are copied. Left alone: a field whose
// `json` tag omits it when empty (omitempty, omitzero: absent either way,
// or — omitzero — [] instead of absent), values inside interfaces, and
// types that encode themselves.
func emptyNils(rv reflect.Value) (reflect.Value, bool) {
	rt := rv.Type()
	if ownEncoding(rt) {
		return rv, false
	}
	switch rt.Kind() {
	case reflect.Slice:
		if rv.IsNil() {
			return reflect.MakeSlice(rt, 0, 0), true
		}
		var out reflect.Value
		for i := range rv.Len() {
			if e, ok := emptyNils(rv.Index(i)); ok {
				if !out.IsValid() {
					out = reflect.MakeSlice(rt, rv.Len(), rv.Len())
					reflect.Copy(out, rv)
				}
				out.Index(i).Set(e)
			}
		}
		return changed(out, rv)
	case reflect.Array:
		var out reflect.Value
		for i := range rv.Len() {
			if e, ok := emptyNils(rv.Index(i)); ok {
				copyOnce(&out, rv)
				out.Index(i).Set(e)
			}
		}
		return changed(out, rv)
	case reflect.Pointer:
		if rv.IsNil() {
			return rv, false
		}
		e, ok := emptyNils(rv.Elem())
		if !ok {
			return rv, false
		}
		p := reflect.New(rt.Elem())
		p.Elem().Set(e)
		return p, true
	case reflect.Map:
		if rv.IsNil() {
			return reflect.MakeMap(rt), true
		}
		var out reflect.Value
		for it := rv.MapRange(); it.Next(); {
			if e, ok := emptyNils(it.Value()); ok {
				if !out.IsValid() {
					out = reflect.MakeMapWithSize(rt, rv.Len())
					for it2 := rv.MapRange(); it2.Next(); {
						out.SetMapIndex(it2.Key(), it2.Value())
					}
				}
				out.SetMapIndex(it.Key(), e)
			}
		}
		return changed(out, rv)
	case reflect.Struct:
		var out reflect.Value
		for i := range rt.NumField() {
			f := rt.Field(i)
			if !f.IsExported() {
				continue
			}
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" && opts == "" || strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero") {
				continue
			}
			if e, ok := emptyNils(rv.Field(i)); ok {
				copyOnce(&out, rv)
				out.Field(i).Set(e)
			}
		}
		return changed(out, rv)
	}
	return rv, false
}
