// Package toolschema infers the JSON Schemas of the example servers' tools
// from their Go types, with github.com/google/jsonschema-go.
package toolschema

import (
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// For returns T's JSON Schema as jsonschema.For infers it, with one
// adjustment: jsonschema-go types every Go slice as ["null","array"],
// because a nil slice marshals as null. The example servers never send nil
// slices, so slices are typed "array" (and a generated client gets a plain
// []T, not a nullable one).
func For[T any]() (*jsonschema.Schema, error) {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		return nil, err
	}
	nonNullSlices(s)
	return s, nil
}

// nonNullSlices rewrites every "type":["null","array"] in s to "type":"array".
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
	for _, sub := range s.AnyOf {
		nonNullSlices(sub)
	}
}
