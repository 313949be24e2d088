package ir

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/internal/jsonpointer"
	"github.com/mcpbind/mcpbind/internal/schema"
)

// Config holds what varies between generator runs. The zero value is not
// usable; start from DefaultConfig.
type Config struct {
	// Namer converts JSON names into Go identifiers.
	Namer *Namer
	// Formats maps a JSON Schema "format" (or "contentEncoding:<name>") to a
	// Go type; see DefaultFormats.
	Formats map[string]FormatType
	// TypeNames renames generated types: the name mcpbind would choose →
	// the name to use. Entries that match no type are reported in
	// Package.UsedOverrides' complement (gen reports them).
	TypeNames map[string]string
	// MaxSchemaDepth bounds how deep sub-schemas may nest (the root is
	// depth 0); a deeper schema is an *Error wrapping a *DepthError, located
	// at the first sub-schema beyond the limit. Zero or less means
	// DefaultMaxSchemaDepth.
	MaxSchemaDepth int
}

// DefaultConfig returns the configuration mcpbind uses unless told
// otherwise: the DefaultInitialisms and DefaultFormats, no renames.
func DefaultConfig() Config {
	return Config{Namer: NewNamer(DefaultInitialisms()), Formats: DefaultFormats()}
}

// Error is a schema mcpbind cannot turn into Go. It names the server, the
// tool, which schema of the tool and the JSON pointer inside it.
type Error struct {
	Server, Tool string
	// Schema is "inputSchema" or "outputSchema" ("" for the tool itself).
	Schema string
	// Pointer is the JSON pointer of the offending sub-schema ("" = root).
	Pointer string
	Err     error
}

// Error formats as `server "s", tool "t", outputSchema#/properties/x: msg`.
func (e *Error) Error() string {
	loc := fmt.Sprintf("server %q, tool %q", e.Server, e.Tool)
	if e.Schema != "" {
		loc += ", " + e.Schema + "#" + e.Pointer
	}
	return loc + ": " + e.Err.Error()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// BuildServer turns one bundle server into the IR of a Go package named
// pkgName. Tools are processed by name, whatever their order in srv, so
// names given to colliding identifiers are stable and the package does not
// depend on the order a server lists its tools in.
func BuildServer(srv *bundle.Server, pkgName string, cfg Config) (*Package, error) {
	p := &Package{Name: pkgName, ServerID: srv.ID, ProtocolVersion: srv.ProtocolVersion}
	var info struct{ Name, Version string }
	if len(srv.ServerInfo) > 0 {
		_ = json.Unmarshal(srv.ServerInfo, &info) // optional, display only
	}
	p.ServerName, p.ServerVersion = info.Name, info.Version
	facts, _ := srv.Facts() // decoded once: read for every tool
	p.ServerDigest = facts.Digest

	b := &builder{srv: srv, facts: facts, cfg: cfg, pkg: p, types: newScope(ReservedPackageNames()...), prov: newProvisionals(), methods: newScope(), used: map[string]bool{}}
	// By name, whatever order the server listed them in: names given to
	// colliding identifiers and to merged types follow this order, and the
	// Go API of a contract must not depend on how the tools are listed.
	tools := slices.SortedStableFunc(slices.Values(srv.Tools), func(x, y bundle.Tool) int { return strings.Compare(x.Name, y.Name) })
	for _, t := range tools {
		tool, err := b.tool(t.Raw)
		if err != nil {
			var ie *Error
			if errorsAs(err, &ie) {
				ie.Server = srv.ID
				return nil, ie
			}
			return nil, &Error{Server: srv.ID, Tool: t.Name, Err: err}
		}
		tool.Raw = t.Raw
		p.Tools = append(p.Tools, tool)
	}
	d, aliases := dedupTypes(p)
	names := nameTypes(p, b.cfg.Namer, d, b.prov, aliases, b.cfg.TypeNames, b.used)
	setPointerBases(p)
	slices.SortFunc(p.Schemas, func(a, b SchemaDoc) int { return strings.Compare(a.Key, b.Key) })
	shared, err := sharedMembers(p, b.cfg.Namer, names)
	if err != nil {
		return nil, &Error{Server: srv.ID, Err: err}
	}
	p.SharedMembers = shared
	for k := range b.used {
		p.UsedOverrides = append(p.UsedOverrides, k)
	}
	slices.Sort(p.UsedOverrides)
	return p, nil
}

func errorsAs(err error, target **Error) bool {
	e, ok := err.(*Error)
	if ok {
		*target = e
	}
	return ok
}

type builder struct {
	srv     *bundle.Server
	facts   bundle.Facts // srv's x-mcpbind
	cfg     Config
	pkg     *Package
	types   *scope // the tools' own type names while typing (nameTypes then builds the package scope)
	prov    *provisionals
	methods *scope // Client method names
	// used records the Config entries that applied ("format:<name>",
	// "type:<name>"), so unused overrides can be reported.
	used map[string]bool
}

// typeName claims a package-level name for a generated type whose default
// name is name: a nested type's provisional name (memberName, itemName, …)
// as it is, a tool's own type's as a Go identifier. nameTypes gives the
// final names and applies Config.TypeNames.
func (b *builder) typeName(name string) string {
	if provisional(name) {
		return b.prov.add(name)
	}
	return b.types.claim(b.cfg.Namer.TypeName(name))
}

// rawTool is the part of a tool definition the IR reads.
type rawTool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Annotations  map[string]any  `json:"annotations"`
	Meta         map[string]any  `json:"_meta"`
}

// modernProtocolVersion is the first stateless protocol version: from it on
// servers send natural output schemas (SEP-2106).
const modernProtocolVersion = "2026-07-28"

// outputTypeNameKey is PMCP's annotation (or _meta key) naming a tool's
// result type (../shared/reference/pmcp-output-schema-and-codegen.md).
const outputTypeNameKey = "pmcp:outputTypeName"

func (b *builder) tool(raw json.RawMessage) (*Tool, error) {
	var rt rawTool
	if err := json.Unmarshal(raw, &rt); err != nil {
		return nil, fmt.Errorf("tool definition: %v", err)
	}
	method := b.cfg.Namer.Exported(rt.Name)
	if method == "" {
		method = "Tool"
	}
	t := &Tool{Name: rt.Name, Method: b.methods.claim(method), Digest: b.facts.ToolDigest(rt.Name),
		ReadOnly: rt.Annotations["readOnlyHint"] == true, Idempotent: rt.Annotations["idempotentHint"] == true}
	t.Doc = toolDoc(t.Method, rt)

	// Arguments.
	if len(rt.InputSchema) > 0 {
		t.InputDoc = rt.Name + "#inputSchema"
		ts, err := b.session(rt.Name, "inputSchema", rt.InputSchema)
		if err != nil {
			return nil, err
		}
		ts.objectRoot = true
		ts.hint("", fmt.Sprintf("the argument object of the tool %q", rt.Name))
		args, err := ts.args(t.Method + "Args")
		if err != nil {
			return nil, &Error{Tool: rt.Name, Schema: "inputSchema", Pointer: ts.errPtr, Err: err}
		}
		t.Args = args
	}

	// Result.
	if len(rt.OutputSchema) > 0 {
		t.OutputDoc = rt.Name + "#outputSchema"
		ts, err := b.session(rt.Name, "outputSchema", rt.OutputSchema)
		if err != nil {
			return nil, err
		}
		name := b.cfg.Namer.Exported(firstNonEmpty(stringAt(rt.Annotations, outputTypeNameKey), stringAt(rt.Meta, outputTypeNameKey)))
		if err := ts.result(t, name); err != nil {
			return nil, &Error{Tool: rt.Name, Schema: "outputSchema", Pointer: ts.errPtr, Err: err}
		}
		// How a generated server lists it in each era: decided here, once.
		t.ListedOutputSchema, t.LegacyOutputSchema, err = ts.doc.Listings(rt.OutputSchema, t.NaturalPointer, t.Output.AlwaysWraps)
		if err != nil {
			return nil, &Error{Tool: rt.Name, Schema: "outputSchema", Err: err}
		}
	}
	return t, nil
}

// session starts typing one schema document and records it, compact, in
// the package's schemas under key.
//
// The document is first normalized to canonical 2020-12 (Normalize: older
// dialects, the direct-map shape); its warnings go to Package.Warnings. The
// normalized document is what the IR types and what Validate checks, so
// their JSON pointers agree.
func (b *builder) session(tool, which string, raw json.RawMessage) (*typeSession, error) {
	key := tool + "#" + which
	norm, warnings, err := schema.Normalize(raw)
	if err != nil {
		return nil, &Error{Tool: tool, Schema: which, Err: err}
	}
	for _, w := range warnings {
		b.pkg.Warnings = append(b.pkg.Warnings, fmt.Sprintf("tool %q, %s%s", tool, which, w))
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, norm); err == nil {
		b.pkg.Schemas = append(b.pkg.Schemas, SchemaDoc{Key: key, JSON: buf.String()})
	}
	doc := schema.Parse(norm)
	if ptr, deep := doc.TooDeep(b.cfg.maxSchemaDepth()); deep {
		return nil, &Error{Tool: tool, Schema: which, Pointer: ptr, Err: &DepthError{Max: b.cfg.maxSchemaDepth()}}
	}
	return &typeSession{b: b, doc: doc, docKey: key, byPtr: map[string]*Type{}, hints: map[string]string{},
		skipAllOf: map[string]bool{}, registerAs: map[string]*Type{}}, nil
}

func toolDoc(method string, rt rawTool) []string {
	lines := []string{fmt.Sprintf("%s calls the tool %q.", method, rt.Name)}
	if rt.Title != "" && rt.Description != "" {
		lines = append(lines, "", rt.Title+".")
	}
	if d := commentLines(firstNonEmpty(rt.Description, rt.Title)); len(d) > 0 {
		lines = append(append(lines, ""), d...)
	}
	return lines
}

// typeSession types the sub-schemas of one schema document. byPtr caches
// the named types built for sub-schemas reached through $ref, which is also
// what makes recursive schemas terminate.
type typeSession struct {
	b      *builder
	doc    *schema.Document
	docKey string
	byPtr  map[string]*Type
	// skipAllOf marks schemas being typed without their allOf (allOf
	// types the schema's own keywords that way).
	skipAllOf map[string]bool
	// registerAs marks pointers whose type is a loose union being built.
	registerAs map[string]*Type
	// objectRoot is true for an inputSchema, whose root is an object.
	objectRoot bool
	errPtr     string
	// hints say what the sub-schema at a pointer is ("the arguments of the
	// tool \"x\""), for the first line of a named type's doc comment.
	hints map[string]string
}

// register records t as the type of the schema at ptr, for $ref reuse and
// recursion, unless a loose union that wraps it claimed the pointer.
func (ts *typeSession) register(ptr string, t *Type) {
	if _, ok := ts.registerAs[ptr]; ok {
		return
	}
	ts.byPtr[ptr] = t
}

// looseUnion types a schema without "type" whose keywords constrain only
// one JSON kind (kind: "object" or "array"): a union whose variant of that
// kind is typed precisely and whose Other variant keeps any other value as
// raw JSON, as the schema allows it.
func (ts *typeSession) looseUnion(n *schema.Node, kind, name string) (*Type, error) {
	u := &Type{Kind: KindUnion, Name: ts.b.typeName(name), Pointer: n.Ptr, SchemaDoc: ts.docKey, Union: &Union{By: ByJSONKind}}
	u.Doc = append(ts.typeDoc(u.Name, n), "",
		fmt.Sprintf("The schema has no \"type\": its keywords constrain %s values (field %s), and any other JSON value is valid as it is (field Other). Exactly one field is set.",
			kind, kindVariantName(kind)))
	ts.b.pkg.Types = append(ts.b.pkg.Types, u)
	ts.byPtr[n.Ptr] = u
	ts.registerAs[n.Ptr] = u
	vt, err := ts.single(n, kind, u.Name+kindVariantName(kind))
	delete(ts.registerAs, n.Ptr)
	if err != nil {
		return nil, err
	}
	u.Union.Variants = []*Variant{
		{Name: kindVariantName(kind), Type: vt, JSONKind: kind},
		{Name: "Other", Type: &Type{Kind: KindRaw}},
	}
	return u, nil
}

// hint records what the sub-schema at ptr is, unless already known.
func (ts *typeSession) hint(ptr, text string) {
	if _, ok := ts.hints[ptr]; !ok {
		ts.hints[ptr] = text
	}
}

// itemsOf starts the hint of an array's items: "the type of the items of
// Parent.Field" names the struct and field that hold the array, both
// declared, where a made-up name ("an item of ParentField") would name a
// type that does not exist. It keeps the "the type of " form dedupTypes
// rewrites when it merges or renames the parent.
const itemsOf = "the type of the items of "

// itemsHint is the hint of the items of an array whose own hint is of.
func itemsHint(of string) string {
	if rest, ok := strings.CutPrefix(of, "the type of "); ok {
		return itemsOf + rest
	}
	return itemsOf + of
}

// typeDoc returns the doc comment of a named type built from n: a first
// line that says what it is, naming only declared types and fields, then
// the schema's description or title — unless the type is a property's
// ("the type of Parent.Field"), whose field already carries that text.
func (ts *typeSession) typeDoc(name string, n *schema.Node) []string {
	what, ok := ts.hints[n.Ptr]
	if !ok {
		what = "the schema at #" + n.Ptr
	}
	lines := []string{name + " is " + what + "."}
	if strings.HasPrefix(what, "the type of ") && !strings.HasPrefix(what, itemsOf) {
		return lines
	}
	if d := docOf(n.S); len(d) > 0 {
		lines = append(append(lines, ""), d...)
	}
	return lines
}

func (ts *typeSession) fail(ptr string, format string, args ...any) error {
	ts.errPtr = ptr
	return fmt.Errorf(format, args...)
}

// args types an inputSchema: an object schema with properties becomes the
// struct name; an object without properties (and no explicit
// additionalProperties) means the tool takes no arguments (nil).
func (ts *typeSession) args(name string) (*Type, error) {
	root, err := ts.doc.Node("")
	if err != nil {
		return nil, ts.fail("", "%v", err)
	}
	if root.Boolean == nil && len(root.PropOrder) == 0 && root.S.PatternProperties == nil && root.S.Ref == "" &&
		len(root.S.AnyOf) == 0 && len(root.S.OneOf) == 0 && len(root.S.AllOf) == 0 {
		ap, err := ts.doc.Node(jsonpointer.Append("", "additionalProperties"))
		if err != nil || (ap.Boolean != nil && !*ap.Boolean) {
			// No properties, and none beyond them (absent or false): the
			// tool takes no arguments.
			return nil, nil
		}
	}
	t, _, err := ts.typeOf("", name)
	if err != nil || t.Named() {
		return t, err
	}
	// A map or raw JSON argument object: name it so the method signature
	// reads well.
	named := &Type{Kind: KindMap, Name: ts.b.typeName(name), Elem: elemOrRaw(t), SchemaDoc: ts.docKey,
		Doc: []string{name + " is " + ts.hints[""] + ": an object whose properties the schema does not list."}}
	named.Doc = withRawDoc(named.Doc, named.Elem)
	ts.b.pkg.Types = append(ts.b.pkg.Types, named)
	return named, nil
}

func elemOrRaw(t *Type) *Type {
	switch t.Kind {
	case KindMap:
		return t.Elem
	case KindRaw:
		return t // with its reason
	}
	return &Type{Kind: KindRaw}
}

// withRawDoc appends to the doc lines of a named type the reason why t, its
// underlying type or an element of it, is raw JSON, if it is a fallback.
func withRawDoc(doc []string, t *Type) []string {
	u := *t
	u.Name = ""
	if raw := u.RawDoc(); raw != nil {
		return append(append(doc, ""), raw...)
	}
	return doc
}

// result types an outputSchema into t.Result, recognising envelopes.
func (ts *typeSession) result(t *Tool, typeName string) error {
	if _, err := ts.doc.Node(""); err != nil {
		return ts.fail("", "%v", err)
	}
	naturalPtr := ""
	ts.hint("", fmt.Sprintf("the result of the tool %q", t.Name))
	ev, hasEv := ts.b.facts.ToolEvidence(t.Name, nil) // only its flags are read
	switch {
	case hasEv && ev.AlwaysWraps:
		// Export saw the server wrap in every protocol version.
		t.Output.AlwaysWraps = true
		naturalPtr, _ = ts.doc.Envelope(true)
	case hasEv && len(ev.ProbedVersions) >= 2:
		// Export compared both eras: the evidence decides, not the shape.
		if ev.LegacyWraps && ts.b.pkg.ProtocolVersion < modernProtocolVersion {
			naturalPtr, _ = ts.doc.Envelope(true)
		}
	default:
		if in, ok := ts.doc.Envelope(false); ok {
			naturalPtr = in
			t.Output.AlwaysWraps = ts.doc.Marked()
		}
	}
	if naturalPtr != "" {
		ts.hint(naturalPtr, fmt.Sprintf("the result of the tool %q", t.Name))
		t.Wrapped = true
	}
	natural, err := ts.resolve(naturalPtr)
	if err != nil {
		return err
	}
	if typeName == "" && natural.S.Title != "" {
		if n := ts.b.cfg.Namer.Exported(natural.S.Title); n != "" {
			typeName = n
		}
	}
	if typeName == "" {
		typeName = t.Method + "Result"
	}
	typ, nullable, err := ts.typeOf(naturalPtr, typeName)
	if err != nil {
		return err
	}
	if !typ.Named() && ts.needsValidation(natural, 0) {
		// Give a constrained non-object result a name, so it has a Validate
		// method.
		named := *typ
		named.Name = ts.b.typeName(typeName)
		named.Doc = withRawDoc(ts.typeDoc(named.Name, natural), typ)
		named.SchemaDoc = ts.docKey
		named.Pointer = naturalPtr
		ts.b.pkg.Types = append(ts.b.pkg.Types, &named)
		typ = &named
	}
	t.Result = typ
	t.NaturalPointer = naturalPtr
	t.ResultPointer = typ.Kind == KindStruct || typ.Kind == KindUnion || (nullable && !typ.Nilable())
	t.Output.PlainObject = natural.PlainObject()
	t.Output.CanBeObject = ts.doc.CanBeObject(natural)
	t.Output.HasResultProperty = natural.S.Properties["result"] != nil
	return nil
}

// needsValidation reports whether a schema that types as an unnamed Go
// type (scalar, slice, map) constrains values beyond what the Go type
// enforces, looking through items and additionalProperties but not into
// named types (which validate themselves).
func (ts *typeSession) needsValidation(n *schema.Node, depth int) bool {
	if n.Boolean != nil || depth > 16 {
		return n.Boolean != nil && !*n.Boolean
	}
	s := n.S
	if s.Minimum != nil || s.Maximum != nil || s.ExclusiveMinimum != nil || s.ExclusiveMaximum != nil || s.MultipleOf != nil ||
		s.MinLength != nil || s.MaxLength != nil || s.Pattern != "" || s.MinItems != nil || s.MaxItems != nil || s.UniqueItems ||
		s.Contains != nil || s.MinProperties != nil || s.MaxProperties != nil || s.PropertyNames != nil || s.PatternProperties != nil ||
		s.Not != nil || s.If != nil || len(s.AllOf) > 0 || ts.unionNeedsValidation(n, depth) || s.PrefixItems != nil ||
		s.DependentRequired != nil || s.DependentSchemas != nil || s.Const != nil || s.Enum != nil || s.Ref != "" {
		return true
	}
	for _, kw := range []string{"items", "additionalProperties"} {
		if c, err := ts.resolve(jsonpointer.Append(n.Ptr, kw)); err == nil && len(c.PropOrder) == 0 && ts.needsValidation(c, depth+1) {
			return true
		}
	}
	return false
}

// unionNeedsValidation reports whether n's anyOf/oneOf says more than "or
// null" (which the Go type already expresses).
func (ts *typeSession) unionNeedsValidation(n *schema.Node, depth int) bool {
	kw, list := "anyOf", n.S.AnyOf
	if len(n.S.OneOf) > 0 {
		kw, list = "oneOf", n.S.OneOf
	}
	if len(list) == 0 {
		return false
	}
	if len(n.S.AnyOf) > 0 && len(n.S.OneOf) > 0 {
		return true
	}
	nonNull := 0
	for i := range list {
		v, err := ts.resolve(jsonpointer.Append(n.Ptr, kw, strconv.Itoa(i)))
		if err != nil || v.Boolean != nil {
			return true
		}
		if v.S.Type == "null" {
			continue
		}
		nonNull++
		if len(v.PropOrder) == 0 && ts.needsValidation(v, depth+1) {
			return true
		}
	}
	return nonNull > 1
}

// resolve returns the node at ptr, following $ref chains inside the
// document. A $ref outside the document is an error: schemas are never
// fetched (SEP-2106).
func (ts *typeSession) resolve(ptr string) (*schema.Node, error) {
	n, err := ts.doc.Resolve(ptr)
	if pe, ok := errors.AsType[*schema.PointerError](err); ok {
		return nil, ts.fail(pe.Pointer, "%v", pe.Err)
	}
	return n, err
}

func (ts *typeSession) refTarget(n *schema.Node) (string, error) {
	target, ok := ts.doc.RefTarget(n)
	if !ok {
		return "", ts.fail(n.Ptr, "$ref %q points outside the schema; mcpbind never fetches schemas", n.S.Ref)
	}
	return target, nil
}

// typeOf types the sub-schema at ptr. name is the Go name to give it if it
// becomes a named type. nullable reports whether the schema admits null.
func (ts *typeSession) typeOf(ptr, name string) (t *Type, nullable bool, err error) {
	n, err := ts.doc.Node(ptr)
	if err != nil {
		return nil, false, ts.fail(ptr, "%v", err)
	}
	if n.Boolean != nil {
		if *n.Boolean {
			return &Type{Kind: KindRaw, Pointer: ptr}, true, nil
		}
		return &Type{Kind: KindRaw, Pointer: ptr, RawReason: "the schema is false: no value is valid"}, false, nil
	}
	s := n.S
	if s.Ref != "" {
		return ts.ref(n, name)
	}
	if len(s.AllOf) == 1 && len(s.AnyOf) == 0 && len(s.OneOf) == 0 && s.Type == "" && len(s.Types) == 0 && len(n.PropOrder) == 0 && !ts.skipAllOf[ptr] {
		// allOf with one member (pydantic's way to add a description to a
		// $ref) is that member.
		return ts.typeOf(jsonpointer.Append(ptr, "allOf", "0"), name)
	}
	if len(s.AllOf) > 0 && !ts.skipAllOf[ptr] {
		return ts.allOf(n, name)
	}
	if s.Enum != nil || s.Const != nil {
		return ts.enum(n, name)
	}
	if len(s.AnyOf) > 0 || len(s.OneOf) > 0 {
		return ts.union(n, name)
	}

	types := slices.Clone(s.Types)
	if s.Type != "" {
		types = []string{s.Type}
	}
	if i := slices.Index(types, "null"); i >= 0 {
		nullable = true
		types = slices.Delete(types, i, i+1)
	}
	if slices.Contains(types, "integer") && slices.Contains(types, "number") {
		types = slices.DeleteFunc(types, func(s string) bool { return s == "integer" })
	}
	switch len(types) {
	case 0:
		implied := ""
		switch {
		case len(n.PropOrder) > 0 || s.AdditionalProperties != nil || s.PatternProperties != nil:
			implied = "object"
		case s.Items != nil || s.PrefixItems != nil:
			implied = "array"
		}
		switch {
		case implied != "" && ptr == "" && ts.objectRoot:
			// An inputSchema root is an object (MCP requires it).
			types = []string{implied}
		case implied != "":
			// Without "type", object (or array) keywords constrain only
			// values of that kind; any other value is valid as it is.
			t, err := ts.looseUnion(n, implied, name)
			return t, true, err
		default:
			return &Type{Kind: KindRaw, Pointer: ptr, Doc: docOf(s)}, true, nil
		}
	case 1:
	default:
		t, err := ts.kindUnion(n, name, types)
		return t, nullable, err
	}
	t, err = ts.single(n, types[0], name)
	return t, nullable, err
}

// single types a schema whose one non-null type is typ.
func (ts *typeSession) single(n *schema.Node, typ, name string) (*Type, error) {
	s := n.S
	switch typ {
	case "boolean":
		return &Type{Kind: KindBool, Pointer: n.Ptr}, nil
	case "integer", "number", "string":
		if ft, ok := ts.b.formatType(n, typ); ok {
			return &Type{Kind: KindGo, Pointer: n.Ptr, Go: &ft}, nil
		}
		kind := map[string]Kind{"integer": KindInt, "number": KindFloat, "string": KindString}[typ]
		return &Type{Kind: kind, Pointer: n.Ptr}, nil
	case "array":
		if s.PrefixItems != nil {
			return ts.tuple(n, name)
		}
		if s.ItemsArray != nil {
			return ts.raw(n, "array-form items (draft 2019-09 and earlier) are not typed yet"), nil
		}
		if s.Items == nil {
			return &Type{Kind: KindArray, Pointer: n.Ptr, Elem: &Type{Kind: KindRaw}}, nil
		}
		if of, ok := ts.hints[n.Ptr]; ok {
			ts.hint(jsonpointer.Append(n.Ptr, "items"), itemsHint(of))
		}
		elem, nullable, err := ts.typeOf(jsonpointer.Append(n.Ptr, "items"), itemName(name))
		if err != nil {
			return nil, err
		}
		return &Type{Kind: KindArray, Pointer: n.Ptr, Elem: orNull(elem, nullable)}, nil
	case "object":
		if len(n.PropOrder) > 0 {
			return ts.object(n, name)
		}
		elem := &Type{Kind: KindRaw}
		if s.PatternProperties != nil {
			elem.RawReason = patternPropertiesReason
		}
		if ap := s.AdditionalProperties; ap != nil && s.PatternProperties == nil {
			sub, err := ts.doc.Node(jsonpointer.Append(n.Ptr, "additionalProperties"))
			if err != nil {
				return nil, ts.fail(n.Ptr, "%v", err)
			}
			if sub.Boolean == nil {
				e, nullable, err := ts.typeOf(sub.Ptr, valueName(name))
				if err != nil {
					return nil, err
				}
				elem = orNull(e, nullable)
			}
		}
		return &Type{Kind: KindMap, Pointer: n.Ptr, Elem: elem}, nil
	}
	return nil, ts.fail(n.Ptr, "unknown type %q", typ)
}

// patternPropertiesReason is why the values of an object with
// patternProperties are raw JSON.
const patternPropertiesReason = "values of an object with patternProperties are not typed yet"

// orNull is the Go type of an array item, map value or extra property whose
// schema is t and admits null when nullable: a pointer to t, unless t has a
// nil of its own (slices, maps, raw JSON), which stands for null.
func orNull(t *Type, nullable bool) *Type {
	if !nullable || t.Nilable() {
		return t
	}
	return &Type{Kind: KindPointer, Pointer: t.Pointer, Elem: t}
}

// tuple builds a tuple struct for an array schema with prefixItems:
// fields V0, V1, … for the positions (pointers from minItems on) and Rest
// for the items after them.
func (ts *typeSession) tuple(n *schema.Node, name string) (*Type, error) {
	t := &Type{Kind: KindTuple, Name: ts.b.typeName(name), Pointer: n.Ptr, SchemaDoc: ts.docKey}
	t.Doc = append(ts.typeDoc(t.Name, n), "", "It is a tuple: a JSON array whose items are the fields, in order.")
	ts.register(n.Ptr, t)
	ts.b.pkg.Types = append(ts.b.pkg.Types, t)
	if n.S.MinItems != nil {
		t.MinItems = min(*n.S.MinItems, len(n.S.PrefixItems))
	}
	for i := range n.S.PrefixItems {
		ptr := jsonpointer.Append(n.Ptr, "prefixItems", strconv.Itoa(i))
		goName := "V" + strconv.Itoa(i)
		ts.hint(ptr, fmt.Sprintf("the type of %s.%s", t.Name, goName))
		ft, nullable, err := ts.typeOf(ptr, t.Name+goName)
		if err != nil {
			return nil, err
		}
		sub, _ := ts.doc.Node(ptr)
		f := &Field{Name: goName, JSONName: strconv.Itoa(i), Type: ft, Required: i < t.MinItems, Nullable: nullable && ft.Kind != KindRaw}
		f.Wrap = WrapNone
		if (!f.Required || f.Nullable) && !ft.Nilable() {
			f.Wrap = WrapPointer
		}
		f.Doc = fieldDoc(sub, ft)
		t.Fields = append(t.Fields, f)
	}
	t.Elem = &Type{Kind: KindRaw}
	if n.S.MaxItems != nil && *n.S.MaxItems <= len(n.S.PrefixItems) {
		// No item may follow the positions: no Rest.
		t.Elem = nil
		return t, nil
	}
	if items, err := ts.doc.Node(jsonpointer.Append(n.Ptr, "items")); err == nil {
		switch {
		case items.Boolean != nil && !*items.Boolean:
			t.Elem = nil
		case items.Boolean == nil:
			e, nullable, err := ts.typeOf(items.Ptr, itemName(t.Name))
			if err != nil {
				return nil, err
			}
			t.Elem = orNull(e, nullable)
		}
	}
	return t, nil
}

// object builds a struct from an object schema with properties.
func (ts *typeSession) object(n *schema.Node, name string) (*Type, error) {
	return ts.objectWithout(n, name, "")
}

// objectWithout builds a struct from an object schema, leaving out the
// property skip (a tagged union's tag, which the union encodes).
func (ts *typeSession) objectWithout(n *schema.Node, name, skip string) (*Type, error) {
	return ts.objectOf(n, []*schema.Node{n}, name, skip)
}

// objectOf builds the struct of the object schema n from the properties
// of parts (n itself, or for allOf the members whose properties merge), in
// order; the first part that declares a property types it, and a property
// is required when any part requires it.
func (ts *typeSession) objectOf(n *schema.Node, parts []*schema.Node, name, skip string) (*Type, error) {
	for _, part := range parts {
		for _, prop := range part.PropOrder {
			if prop != skip && !validTagName(prop) {
				// encoding/json cannot name such a property in a struct tag:
				// decided before any field is typed, so no type is left over.
				reason := fmt.Sprintf("property %q cannot be a Go struct field tag, so the object is a map", prop)
				return &Type{Kind: KindMap, Pointer: n.Ptr, Elem: &Type{Kind: KindRaw, RawReason: reason}}, nil
			}
		}
	}
	t := &Type{Kind: KindStruct, Name: ts.b.typeName(name), Pointer: n.Ptr, SchemaDoc: ts.docKey}
	t.Doc = ts.typeDoc(t.Name, n)
	ts.register(n.Ptr, t)
	ts.b.pkg.Types = append(ts.b.pkg.Types, t)
	fields := newFieldScope()
	seen := map[string]bool{}
	required := func(prop string) bool {
		for _, p := range parts {
			if slices.Contains(p.S.Required, prop) {
				return true
			}
		}
		return false
	}
	for _, part := range parts {
		for _, prop := range part.PropOrder {
			if prop == skip || seen[prop] {
				continue
			}
			seen[prop] = true
			goName := ts.b.cfg.Namer.Exported(prop)
			if goName == "" {
				goName = "Field"
			}
			goName = fields.claim(goName)
			ptr := jsonpointer.Append(part.Ptr, "properties", prop)
			ts.hint(ptr, fmt.Sprintf("the type of %s.%s", t.Name, goName))
			ft, nullable, err := ts.typeOf(ptr, memberName(t.Name, goName))
			if err != nil {
				return nil, err
			}
			sub, _ := ts.doc.Node(ptr)
			f := &Field{
				Name:     goName,
				JSONName: prop,
				Type:     ft,
				Required: required(prop),
				Nullable: nullable && ft.Kind != KindRaw,
			}
			f.Wrap = fieldWrap(f.Required, f.Nullable, ft)
			f.Doc = fieldDoc(sub, ft)
			if sub != nil && sub.Boolean == nil && len(sub.S.Default) > 0 && !f.Required {
				var buf bytes.Buffer
				if json.Compact(&buf, sub.S.Default) == nil && buf.String() != "null" {
					f.Default = buf.String()
				}
			}
			t.Fields = append(t.Fields, f)
			if f.Required {
				t.Required = append(t.Required, prop)
			}
		}
	}
	if skip != "" && required(skip) {
		t.Required = append(t.Required, skip)
	}
	return t, ts.extras(n, t, fields)
}

// allOf types a schema with allOf. Members whose properties are objects
// merge into one struct (properties in order, required combined); for
// other schemas the first member (or the schema itself) that says what
// type the value has types it. Every keyword still applies: Validate checks
// the value against the whole allOf.
func (ts *typeSession) allOf(n *schema.Node, name string) (*Type, bool, error) {
	parts := []*schema.Node{n}
	var typing []string // pointers of the members that constrain the type
	var collect func(x *schema.Node, depth int) error
	collect = func(x *schema.Node, depth int) error {
		if depth > 16 {
			return nil
		}
		for i := range x.S.AllOf {
			p := jsonpointer.Append(x.Ptr, "allOf", strconv.Itoa(i))
			m, err := ts.resolve(p)
			if err != nil {
				return err
			}
			if m.Boolean != nil {
				continue
			}
			parts = append(parts, m)
			if m.S.Type != "" || len(m.S.Types) > 0 || m.S.Enum != nil || m.S.Const != nil || len(m.PropOrder) > 0 || m.S.Items != nil ||
				len(m.S.AnyOf) > 0 || len(m.S.OneOf) > 0 {
				typing = append(typing, p)
			}
			if err := collect(m, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := collect(n, 0); err != nil {
		return nil, false, err
	}
	// The members' "type" keywords must leave some type in common.
	common := map[string]bool{"null": true, "boolean": true, "integer": true, "number": true, "string": true, "array": true, "object": true}
	for _, p := range parts {
		types := p.S.Types
		if p.S.Type != "" {
			types = []string{p.S.Type}
		}
		if len(types) == 0 {
			continue
		}
		allowed := map[string]bool{}
		for _, t := range types {
			allowed[t] = true
			if t == "number" {
				allowed["integer"] = true
			}
		}
		for t := range common {
			if !allowed[t] {
				delete(common, t)
			}
		}
	}
	if len(common) == 0 {
		return nil, false, ts.fail(n.Ptr, "the allOf members' \"type\" keywords contradict each other: no value can satisfy them")
	}
	objects := false
	for _, p := range parts {
		if len(p.PropOrder) > 0 {
			objects = true
		}
	}
	if objects {
		t, err := ts.objectOf(n, parts, name, "")
		return t, false, err
	}
	self := n.S.Type != "" || len(n.S.Types) > 0 || n.S.Enum != nil || n.S.Const != nil || n.S.Items != nil
	if !self && len(typing) > 0 {
		return ts.typeOf(typing[0], name)
	}
	if !self {
		return &Type{Kind: KindRaw, Pointer: n.Ptr, Doc: docOf(n.S)}, true, nil
	}
	ts.skipAllOf[n.Ptr] = true
	defer delete(ts.skipAllOf, n.Ptr)
	return ts.typeOf(n.Ptr, name)
}

// extras decides what a struct does with properties it has no field for:
// "additionalProperties": false closes it; otherwise they are kept in a map
// field (typed by an additionalProperties schema, else raw JSON), so values
// round-trip — when the schema declares additionalProperties or
// patternProperties, or the struct is part of a result (extrasWanted).
func (ts *typeSession) extras(n *schema.Node, t *Type, fields *scope) error {
	t.Extra = &Type{Kind: KindRaw}
	ap, err := ts.doc.Node(jsonpointer.Append(n.Ptr, "additionalProperties"))
	switch {
	case err != nil && !ts.extrasWanted(n): // open, but arguments keep no extras
		t.Extra = nil
		return nil
	case err != nil: // absent: any property is allowed
	case ap.Boolean != nil && !*ap.Boolean:
		if n.S.PatternProperties == nil {
			t.Closed, t.Extra = true, nil
			return nil
		}
	case ap.Boolean == nil && n.S.PatternProperties == nil:
		e, nullable, err := ts.typeOf(ap.Ptr, valueName(t.Name))
		if err != nil {
			return err
		}
		t.Extra = orNull(e, nullable)
	}
	if n.S.PatternProperties != nil {
		t.Extra.RawReason = patternPropertiesReason
	}
	t.ExtraName = "AdditionalProperties" // reserved in every field scope (GeneratedFields)
	return nil
}

// validTagName reports whether encoding/json accepts name in a struct tag
// (the rule of encoding/json's isValidTag).
func validTagName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

// ref types a $ref: a reference to a sub-schema becomes that sub-schema's
// type, named after the last pointer token ("#/$defs/Address" → Address)
// and built once per target.
func (ts *typeSession) ref(n *schema.Node, name string) (t *Type, nullable bool, err error) {
	target, err := ts.refTarget(n)
	if err != nil {
		return nil, false, err
	}
	if cached := ts.byPtr[target]; cached != nil {
		tn, _ := ts.doc.Node(target)
		return cached, tn != nil && nullableSchema(tn), nil
	}
	if _, building := ts.byPtr["building:"+target]; building {
		return ts.raw(n, "recursion through a type that has no name is not typed yet"), true, nil
	}
	ts.byPtr["building:"+target] = nil
	defer delete(ts.byPtr, "building:"+target)
	defer func() {
		if t != nil && t.Named() {
			ts.byPtr[target] = t
		}
	}()
	if toks, _ := jsonpointer.Split(target); len(toks) >= 2 && (toks[len(toks)-2] == "$defs" || toks[len(toks)-2] == "definitions") {
		if defName := ts.b.cfg.Namer.Exported(toks[len(toks)-1]); defName != "" {
			name = defsName(ts.b.prov.root(name), defName)
		}
	}
	return ts.typeOf(target, name)
}

func nullableSchema(n *schema.Node) bool {
	return n.Boolean == nil && (slices.Contains(n.S.Types, "null"))
}

// enum types "enum" and "const": values of one JSON kind make an enum
// type; values of several kinds a union of one enum per kind (mongodb's
// index directions 1, -1, "2d", "text": a number enum and a string enum).
func (ts *typeSession) enum(n *schema.Node, name string) (*Type, bool, error) {
	var gs kindGroups
	if reason := gs.addValues(n, n.Ptr, constValues(n.S), false); reason != "" {
		return ts.raw(n, reason), true, nil
	}
	if len(gs.list) == 0 {
		return ts.raw(n, "the only allowed value is null"), true, nil
	}
	t, nullable, err := ts.groupsType(n, name, "enum", &gs)
	return t, nullable || gs.nullable || slices.Contains(n.S.Types, "null"), err
}

// enumOf builds the enum type name over values, all of one JSON kind
// (base KindString, KindBool, KindInt or KindFloat), checked against the
// schema n. doc is its doc comment (nil: the schema's).
func (ts *typeSession) enumOf(n *schema.Node, name string, base Kind, values []any, doc []string) *Type {
	t := &Type{Kind: KindEnum, Name: ts.b.typeName(name), Pointer: n.Ptr, SchemaDoc: ts.docKey, Enum: &Enum{Base: base}}
	t.Doc = doc
	if doc == nil {
		t.Doc = ts.typeDoc(t.Name, n)
	}
	for i, v := range values {
		t.Enum.Values = append(t.Enum.Values, EnumValue{
			Const:   ts.b.types.claim(ts.b.cfg.Namer.EnumConstant(t.Name, v, i)),
			Literal: goLiteral(v, base),
		})
	}
	ts.b.pkg.Types = append(ts.b.pkg.Types, t)
	return t
}

func constValues(s *jsonschema.Schema) []any {
	if s.Const != nil {
		return []any{*s.Const}
	}
	return s.Enum
}

func goLiteral(v any, base Kind) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case bool:
		return strconv.FormatBool(x)
	case float64:
		if base == KindInt {
			return strconv.FormatInt(int64(x), 10)
		}
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		return s
	}
	return "nil"
}

// union types anyOf/oneOf. A null variant makes the result nullable; a
// single remaining variant is that variant; objects told apart by a const
// property become a tagged union; variants of distinct JSON kinds become a
// kind union; anything else stays raw JSON.
func (ts *typeSession) union(n *schema.Node, name string) (*Type, bool, error) {
	kw, list := "anyOf", n.S.AnyOf
	if len(n.S.OneOf) > 0 {
		kw, list = "oneOf", n.S.OneOf
	}
	if len(n.S.AnyOf) > 0 && len(n.S.OneOf) > 0 {
		return ts.raw(n, "anyOf together with oneOf is not typed yet"), true, nil
	}
	nullable := false
	var variants []*schema.Node
	var variantPtrs []string
	for i := range list {
		p := jsonpointer.Append(n.Ptr, kw, strconv.Itoa(i))
		v, err := ts.resolve(p)
		if err != nil {
			return nil, false, err
		}
		if v.Boolean == nil && v.S.Type == "null" {
			nullable = true
			continue
		}
		variants = append(variants, v)
		variantPtrs = append(variantPtrs, p)
	}
	if len(variants) == 0 {
		return ts.raw(n, "the only allowed value is null"), true, nil
	}
	if len(variants) == 1 {
		// Type the variant through its own pointer, not the resolved one,
		// so that a $ref keeps its name.
		t, nl, err := ts.typeOf(variantPtrs[0], name)
		return t, nl || nullable, err
	}
	if t, ok, err := ts.taggedUnion(n, kw, list, name); err != nil || ok {
		return t, nullable, err
	}
	if t, ok, err := ts.requiredUnion(n, variants, name); err != nil || ok {
		return t, nullable, err
	}
	// Told apart by JSON kind: the variants of one scalar kind merge (an
	// enum of their values when all are const or enum, else the plain
	// scalar: integer|number is float64, an enum or a pattern is string).
	var gs kindGroups
	for i, v := range variants {
		if reason := gs.addVariant(v, variantPtrs[i]); reason != "" {
			return ts.raw(n, kw+" "+reason), true, nil
		}
	}
	if gs.any {
		// A variant accepts any value: so does the union.
		return &Type{Kind: KindRaw, Pointer: n.Ptr, Doc: docOf(n.S)}, true, nil
	}
	t, nl, err := ts.groupsType(n, name, kw, &gs)
	return t, nl || nullable || gs.nullable, err
}

// taggedUnion builds a union of object variants discriminated by a property
// that is const (or a single-value enum) in every variant, with distinct
// values.
func (ts *typeSession) taggedUnion(n *schema.Node, kw string, list []*jsonschema.Schema, name string) (*Type, bool, error) {
	var vs []*schema.Node
	for i := range list {
		v, err := ts.resolve(jsonpointer.Append(n.Ptr, kw, strconv.Itoa(i)))
		if err != nil {
			return nil, false, err
		}
		if v.Boolean != nil || v.S.Type == "null" {
			continue
		}
		if len(v.PropOrder) == 0 {
			return nil, false, nil
		}
		vs = append(vs, v)
	}
	if len(vs) < 2 {
		return nil, false, nil
	}
	for _, tag := range vs[0].PropOrder {
		seen := map[string]bool{}
		ok := true
		var values []string
		for _, v := range vs {
			p, err := ts.resolve(jsonpointer.Append(v.Ptr, "properties", tag))
			if err != nil || p.Boolean != nil {
				ok = false
				break
			}
			cv := constValues(p.S)
			if len(cv) != 1 || !slices.Contains(v.S.Required, tag) {
				ok = false
				break
			}
			lit, _ := json.Marshal(cv[0])
			if seen[string(lit)] {
				ok = false
				break
			}
			seen[string(lit)] = true
			values = append(values, string(lit))
		}
		if !ok {
			continue
		}
		u := &Type{Kind: KindUnion, Name: ts.b.typeName(name), Pointer: n.Ptr, SchemaDoc: ts.docKey, Union: &Union{By: ByTag, Tag: tag}}
		u.Doc = append(ts.typeDoc(u.Name, n), "", fmt.Sprintf("It is one of several objects, told apart by their %q property; exactly one field is set.", tag))
		ts.b.pkg.Types = append(ts.b.pkg.Types, u)
		fields := newFieldScope()
		for i, v := range vs {
			var tv any
			_ = json.Unmarshal([]byte(values[i]), &tv)
			vname := ts.b.cfg.Namer.Exported(fmt.Sprint(tv))
			if vname == "" {
				vname = "Variant" + strconv.Itoa(i+1)
			}
			vname = fields.claim(vname)
			st, err := ts.variantStruct(v, tag, values[i], u.Name+vname)
			if err != nil {
				return nil, false, err
			}
			u.Union.Variants = append(u.Union.Variants, &Variant{Name: vname, Type: st, TagValue: values[i]})
		}
		return u, true, nil
	}
	return nil, false, nil
}

// requiredUnion builds a union of object variants each of which requires a
// property that no other variant declares: the presence of that property
// picks the variant (the second discriminator of issue 3, after a const
// tag and before the JSON kind).
func (ts *typeSession) requiredUnion(n *schema.Node, vs []*schema.Node, name string) (*Type, bool, error) {
	if len(vs) < 2 {
		return nil, false, nil
	}
	declares := func(v *schema.Node, prop string) bool {
		return slices.Contains(v.PropOrder, prop) || slices.Contains(v.S.Required, prop)
	}
	unique := make([]string, len(vs))
	for i, v := range vs {
		if v.Boolean != nil || len(v.PropOrder) == 0 {
			return nil, false, nil
		}
		for _, r := range v.S.Required {
			mine := true
			for j, o := range vs {
				if j != i && declares(o, r) {
					mine = false
					break
				}
			}
			if mine {
				unique[i] = r
				break
			}
		}
		if unique[i] == "" {
			return nil, false, nil
		}
	}
	u := &Type{Kind: KindUnion, Name: ts.b.typeName(name), Pointer: n.Ptr, SchemaDoc: ts.docKey, Union: &Union{By: ByRequired}}
	u.Doc = append(ts.typeDoc(u.Name, n), "", "It is one of several objects, told apart by a required property only one of them has; exactly one field is set.")
	ts.b.pkg.Types = append(ts.b.pkg.Types, u)
	fields := newFieldScope()
	for i, v := range vs {
		vname := ""
		if v.S.Title != "" {
			vname = ts.b.cfg.Namer.Exported(v.S.Title)
		}
		if vname == "" {
			vname = ts.b.cfg.Namer.Exported(unique[i])
		}
		if vname == "" {
			vname = "Variant" + strconv.Itoa(i+1)
		}
		vname = fields.claim(vname)
		st, err := ts.object(v, u.Name+vname)
		if err != nil {
			return nil, false, err
		}
		u.Union.Variants = append(u.Union.Variants, &Variant{Name: vname, Type: st, UniqueProperty: unique[i]})
	}
	return u, true, nil
}

// variantStruct builds the struct of a tagged union's variant, without the
// tag property.
func (ts *typeSession) variantStruct(v *schema.Node, tag, tagValue, name string) (*Type, error) {
	t, err := ts.objectWithout(v, name, tag)
	if err == nil && t.Kind == KindStruct {
		t.Tag = tag
		t.TagValue = tagValue
	}
	return t, err
}

// kindUnion types a schema with a type array of several non-null types: a
// union with one variant per type, told apart by JSON kind.
func (ts *typeSession) kindUnion(n *schema.Node, name string, types []string) (*Type, error) {
	var gs kindGroups
	for _, typ := range types {
		gs.addType(n, n.Ptr, typ, len(types) > 1)
	}
	t, _, err := ts.groupsType(n, name, "type", &gs)
	return t, err
}

func jsonKind(typ string) string {
	if typ == "integer" {
		return "number"
	}
	return typ
}

func kindVariantName(typ string) string {
	switch typ {
	case "boolean":
		return "Bool"
	case "integer":
		return "Int"
	case "number":
		return "Float"
	case "string":
		return "String"
	case "array":
		return "Array"
	}
	return "Object"
}

func (ts *typeSession) raw(n *schema.Node, reason string) *Type {
	return &Type{Kind: KindRaw, Pointer: n.Ptr, RawReason: reason, Doc: docOf(n.S)}
}

// docOf returns a schema's doc lines: its description, else its title.
func docOf(s *jsonschema.Schema) []string {
	return commentLines(firstNonEmpty(s.Description, s.Title))
}

// fieldDoc documents a struct field: its description, then the facts the
// Go type does not show (format, default, raw reason).
func fieldDoc(n *schema.Node, t *Type) []string {
	var lines []string
	if n != nil && n.Boolean == nil {
		lines = docOf(n.S)
		var facts []string
		if n.S.Format != "" {
			facts = append(facts, "Format: "+n.S.Format+".")
		}
		if len(n.S.Default) > 0 {
			var buf bytes.Buffer
			if err := json.Compact(&buf, n.S.Default); err == nil {
				facts = append(facts, defaultFact(buf.Bytes()))
			}
		}
		if len(facts) > 0 {
			if len(lines) > 0 {
				lines = append(lines, "")
			}
			lines = append(lines, strings.Join(facts, " "))
		}
	}
	if raw := t.RawDoc(); raw != nil {
		if len(lines) > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, raw...)
	}
	return lines
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func stringAt(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}
