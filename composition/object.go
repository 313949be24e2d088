package composition

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// ObjectRules describe a generated struct's JSON object: the properties it
// has fields for, those the schema requires, and whether other properties
// are allowed ("additionalProperties": false makes it Closed).
type ObjectRules struct {
	// Known lists the property names that have struct fields.
	Known []string
	// Required lists the properties that must be present ("required").
	Required []string
	// Closed rejects properties not in Known.
	Closed bool
}

// DecodeObject decodes the JSON object data into known (a pointer to a
// struct without custom UnmarshalJSON, usually `(*plain)(v)` in generated
// code) and returns the properties it has no field for, raw. It fails when
// data is not an object, lacks a required property, or — when rules.Closed
// — has a property the schema does not allow. Generated UnmarshalJSON
// methods call it.
func DecodeObject(data []byte, known any, rules ObjectRules) (map[string]json.RawMessage, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil || fields == nil {
		return nil, fmt.Errorf("want a JSON object, got %s", abbreviateJSON(data))
	}
	for _, r := range rules.Required {
		if _, ok := fields[r]; !ok {
			return nil, fmt.Errorf("missing required property %q", r)
		}
	}
	var extra map[string]json.RawMessage
	for k, v := range fields {
		if slices.Contains(rules.Known, k) {
			continue
		}
		if rules.Closed {
			return nil, fmt.Errorf("property %q is not allowed (additionalProperties is false)", k)
		}
		if extra == nil {
			extra = map[string]json.RawMessage{}
		}
		extra[k] = v
	}
	if err := json.Unmarshal(data, known); err != nil {
		return nil, err
	}
	return extra, nil
}

// DecodeExtras decodes the raw extra properties that DecodeObject returned
// into values of the additionalProperties type E. It returns nil for no
// extras, so a value round-trips to the same JSON.
func DecodeExtras[E any](extra map[string]json.RawMessage) (map[string]E, error) {
	if len(extra) == 0 {
		return nil, nil
	}
	out := make(map[string]E, len(extra))
	for k, raw := range extra {
		var e E
		if err := json.Unmarshal(raw, &e); err != nil {
			return nil, fmt.Errorf("property %q: %w", k, err)
		}
		out[k] = e
	}
	return out, nil
}

// EncodeObject encodes known (a struct value without custom MarshalJSON)
// and appends the extra properties, sorted by name for deterministic
// output. An extra property that has a struct field is an error: set the
// field instead.
func EncodeObject[E any](known any, rules ObjectRules, extra map[string]E) ([]byte, error) {
	body, err := json.Marshal(known)
	if err != nil {
		return nil, err
	}
	if len(extra) == 0 {
		return body, nil
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		if slices.Contains(rules.Known, k) {
			return nil, fmt.Errorf("extra property %q has a field of its own", k)
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b bytes.Buffer
	b.Write(bytes.TrimSuffix(bytes.TrimSpace(body), []byte("}")))
	first := bytes.Equal(bytes.TrimSpace(body), []byte("{}"))
	for _, k := range keys {
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		vb, err := json.Marshal(extra[k])
		if err != nil {
			return nil, fmt.Errorf("property %q: %w", k, err)
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func abbreviateJSON(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	if len(b) == 0 {
		return "nothing"
	}
	return string(b)
}

// DecodeTuple decodes the JSON array data into a generated tuple struct:
// item i into positions[i] (pointers to the fields), the items after them
// into rest. It fails when data is not an array, has fewer than required
// items, or — when closed ("items": false) — more items than positions.
func DecodeTuple[E any](data []byte, required int, closed bool, rest *[]E, positions ...any) error {
	var items []json.RawMessage
	if err := json.Unmarshal(data, &items); err != nil || items == nil {
		return fmt.Errorf("want a JSON array, got %s", abbreviateJSON(data))
	}
	if len(items) < required {
		return fmt.Errorf("want at least %d items, got %d", required, len(items))
	}
	for i, p := range positions {
		if i >= len(items) {
			break
		}
		if err := json.Unmarshal(items[i], p); err != nil {
			return fmt.Errorf("item %d: %w", i, err)
		}
	}
	*rest = nil
	if len(items) <= len(positions) {
		return nil
	}
	if closed {
		return fmt.Errorf("want at most %d items, got %d", len(positions), len(items))
	}
	*rest = make([]E, 0, len(items)-len(positions))
	for i, raw := range items[len(positions):] {
		var e E
		if err := json.Unmarshal(raw, &e); err != nil {
			return fmt.Errorf("item %d: %w", len(positions)+i, err)
		}
		*rest = append(*rest, e)
	}
	return nil
}

// EncodeTuple encodes a generated tuple struct as a JSON array: items (its
// positional fields, up to the first absent optional one) then rest.
// complete is false when an optional position was absent; rest must then
// be empty, since an array cannot skip a position.
func EncodeTuple[E any](items []any, complete bool, rest []E) ([]byte, error) {
	if !complete && len(rest) > 0 {
		return nil, fmt.Errorf("a tuple with an absent position %d cannot have more items", len(items))
	}
	all := make([]any, 0, len(items)+len(rest))
	all = append(all, items...)
	for _, r := range rest {
		all = append(all, r)
	}
	return json.Marshal(all)
}

// DefaultIfAbsent sets *field from the schema's "default" (JSON text
// def) when the JSON object data has no property name. Generated
// UnmarshalJSON methods call it for optional properties with a default. A
// default that does not decode into the field's type is ignored: "default"
// is an annotation, and a wrong one must not make valid data fail.
func DefaultIfAbsent(data []byte, name, def string, field any) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(data, &fields) != nil {
		return
	}
	if _, ok := fields[name]; ok {
		return
	}
	_ = json.Unmarshal([]byte(def), field)
}
