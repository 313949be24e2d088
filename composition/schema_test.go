package composition

import (
	"errors"
	"strings"
	"testing"
)

func TestSchemaSetValidatesSubSchemasWithPointers(t *testing.T) {
	s := NewSchemaSet(map[string]string{
		"t#outputSchema": `{"type":"object","properties":{"rows":{"type":"array","items":{"$ref":"#/$defs/row"}}},"$defs":{"row":{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"]}}}`,
	})
	if err := s.ValidateJSON("t#outputSchema", "", []byte(`{"rows":[{"n":1},{"n":2}]}`)); err != nil {
		t.Fatalf("valid value: %v", err)
	}
	err := s.ValidateJSON("t#outputSchema", "", []byte(`{"rows":[{"n":1},{"n":0}]}`))
	var ve *ValidationError
	if !errors.As(err, &ve) || ve.Pointer != "/rows/1/n" || !strings.Contains(ve.Message, "minimum") {
		t.Fatalf("err = %#v", err)
	}
	// A sub-schema is addressed by its pointer; its $ref still resolves.
	if err := s.Validate("t#outputSchema", "/properties/rows", []map[string]int{{"n": 0}}); !errors.As(err, &ve) || ve.Pointer != "/0/n" {
		t.Fatalf("sub-schema err = %v", err)
	}
}

func TestSchemaSetNeverFetches(t *testing.T) {
	s := NewSchemaSet(map[string]string{"t#inputSchema": `{"$ref":"https://example.com/schema.json"}`})
	err := s.ValidateJSON("t#inputSchema", "", []byte(`{}`))
	if err == nil || !strings.Contains(err.Error(), "never fetches") {
		t.Fatalf("err = %v", err)
	}
}

func TestSchemaSetTagged(t *testing.T) {
	s := NewSchemaSet(map[string]string{"t#inputSchema": `{"type":"object","properties":{"kind":{"const":"circle"},"r":{"type":"number","minimum":0}},"required":["kind","r"]}`})
	if err := s.ValidateTagged("t#inputSchema", "", "kind", `"circle"`, struct {
		R float64 `json:"r"`
	}{R: 1}); err != nil {
		t.Fatal(err)
	}
	if err := s.ValidateTagged("t#inputSchema", "", "kind", `"circle"`, struct {
		R float64 `json:"r"`
	}{R: -1}); err == nil {
		t.Fatal("negative radius accepted")
	}
}

// TestSchemaSetECMAPatterns: JSON Schema patterns are ECMA-262; one that
// Go's regexp cannot compile (a lookahead) still validates.
func TestSchemaSetECMAPatterns(t *testing.T) {
	s := NewSchemaSet(map[string]string{"t#inputSchema": `{"type":"string","pattern":"^(?!admin$)[a-z]+$"}`})
	if err := s.ValidateJSON("t#inputSchema", "", []byte(`"alice"`)); err != nil {
		t.Fatalf("alice: %v", err)
	}
	var ve *ValidationError
	if err := s.ValidateJSON("t#inputSchema", "", []byte(`"admin"`)); !errors.As(err, &ve) {
		t.Fatalf("admin: %v, want a ValidationError", err)
	}
}
