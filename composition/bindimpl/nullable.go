package bindimpl

import (
	"bytes"
	"encoding/json"
)

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
// non-nullable one a pointer with omitzero (see the README).
type Nullable[T any] struct {
	// Value is the value when Set is true and Null is false.
	Value T
	// Set is true when the property is present (null or a value).
	Set bool
	// Null is true when the property is present and null.
	Null bool
}

// Some returns a present, non-null Nullable holding v.
func Some[T any](v T) Nullable[T] { return Nullable[T]{Value: v, Set: true} }

// Null returns a present Nullable whose value is null.
func Null[T any]() Nullable[T] { return Nullable[T]{Set: true, Null: true} }

// Get returns the value and whether there is one (present and not null).
func (n Nullable[T]) Get() (T, bool) { return n.Value, n.Set && !n.Null }

// IsZero reports whether the property is absent; encoding/json's omitzero
// uses it to leave the property out.
func (n Nullable[T]) IsZero() bool { return !n.Set }

// MarshalJSON encodes null, or the value.
func (n Nullable[T]) MarshalJSON() ([]byte, error) {
	if !n.Set || n.Null {
		return []byte("null"), nil
	}
	return json.Marshal(n.Value)
}

// UnmarshalJSON records that the property is present, and whether it is
// null or a value.
func (n *Nullable[T]) UnmarshalJSON(data []byte) error {
	var zero T
	*n = Nullable[T]{Set: true}
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		n.Null, n.Value = true, zero
		return nil
	}
	return json.Unmarshal(data, &n.Value)
}
