package bindimpl_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/composition/bindimpl"
)

// The types of a hand-written table, shaped like generated ones.
type (
	counter struct {
		Count int64 `json:"count"`
	}
	counterExtras struct {
		Count int64                      `json:"count"`
		Extra map[string]json.RawMessage `json:"-"`
	}
	closedCounter struct {
		Count int64 `json:"count"`
	}
	holder struct {
		Maybe  bindimpl.Nullable[counter] `json:"maybe,omitzero"`
		Byname map[string]counter         `json:"byName,omitzero"`
		Raw    rawValue                   `json:"raw,omitzero"`
		Limit  *int64                     `json:"limit,omitzero"`
	}
	rawValue []byte
)

func testTypes() *bindimpl.Types {
	return bindimpl.NewTypes(nil,
		bindimpl.Describe[counter](bindimpl.TypeInfo{}),
		bindimpl.Describe[counterExtras](bindimpl.TypeInfo{Extra: "Extra"}),
		bindimpl.Describe[closedCounter](bindimpl.TypeInfo{Closed: true}),
		bindimpl.Describe[holder](bindimpl.TypeInfo{Defaults: map[string]string{"limit": `"not a number"`}}),
		bindimpl.Describe[rawValue](bindimpl.TypeInfo{Raw: true}),
	)
}

// TestTypesMatchPropertiesExactly: {"count":0,"COUNT":3} is count 0 (Go's
// encoding/json would give 3); COUNT is an extra property where there is an
// extras field, ignored in an open object without one, and rejected by a
// closed one.
func TestTypesMatchPropertiesExactly(t *testing.T) {
	ty := testTypes()
	in := []byte(`{"count":0,"COUNT":3}`)
	var plain counter
	if err := ty.Unmarshal(in, &plain); err != nil || plain.Count != 0 {
		t.Errorf("open object: count = %d (%v), want 0", plain.Count, err)
	}
	var x counterExtras
	if err := ty.Unmarshal(in, &x); err != nil || x.Count != 0 || string(x.Extra["COUNT"]) != "3" {
		t.Errorf("extras: %+v (%v)", x, err)
	}
	if out, err := ty.Marshal(x); err != nil || string(out) != `{"count":0,"COUNT":3}` {
		t.Errorf("round trip: %s (%v)", out, err)
	}
	var c closedCounter
	if err := ty.Unmarshal(in, &c); err == nil || !strings.Contains(err.Error(), `"COUNT" is not allowed`) {
		t.Errorf("closed object: %v", err)
	}
	x.Extra["count"] = json.RawMessage("1")
	if _, err := ty.Marshal(x); err == nil {
		t.Error("an extra property that has a field was encoded")
	}
}

// TestTypesThroughContainers: described types inside Nullable, maps and
// named raw JSON keep their rules; a default that does not fit is ignored.
func TestTypesThroughContainers(t *testing.T) {
	ty := testTypes()
	in := `{"maybe":{"count":1,"COUNT":2},"byName":{"a":{"count":3,"COUNT":4}},"raw":[1, 2]}`
	var h holder
	if err := ty.Unmarshal([]byte(in), &h); err != nil {
		t.Fatal(err)
	}
	if v, ok := h.Maybe.Get(); !ok || v.Count != 1 || h.Byname["a"].Count != 3 || string(h.Raw) != "[1, 2]" || h.Limit != nil {
		t.Fatalf("%+v", h)
	}
	out, err := ty.Marshal(h)
	if err != nil || string(out) != `{"maybe":{"count":1},"byName":{"a":{"count":3}},"raw":[1, 2]}` {
		t.Fatalf("%s (%v)", out, err)
	}
	if err := ty.Unmarshal([]byte(`{"maybe":null}`), &h); err != nil || !h.Maybe.Set || !h.Maybe.Null {
		t.Fatalf("null: %+v (%v)", h.Maybe, err)
	}
	if err := ty.Unmarshal([]byte(`{"count":1}`), (*counter)(nil)); err == nil {
		t.Error("a nil pointer was accepted")
	}
}

// TestTypesReadAnyValidJSON: escaped property names, whitespace, strings
// holding brackets and repeated names decode as encoding/json reads them
// (the last of a repeated name wins), still matching names exactly.
func TestTypesReadAnyValidJSON(t *testing.T) {
	ty := testTypes()
	var x counterExtras
	in := " {\n \"\\u0063ount\" : 7 , \"\\u0043OUNT\":\"}]{[\\\"\" ,\"count\":8}\t"
	if err := ty.Unmarshal([]byte(in), &x); err != nil {
		t.Fatal(err)
	}
	if x.Count != 8 || string(x.Extra["COUNT"]) != `"}]{[\""` {
		t.Fatalf("%+v", x)
	}
	var h holder
	if err := ty.Unmarshal([]byte(`{"byName":{"a" : {"count":1} , "b":{ }}}`), &h); err != nil || len(h.Byname) != 2 || h.Byname["a"].Count != 1 {
		t.Fatalf("%+v %v", h, err)
	}
	for _, bad := range []string{`{"count":1`, `{"count":}`, `[1,]`, ``} {
		if err := ty.Unmarshal([]byte(bad), &x); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if err := ty.Unmarshal([]byte(`[1]`), &x); err == nil || !strings.Contains(err.Error(), "want a JSON object") {
		t.Errorf("array into an object: %v", err)
	}
}

// TestRelativePointers: a TypeInfo whose Pointer is relative to its Base's
// (as generated code writes nested types, issue 17) validates against the
// whole pointer, through a chain of Bases.
func TestRelativePointers(t *testing.T) {
	type inner struct {
		N int64 `json:"n"`
	}
	type middle struct {
		B inner `json:"b"`
	}
	type outer struct {
		A middle `json:"a"`
	}
	schemas := bindimpl.NewSchemaSet(map[string]string{"d": `{"type":"object","properties":{"a":{"type":"object","properties":{
		"b":{"type":"object","properties":{"n":{"type":"integer","minimum":1}}}}}}}`})
	ty := bindimpl.NewTypes(schemas,
		bindimpl.Describe[inner](bindimpl.TypeInfo{Doc: "d", Base: bindimpl.TypeOf[middle](), Pointer: "/properties/b"}),
		bindimpl.Describe[middle](bindimpl.TypeInfo{Doc: "d", Base: bindimpl.TypeOf[outer](), Pointer: "/properties/a"}),
		bindimpl.Describe[outer](bindimpl.TypeInfo{Doc: "d"}),
	)
	if err := ty.Validate(inner{N: 2}); err != nil {
		t.Errorf("valid inner value: %v", err)
	}
	err := ty.Validate(inner{N: 0})
	var ve *bindimpl.ValidationError
	if !errors.As(err, &ve) || !strings.Contains(ve.Message, "minimum") {
		t.Errorf("inner value below the minimum: %v, want a ValidationError about the minimum (pointer /properties/a/properties/b)", err)
	}
}
