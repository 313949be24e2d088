package composition

import "github.com/mcpbind/mcpbind/composition/bindimpl"

// Nullable holds an optional property whose schema also admits null, where
// "absent" and "null" mean different things: the zero value is absent, and
// is left out when encoding (generated fields carry `json:",omitzero"`).
//
//	var n Nullable[string]          // absent: {}
//	n = Null[string]()              // present and null: {"x": null}
//	n = Some("hi")                  // present with a value: {"x": "hi"}
//
// Generated code uses it only for properties that are both optional and
// nullable; a required nullable property is a plain pointer and an optional
// non-nullable one a pointer with omitzero (see the README). It is the
// generated code's own type (package bindimpl), named here for programs.
type Nullable[T any] = bindimpl.Nullable[T]

// Some returns a present, non-null Nullable holding v.
func Some[T any](v T) Nullable[T] { return bindimpl.Some(v) }

// Null returns a present Nullable whose value is null.
func Null[T any]() Nullable[T] { return bindimpl.Null[T]() }

// ValidationError is the error of a value that does not match its JSON
// Schema: the generated Validate methods, WithArgsValidation and
// WithResultValidation return it (wrapped), with the JSON pointer of the
// offending value.
type ValidationError = bindimpl.ValidationError
