// Package ir turns the tool schemas of an mcpbind bundle into a typed graph
// of named Go types: the intermediate representation that gen/ prints.
//
// Every typing and naming decision is made here, once: which JSON
// Schema becomes a struct, a map, an enum, a union or raw JSON, what each Go
// identifier is called, which fields are pointers, and which result schemas
// are {"result": v} envelopes (SEP-2106). gen/ only renders.
package ir

import (
	"encoding/json"
	"iter"
	"strconv"
	"strings"
)

// Kind says what Go construct a Type is.
type Kind uint8

// The kinds of Type.
const (
	// KindRaw is json.RawMessage: any JSON value, kept byte for byte. Used for
	// schemas that allow any value and for those mcpbind cannot type precisely
	// (Type.RawReason says why).
	KindRaw Kind = iota
	// KindBool is Go bool (JSON Schema "boolean").
	KindBool
	// KindInt is Go int64 (JSON Schema "integer").
	KindInt
	// KindFloat is Go float64 (JSON Schema "number").
	KindFloat
	// KindString is Go string (JSON Schema "string").
	KindString
	// KindArray is a Go slice of Elem (JSON Schema "array" with "items").
	KindArray
	// KindMap is map[string]Elem (an object schema without "properties").
	KindMap
	// KindStruct is a named Go struct with Fields (an object schema with
	// "properties").
	KindStruct
	// KindEnum is a named Go type over a scalar with one constant per value
	// ("enum", "const").
	KindEnum
	// KindUnion is a named Go struct with one pointer field per variant and
	// its JSON codec in bindimpl.Types ("anyOf", "oneOf", type arrays).
	KindUnion
	// KindTuple is a named Go struct for an array with "prefixItems": one
	// field per position (Fields, pointers from MinItems on), the items after
	// them in a slice of Elem (nil Elem when "items" is false), encoded as a
	// JSON array.
	KindTuple
	// KindGo is a Go type chosen by the format table (Go): time.Time for
	// "date-time", int32 for "int32", []byte for base64 content, ….
	KindGo
	// KindPointer is *Elem: a nullable item of a slice, value of a map or
	// extra property, whose Go type has no nil of its own (nil is JSON null).
	KindPointer
)

var kindNames = [...]string{"raw", "bool", "int", "float", "string", "array", "map", "struct", "enum", "union", "tuple", "go", "pointer"}

// String returns the kind's name as it appears in dumps ("struct", "enum", …).
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Type is one Go type in the IR. Named kinds (struct, enum, union) have a
// Name and are declared once in the package; the others are type
// expressions built from their Elem.
type Type struct {
	// Kind selects which of the fields below are used.
	Kind Kind
	// Name is the Go identifier of a named type (struct, enum, union).
	Name string
	// Doc holds the lines of the type's doc comment, without "//".
	Doc []string
	// Pointer is the JSON pointer of the schema the type comes from,
	// relative to the tool's inputSchema or outputSchema document.
	Pointer string
	// Elem is the element type of KindArray and the value type of KindMap.
	Elem *Type
	// Fields are the struct fields of KindStruct, in schema property order.
	Fields []*Field
	// Enum holds the base type and values of KindEnum.
	Enum *Enum
	// Union holds the variants and discriminator of KindUnion.
	Union *Union
	// RawReason, for KindRaw, says why the schema is kept as raw JSON when it
	// does not simply allow any value ("" otherwise).
	RawReason string
	// SchemaDoc is the key, in Package.Schemas, of the schema document the
	// type comes from; a named type's Validate checks values against the
	// sub-schema SchemaDoc#Pointer.
	SchemaDoc string
	// Required lists the JSON names of the required properties (KindStruct).
	Required []string
	// Closed is true when "additionalProperties" is false (KindStruct):
	// decoding rejects properties that have no field.
	Closed bool
	// Extra is the type of the properties a struct has no field for, kept in
	// the map field ExtraName so values round-trip (nil when Closed, and
	// for argument structs whose schema declares neither
	// additionalProperties nor patternProperties: those are ignored).
	Extra *Type
	// ExtraName is the Go name of the extra-properties field.
	ExtraName string
	// Go is the format table entry of KindGo.
	Go *FormatType
	// MinItems is the number of tuple positions that must be present
	// (KindTuple).
	MinItems int
	// Tag and TagValue mark a tagged union's variant struct: the union
	// encodes the variant with the property Tag set to TagValue (compact
	// JSON).
	Tag, TagValue string
	// PointerBase is the named type, of the same schema document, whose
	// schema holds this one's nearest (nil when none): generated code
	// writes Pointer relative to PointerBase's, so that a schema nested n
	// deep costs O(n) bytes of pointers, not O(n²).
	PointerBase *Type
}

// HasDefaults reports whether any field of a struct has a Default.
func (t *Type) HasDefaults() bool {
	for _, f := range t.Fields {
		if f.Default != "" {
			return true
		}
	}
	return false
}

// KnownJSONNames lists the JSON names of a struct's fields, in field order,
// and a variant's tag property.
func (t *Type) KnownJSONNames() []string {
	names := make([]string, 0, len(t.Fields)+1)
	for _, f := range t.Fields {
		names = append(names, f.JSONName)
	}
	if t.Tag != "" {
		names = append(names, t.Tag)
	}
	return names
}

// Named reports whether the type is declared under its own name.
func (t *Type) Named() bool { return t.Name != "" }

// Children yields the types t is built from, one step down: Elem, Extra,
// each field's type and each union variant's type, in that order, the nil
// ones left out. Walks of the IR (which named type holds which, which types
// a tool uses) go through it, so a new place a type can hold another is
// added here once.
func (t *Type) Children() iter.Seq[*Type] {
	return func(yield func(*Type) bool) {
		for _, x := range []*Type{t.Elem, t.Extra} {
			if x != nil && !yield(x) {
				return
			}
		}
		for _, f := range t.Fields {
			if !yield(f.Type) {
				return
			}
		}
		if t.Union != nil {
			for _, v := range t.Union.Variants {
				if !yield(v.Type) {
					return
				}
			}
		}
	}
}

// Nilable reports whether the Go type has a nil value that marshals as
// JSON null or is omitted by omitempty (slices, maps, json.RawMessage), so
// optional and nullable values need no extra pointer.
func (t *Type) Nilable() bool {
	switch t.Kind {
	case KindRaw, KindArray, KindMap, KindPointer:
		return true
	case KindGo:
		return t.Go.Nilable
	}
	return false
}

// GoType returns the Go type expression for t ("int64", "[]Column",
// "map[string]json.RawMessage", "QueryResult").
func (t *Type) GoType() string {
	if t.Named() {
		return t.Name
	}
	switch t.Kind {
	case KindBool:
		return "bool"
	case KindInt:
		return "int64"
	case KindFloat:
		return "float64"
	case KindString:
		return "string"
	case KindArray:
		return "[]" + t.Elem.GoType()
	case KindMap:
		return "map[string]" + t.Elem.GoType()
	case KindPointer:
		return "*" + t.Elem.GoType()
	case KindGo:
		return t.Go.Expr
	}
	return "json.RawMessage"
}

// UsesRawJSON reports whether the Go type expression of t mentions
// json.RawMessage (itself, or through the elements of an unnamed slice or
// map; named types are declared elsewhere).
func (t *Type) UsesRawJSON() bool {
	switch {
	case t.Named():
		return false
	case t.Kind == KindRaw:
		return true
	case t.Elem != nil:
		return t.Elem.UsesRawJSON()
	}
	return false
}

// RawDoc returns the one-line comment that says why t, or the raw JSON
// inside its unnamed slices, maps and pointers, is kept as raw JSON
// ("mcpbind: <reason>; kept as raw JSON."), or nil when nothing in its type
// expression is a raw fallback (raw JSON that the schema allows as any value
// needs no reason). Named types carry the line in their own doc.
func (t *Type) RawDoc() []string {
	for ; t != nil && !t.Named(); t = t.Elem {
		if t.Kind == KindRaw && t.RawReason != "" {
			return []string{"mcpbind: " + t.RawReason + "; kept as raw JSON."}
		}
	}
	return nil
}

// UsesRawJSONUnderlying is UsesRawJSON for the right-hand side of a named
// type's declaration.
func (t *Type) UsesRawJSONUnderlying() bool {
	u := *t
	u.Name = ""
	return u.UsesRawJSON()
}

// Underlying returns the Go type expression of t ignoring its name: the
// right-hand side of a named type's declaration ("map[string]Tag").
func (t *Type) Underlying() string {
	u := *t
	u.Name = ""
	if t.Kind == KindEnum {
		return t.Enum.BaseGoType()
	}
	return u.GoType()
}

// IsStruct, IsEnum and IsUnion report the kind, for templates.
func (t *Type) IsStruct() bool { return t.Kind == KindStruct }

// IsEnum reports whether t is an enum type.
func (t *Type) IsEnum() bool { return t.Kind == KindEnum }

// IsUnion reports whether t is a union type.
func (t *Type) IsUnion() bool { return t.Kind == KindUnion }

// IsRaw reports whether t is raw JSON (a named raw type needs the
// json.RawMessage methods spelled out: a defined type does not inherit them).
func (t *Type) IsRaw() bool { return t.Kind == KindRaw }

// IsTuple reports whether t is a tuple type.
func (t *Type) IsTuple() bool { return t.Kind == KindTuple }

// Field is one property of a struct.
type Field struct {
	// Name is the Go field name, unique within the struct.
	Name string
	// JSONName is the property name exactly as in the schema.
	JSONName string
	// Type is the field's type without the optional pointer.
	Type *Type
	// Required is true when the property is listed in "required".
	Required bool
	// Nullable is true when the schema admits null.
	Nullable bool
	// Wrap says how the Go field wraps Type: not at all, in a pointer
	// (optional, or required and nullable, for a type without a nil value of
	// its own), or in composition.Nullable (optional and nullable, where
	// absent and null differ).
	Wrap Wrap
	// Doc holds the lines of the field's doc comment.
	Doc []string
	// Default is the schema's "default" for an optional property, compact
	// JSON ("" when none): decoding sets the field to it when the
	// property is absent.
	Default string
}

// Wrap is how a struct field wraps its type.
type Wrap uint8

// The ways a field wraps its type.
const (
	// WrapNone: the field is the type itself.
	WrapNone Wrap = iota
	// WrapPointer: the field is *Type; nil is absent (optional) or null
	// (required and nullable).
	WrapPointer
	// WrapNullable: the field is composition.Nullable[Type], which tells
	// absent, null and a value apart.
	WrapNullable
)

// fieldWrap decides how a property's type is wrapped (README "Nullability").
func fieldWrap(required, nullable bool, t *Type) Wrap {
	switch {
	case !required && nullable:
		return WrapNullable
	case (!required || nullable) && !t.Nilable():
		return WrapPointer
	}
	return WrapNone
}

// IsPointer reports whether the field is a pointer (WrapPointer).
func (f *Field) IsPointer() bool { return f.Wrap == WrapPointer }

// GoType returns the field's Go type expression, with its wrapper.
func (f *Field) GoType() string {
	switch f.Wrap {
	case WrapPointer:
		return "*" + f.Type.GoType()
	case WrapNullable:
		return "composition.Nullable[" + f.Type.GoType() + "]"
	}
	return f.Type.GoType()
}

// Tag returns the field's struct tag: `json:"name"`, or
// `json:"name,omitzero"` for optional properties (omitzero, unlike
// omitempty, keeps an empty but present array or object, so values
// round-trip).
func (f *Field) Tag() string {
	opts := ""
	if !f.Required {
		opts = ",omitzero"
	}
	return "`json:" + strconv.Quote(f.JSONName+opts) + "`"
}

// Enum describes a KindEnum type.
type Enum struct {
	// Base is the underlying scalar kind: KindString, KindInt, KindFloat or
	// KindBool.
	Base Kind
	// Values are the allowed values in schema order.
	Values []EnumValue
}

// BaseGoType returns the Go type underlying the enum ("string", "int64", …).
func (e *Enum) BaseGoType() string { return (&Type{Kind: e.Base}).GoType() }

// EnumValue is one allowed enum value.
type EnumValue struct {
	// Const is the Go constant name, prefixed by the type name (ColorRed).
	Const string
	// Literal is the value as a Go literal ("\"red\"", "3", "true").
	Literal string
}

// UnionBy says how decoding a union picks its variant.
type UnionBy uint8

const (
	// ByTag: the variants are objects that carry a property (Union.Tag) whose
	// schema is a const or single-value enum, distinct per variant.
	ByTag UnionBy = iota
	// ByJSONKind: each variant accepts a distinct JSON kind (string, number,
	// boolean, array, object).
	ByJSONKind
	// ByRequired: the variants are objects, each requiring a property
	// (Variant.UniqueProperty) that no other variant declares.
	ByRequired
)

// Union describes a KindUnion type.
type Union struct {
	// By is the discriminator strategy.
	By UnionBy
	// Tag is the discriminating property's JSON name (ByTag).
	Tag string
	// Variants in schema order.
	Variants []*Variant
}

// CatchAll returns the variant that takes any JSON value the others do not
// (JSONKind ""), or nil.
func (u *Union) CatchAll() *Variant {
	for _, v := range u.Variants {
		if u.By == ByJSONKind && v.JSONKind == "" {
			return v
		}
	}
	return nil
}

// ByRequiredProperty reports whether the union is discriminated by which
// variant's unique required property is present.
func (u *Union) ByRequiredProperty() bool { return u.By == ByRequired }

// Tagged reports whether the union is discriminated by a tag property.
func (u *Union) Tagged() bool { return u.By == ByTag }

// Variant is one alternative of a union.
type Variant struct {
	// Name is the Go field name of the variant inside the union struct.
	Name string
	// Type is the variant's type. For ByTag it is a struct without the tag
	// property, which encoding adds back.
	Type *Type
	// TagValue is the tag property's value as compact JSON (ByTag).
	TagValue string
	// JSONKind is the JSON kind the variant accepts (ByJSONKind): "string",
	// "number", "boolean", "array" or "object"; "" for the catch-all
	// variant Other, which takes any value the others do not.
	JSONKind string
	// UniqueProperty is the required property only this variant declares
	// (ByRequired).
	UniqueProperty string
}

// GoType returns the Go type of the variant's field in the union struct: a
// pointer, unless the type has a nil value of its own (slices, maps, raw
// JSON). A nil field means "not this variant".
func (v *Variant) GoType() string {
	if v.Type.Nilable() {
		return v.Type.GoType()
	}
	return "*" + v.Type.GoType()
}

// Output mirrors bindimpl.Output: the facts the runtime needs to apply
// the envelope rules of SEP-2106 to a tool's natural result.
type Output struct {
	PlainObject       bool `json:"plainObject"`
	CanBeObject       bool `json:"canBeObject"`
	HasResultProperty bool `json:"hasResultProperty"`
	AlwaysWraps       bool `json:"alwaysWraps"`
}

// Tool is one tool's generated surface: a Client method, its argument type
// and its natural result type.
type Tool struct {
	// Name is the tool name as listed by the server.
	Name string
	// Method is the Go method name on Client (unique in the package).
	Method string
	// Doc holds the lines of the method's doc comment.
	Doc []string
	// Args is the argument type, or nil when the tool takes no arguments.
	Args *Type
	// Result is the natural result type (the result without a {"result": v}
	// envelope, SEP-2106), or nil when the tool
	// has no outputSchema; the method then returns *composition.Result.
	Result *Type
	// ResultPointer is true when the method returns *Result (structs and
	// unions, and nullable scalars: nil stands for JSON null).
	ResultPointer bool
	// Output describes the natural result for the runtime's envelope rules.
	Output Output
	// Wrapped is true when the advertised outputSchema is a recognised
	// {"result": S} envelope and Result was built from S.
	Wrapped bool
	// InputDoc and OutputDoc are the keys of the tool's schema documents in
	// Package.Schemas ("" when absent); NaturalPointer locates the natural
	// result schema inside the output document ("" or "/properties/result").
	InputDoc, OutputDoc, NaturalPointer string
	// ReadOnly and Idempotent are the tool's readOnlyHint and
	// idempotentHint annotations (MCP specification, ToolAnnotations): a
	// registry retries a call whose session was lost only for such tools.
	ReadOnly, Idempotent bool
	// Digest is the tool's digest recorded under the bundle's "x-mcpbind"
	// ("sha256:…", "" when absent): the pin the runtime compares the live
	// tool with.
	Digest string
	// Raw is the tool object as the bundle holds it (compact JSON); the
	// generated server (generate --server) lists it as it is, with
	// ListedOutputSchema in place of its outputSchema when set.
	Raw json.RawMessage
	// ListedOutputSchema is the outputSchema the generated server lists
	// toward 2026-07-28 sessions when it is not the bundle's: the natural
	// schema inside an envelope the bundle holds (not for a tool that
	// always wraps). nil otherwise.
	ListedOutputSchema json.RawMessage
	// LegacyOutputSchema is the outputSchema the generated server lists
	// toward sessions before 2026-07-28, answering them {"result": v}, when
	// it differs from the one listed to 2026-07-28 sessions: the bundle's
	// envelope, or the envelope built around a natural schema whose root is
	// not a plain "type":"object" schema (as TypeScript SDK v2 servers do,
	// DESIGN §8). nil when the tool is listed alike in both eras. Generate
	// decides it; the runtime only lists it.
	LegacyOutputSchema json.RawMessage
}

// DescriptorVar returns the name of the package-level bindimpl.Tool
// variable that describes the tool to the runtime: "tool" followed by
// Method, unexported, so it cannot collide with a generated type, and unique
// because Method is.
func (t *Tool) DescriptorVar() string {
	return "tool" + t.Method
}

// ResultGoType returns the Go type of the method's first result.
func (t *Tool) ResultGoType() string {
	if t.Result == nil {
		return "*composition.Result"
	}
	if t.ResultPointer {
		return "*" + t.Result.GoType()
	}
	return t.Result.GoType()
}

// ResultZero returns the Go literal of the zero value of ResultGoType, which
// a method returns with an error.
func (t *Tool) ResultZero() string {
	if t.Result == nil || t.ResultPointer || t.Result.Nilable() {
		return "nil"
	}
	k := t.Result.Kind
	if k == KindEnum {
		k = t.Result.Enum.Base
	}
	switch k {
	case KindBool:
		return "false"
	case KindInt, KindFloat:
		return "0"
	case KindString:
		return `""`
	}
	return t.Result.GoType() + "{}"
}

// SchemaDoc is one schema document a package embeds for validation: a
// tool's inputSchema or outputSchema, as exported.
type SchemaDoc struct {
	// Key is "<tool>#inputSchema" or "<tool>#outputSchema".
	Key string
	// JSON is the document, compact.
	JSON string
}

// Package is the IR of one server: the Go package generated for it.
type Package struct {
	// Name is the Go package name.
	Name string
	// ServerID is the server's id in the bundle.
	ServerID string
	// ServerName and ServerVersion come from the server's serverInfo.
	ServerName, ServerVersion string
	// ProtocolVersion is the version negotiated when the bundle was exported.
	ProtocolVersion string
	// ServerDigest is the digest export recorded over the server's tools
	// ("sha256:…", "" when absent), embedded in the generated package.
	ServerDigest string
	// Tools in bundle order (by tool name).
	Tools []*Tool
	// Types are the named types in declaration order: each tool's argument
	// and result types, each followed by the types nested in it.
	Types []*Type
	// Schemas are the schema documents the named types validate against,
	// sorted by key.
	Schemas []SchemaDoc
	// SharedMembers are the members of tool objects that several tools
	// hold with the same value (an icon set, annotations), in the order of
	// their first tool; server.go declares each once. See sharedMembers.
	SharedMembers []SharedMember
	// Warnings are what normalization changed or dropped, each naming the
	// tool, the schema and the JSON pointer ("tool \"t\", inputSchema#/x: …").
	Warnings []string
	// UsedOverrides lists the Config entries that applied, sorted:
	// "format:<format>" and "type:<default name>".
	UsedOverrides []string
}

// ExprImports returns the import paths that t's Go type expression needs
// besides encoding/json (format table types such as time.Time), looking
// through slices and maps but not into named types, which are declared
// elsewhere.
func (t *Type) ExprImports() []string {
	switch {
	case t == nil:
		return nil
	case t.Kind == KindGo && t.Go.Import != "":
		return []string{t.Go.Import}
	case t.Named():
		return nil
	}
	return t.Elem.ExprImports()
}

// DeclImports returns the import paths a named type's declaration needs
// (ExprImports of its fields, elements, extras and variants).
func (t *Type) DeclImports() []string {
	var out []string
	if t.Kind == KindGo || (!t.Named() && t.Elem != nil) || t.Kind == KindArray || t.Kind == KindMap {
		u := *t
		u.Name = ""
		out = append(out, u.ExprImports()...)
	}
	out = append(out, t.Elem.ExprImports()...)
	out = append(out, t.Extra.ExprImports()...)
	for _, f := range t.Fields {
		out = append(out, f.Type.ExprImports()...)
	}
	if t.Union != nil {
		for _, v := range t.Union.Variants {
			out = append(out, v.Type.ExprImports()...)
		}
	}
	return out
}

// commentLines splits free text into comment lines, trimming trailing
// space and dropping leading and trailing blank lines.
func commentLines(text string) []string {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
