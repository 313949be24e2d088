package bindimpl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
)

// TypeInfo describes one named type of a generated package: where its JSON
// Schema is, and the JSON rules its plain Go declaration cannot carry.
// Generated code declares one per named type, with [Describe], in the
// package's [Types] table; the zero rules mean "a plain value".
//
// For a struct, the properties are its fields' json tags, matched exactly
// (encoding/json would match them case-insensitively). A union is a struct
// with one field per variant; a tuple a struct with one field per position.
type TypeInfo struct {
	// Type is the Go type described (set by Describe).
	Type reflect.Type
	// Doc and Pointer locate the type's schema in the package's SchemaSet:
	// the document key ("echo#inputSchema") and the JSON pointer in it.
	Doc, Pointer string
	// Base, when set, is a described type of the same document whose
	// schema holds this one's: Pointer is then relative to Base's
	// ("/properties/a" under Base's "/properties/b"), and NewTypes makes it
	// whole. Generated code uses it so that a schema nested n deep costs
	// O(n) bytes of pointers, not O(n²).
	Base reflect.Type
	// Required lists the properties that must be present ("required").
	Required []string
	// Closed rejects properties that have no field
	// ("additionalProperties": false), and, for a tuple, items after the
	// positions ("items": false).
	Closed bool
	// Extra is the Go name of the map field that keeps the properties with
	// no field of their own ("" when there is none: they are ignored).
	Extra string
	// Defaults maps a property name to its schema "default" (JSON text),
	// set on decoding when the property is absent. A default that does not
	// decode into the field is ignored: "default" is an annotation.
	Defaults map[string]string
	// Tag and TagValue mark a tagged union's variant: the property Tag
	// (left out of the struct) has the value TagValue (compact JSON).
	Tag, TagValue string
	// Union says how a union picks its variant; Cases then gives, per
	// variant field in order, the tag value (UnionByTag), the JSON kind
	// (UnionByKind: "string", "number", "boolean", "array", "object", or ""
	// for the variant that takes any other value) or the required property
	// only that variant has (UnionByRequired).
	Union UnionBy
	// UnionTag is the discriminating property of a UnionByTag union.
	UnionTag string
	// Cases are the variants' discriminators (see Union).
	Cases []string
	// Tuple is the number of positional fields of a tuple ("prefixItems"),
	// encoded as a JSON array; a field named Rest after them holds the
	// later items. MinItems positions must be present.
	Tuple, MinItems int
	// Raw marks a named raw-JSON type ([]byte underneath), kept byte for
	// byte like json.RawMessage.
	Raw bool
}

// UnionBy is how a union picks its variant when decoding.
type UnionBy uint8

// The union strategies of TypeInfo.Union.
const (
	// notUnion: the type is not a union.
	notUnion UnionBy = iota
	// UnionByTag: a property (UnionTag) whose value names the variant.
	UnionByTag
	// UnionByKind: the JSON kind of the value.
	UnionByKind
	// UnionByRequired: which variant's unique required property is present.
	UnionByRequired
)

// Describe returns info for the Go type T. Generated code calls it once per
// named type in its Types table.
func Describe[T any](info TypeInfo) TypeInfo {
	info.Type = reflect.TypeFor[T]()
	return info
}

// Types is a generated package's table of type descriptions, with the codec
// built lazily, once per Go type, from each description (the idea of
// protobuf-go's MessageInfo). Generated code holds one in a package-level
// variable; its Marshal, Unmarshal and Validate functions, the
// MarshalJSON and UnmarshalJSON methods of its structs, unions, tuples and
// raw types (so encoding/json applies the same rules), and the client's
// calls go through it. It is safe for concurrent use.
type Types struct {
	schemas *SchemaSet
	info    map[reflect.Type]*TypeInfo
	codecs  sync.Map // reflect.Type -> *codec
}

// TypeOf returns the reflect.Type of T, for TypeInfo.Base.
func TypeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

// NewTypes returns the table of infos, whose schemas are in schemas. A
// relative Pointer (TypeInfo.Base) is made whole; a Base that is not in
// the table, or a cycle of Bases, leaves the pointer as it is.
func NewTypes(schemas *SchemaSet, infos ...TypeInfo) *Types {
	t := &Types{schemas: schemas, info: make(map[reflect.Type]*TypeInfo, len(infos))}
	for i := range infos {
		t.info[infos[i].Type] = &infos[i]
	}
	var whole func(info *TypeInfo, depth int) string
	whole = func(info *TypeInfo, depth int) string {
		base := t.info[info.Base]
		if info.Base == nil || base == nil || depth > len(infos) {
			return info.Pointer
		}
		info.Pointer = whole(base, depth+1) + info.Pointer
		info.Base = nil
		return info.Pointer
	}
	for i := range infos {
		whole(&infos[i], 0)
	}
	return t
}

// Marshal encodes v as JSON with the rules of its description: properties
// under their exact names, extra properties sorted by name after the
// fields, unions as their set variant (a tagged variant with its tag
// first), tuples as arrays. A union with no variant set, or an extra
// property that has a field of its own, is an error.
func (t *Types) Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := t.encode(&b, reflect.ValueOf(v)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Unmarshal decodes the JSON data into v (a non-nil pointer) with the rules
// of its description: a required property that is absent, or a property a
// closed object does not allow, is an error naming the type; properties
// match field names exactly, so a key that differs only in case is an extra
// property (kept in the extras field, or ignored when there is none);
// absent properties with a "default" get it.
func (t *Types) Unmarshal(data []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("composition: Unmarshal needs a non-nil pointer, got %T", v)
	}
	if !json.Valid(data) {
		return json.Unmarshal(data, new(json.RawMessage)) // its syntax error
	}
	return t.decode(data, rv.Elem(), newSpans(data))
}

// Validate checks v, a value of a described type, against the JSON Schema
// it was generated from. An error names the JSON pointer of the first
// failing value (*ValidationError).
func (t *Types) Validate(v any) error {
	info := t.info[reflect.TypeOf(v)]
	if info == nil {
		return fmt.Errorf("composition: %T has no schema", v)
	}
	data, err := t.Marshal(v)
	if err != nil {
		return err
	}
	if info.Tag != "" {
		if data, err = withTag(info.Tag, info.TagValue, data); err != nil {
			return err
		}
	}
	return t.schemas.validateJSON(info.Doc, info.Pointer, data)
}

// withTag inserts the property tag = tagValue first into the JSON object body.
func withTag(tag, tagValue string, body []byte) ([]byte, error) {
	return marshalTagged(tag, tagValue, json.RawMessage(body))
}

// EncodeArgs encodes generated arguments with the tool's Types, so the
// server gets them as described; other args pass through.
func (tool Tool) EncodeArgs(args any) (any, error) {
	if tool.Types == nil || args == nil {
		return args, nil
	}
	b, err := tool.Types.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("composition: tool %q: encoding arguments: %w", tool.Name, err)
	}
	return json.RawMessage(b), nil
}

// Decode decodes a natural result into out with the tool's Types (plain
// encoding/json when it has none).
func (tool Tool) Decode(value []byte, out any) error {
	if tool.Types == nil {
		return json.Unmarshal(value, out)
	}
	return tool.Types.Unmarshal(value, out)
}
