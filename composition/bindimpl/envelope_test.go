package bindimpl

import (
	"encoding/json"
	"testing"
)

func TestUnwrap(t *testing.T) {
	const (
		legacy = "2025-06-18"
		latest = "2025-11-25"
		modern = ModernProtocolVersion
		future = "2027-01-01"
	)
	var (
		plainObject    = Output{PlainObject: true, CanBeObject: true}
		nullableObject = Output{CanBeObject: true} // type ["object","null"], anyOf with an object, …
		scalar         = Output{}                  // integer, string, array, null: cannot be an object
		alwaysWraps    = Output{AlwaysWraps: true} // FastMCP / Python: wraps in every version
		resultProp     = Output{PlainObject: true, CanBeObject: true, HasResultProperty: true}
		unknownShape   = Output{CanBeObject: true} // no outputSchema: any JSON value
	)
	tests := []struct {
		name    string
		version string
		out     Output
		raw     string
		want    string
		wrapped bool
	}{
		// Legacy sessions: everything that is not a plain object is wrapped by
		// the TypeScript v2 and C# SDKs, even objects and null.
		{"legacy nullable object, wrapped object", legacy, nullableObject, `{"result":{"id":1,"name":"row"}}`, `{"id":1,"name":"row"}`, true},
		{"legacy nullable object, wrapped null", legacy, nullableObject, `{"result":null}`, `null`, true},
		{"legacy nullable object, natural object", legacy, nullableObject, `{"id":1,"name":"row"}`, `{"id":1,"name":"row"}`, false},
		{"legacy nullable object, natural null", legacy, nullableObject, `null`, `null`, false},
		{"latest legacy version, wrapped", latest, nullableObject, `{"result":{"id":1}}`, `{"id":1}`, true},
		{"empty version counts as legacy", "", nullableObject, `{"result":{"id":1}}`, `{"id":1}`, true},
		{"legacy integer, wrapped", legacy, scalar, `{"result":42}`, `42`, true},
		{"legacy integer, natural", legacy, scalar, `42`, `42`, false},
		{"legacy array, wrapped", legacy, scalar, `{"result":["a","b"]}`, `["a","b"]`, true},
		{"legacy plain object whose only key is result", legacy, plainObject, `{"result":1}`, `{"result":1}`, false},
		{"legacy unknown shape, wrapped", legacy, unknownShape, `{"result":{"a":1}}`, `{"a":1}`, true},

		// 2026-07-28 sessions: natural values; an object-capable natural type
		// is unwrapped only with export-time evidence.
		{"modern nullable object, {result} is natural", modern, nullableObject, `{"result":{"id":1}}`, `{"result":{"id":1}}`, false},
		{"modern nullable object, natural object", modern, nullableObject, `{"id":1,"name":"row"}`, `{"id":1,"name":"row"}`, false},
		{"modern nullable object, null", modern, nullableObject, `null`, `null`, false},
		{"modern integer, wrapped anyway", modern, scalar, `{"result":42}`, `42`, true},
		{"modern integer, natural", modern, scalar, `42`, `42`, false},
		{"modern integer, always wraps", modern, Output{AlwaysWraps: true}, `{"result":7}`, `7`, true},
		{"modern nullable object, always wraps", modern, Output{CanBeObject: true, AlwaysWraps: true}, `{"result":{"id":1}}`, `{"id":1}`, true},
		{"modern plain object, always wraps", modern, Output{PlainObject: true, CanBeObject: true, AlwaysWraps: true}, `{"result":{"id":1}}`, `{"id":1}`, true},
		{"future version is modern", future, nullableObject, `{"result":{"id":1}}`, `{"result":{"id":1}}`, false},
		{"modern plain object", modern, plainObject, `{"result":{"id":1}}`, `{"result":{"id":1}}`, false},
		{"legacy always wraps", legacy, alwaysWraps, `{"result":"x"}`, `"x"`, true},

		// A natural "result" property: never unwrapped by shape.
		{"legacy result property", legacy, resultProp, `{"result":5}`, `{"result":5}`, false},
		{"modern result property", modern, resultProp, `{"result":5}`, `{"result":5}`, false},
		{"result property beats always-wraps", modern, Output{CanBeObject: true, HasResultProperty: true, AlwaysWraps: true}, `{"result":5}`, `{"result":5}`, false},
		{"result property, not object-capable", legacy, Output{HasResultProperty: true}, `{"result":5}`, `{"result":5}`, false},

		// Only an object whose only key is "result" is an envelope.
		{"extra key", legacy, scalar, `{"result":1,"other":2}`, `{"result":1,"other":2}`, false},
		{"other key first", legacy, scalar, `{"other":2,"result":1}`, `{"other":2,"result":1}`, false},
		{"empty object", legacy, scalar, `{}`, `{}`, false},
		{"array holding an envelope", legacy, scalar, `[{"result":1}]`, `[{"result":1}]`, false},
		{"string", legacy, scalar, `"result"`, `"result"`, false},
		{"whitespace kept inside", legacy, scalar, " {\n \"result\" : [1, 2] \n}\n", `[1, 2]`, true},
		{"big integer bytes kept", legacy, scalar, `{"result":9007199254740993}`, `9007199254740993`, true},
		{"escaped key", legacy, scalar, `{"res\u0075lt":3}`, `3`, true},
		{"not JSON", legacy, scalar, `{"result":`, `{"result":`, false},
		{"trailing data", legacy, scalar, `{"result":1} {}`, `{"result":1} {}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, wrapped := Unwrap(tc.version, tc.out, json.RawMessage(tc.raw))
			if string(got) != tc.want || wrapped != tc.wrapped {
				t.Errorf("Unwrap(%q, %+v, %s) = %s, %v; want %s, %v", tc.version, tc.out, tc.raw, got, wrapped, tc.want, tc.wrapped)
			}
		})
	}
}

// TestUnwrapMattersForStructs shows the data loss the rule prevents: a
// wrapped row decoded as the row gives zero fields without any error.
func TestUnwrapMattersForStructs(t *testing.T) {
	type Row struct {
		ID   int64  `json:"id"`
		Name string `json:"name"`
	}
	raw := json.RawMessage(`{"result":{"id":9007199254740993,"name":"row"}}`)
	var silent Row
	if err := json.Unmarshal(raw, &silent); err != nil || silent != (Row{}) {
		t.Fatalf("decoding the envelope as the row: %+v, %v; want the zero row and no error", silent, err)
	}
	v, ok := Unwrap("2025-06-18", Output{CanBeObject: true}, raw)
	if !ok {
		t.Fatal("not unwrapped")
	}
	var row *Row
	if err := json.Unmarshal(v, &row); err != nil {
		t.Fatal(err)
	}
	if row == nil || *row != (Row{ID: 9007199254740993, Name: "row"}) {
		t.Fatalf("row = %+v", row)
	}
}
