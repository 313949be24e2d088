package bindimpl

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestSchemaSetValidatesSubSchemasWithPointers(t *testing.T) {
	s := NewSchemaSet(map[string]string{
		"t#outputSchema": `{"type":"object","properties":{"rows":{"type":"array","items":{"$ref":"#/$defs/row"}}},"$defs":{"row":{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"]}}}`,
	})
	if err := s.validateJSON("t#outputSchema", "", []byte(`{"rows":[{"n":1},{"n":2}]}`)); err != nil {
		t.Fatalf("valid value: %v", err)
	}
	err := s.validateJSON("t#outputSchema", "", []byte(`{"rows":[{"n":1},{"n":0}]}`))
	var ve *ValidationError
	if !errors.As(err, &ve) || ve.Pointer != "/rows/1/n" || !strings.Contains(ve.Message, "minimum") {
		t.Fatalf("err = %#v", err)
	}
	// A sub-schema is addressed by its pointer; its $ref still resolves.
	if err := s.validateJSON("t#outputSchema", "/properties/rows", []byte(`[{"n":0}]`)); !errors.As(err, &ve) || ve.Pointer != "/0/n" {
		t.Fatalf("sub-schema err = %v", err)
	}
}

func TestSchemaSetNeverFetches(t *testing.T) {
	s := NewSchemaSet(map[string]string{"t#inputSchema": `{"$ref":"https://example.com/schema.json"}`})
	err := s.validateJSON("t#inputSchema", "", []byte(`{}`))
	if err == nil || !strings.Contains(err.Error(), "never fetches") {
		t.Fatalf("err = %v", err)
	}
}

func TestSchemaSetTagged(t *testing.T) {
	s := NewSchemaSet(map[string]string{"t#inputSchema": `{"type":"object","properties":{"kind":{"const":"circle"},"r":{"type":"number","minimum":0}},"required":["kind","r"]}`})
	// A tagged union's variant struct leaves the tag out; marshalTagged
	// puts it back first, as the union encodes it.
	validate := func(r float64) error {
		data, err := marshalTagged("kind", `"circle"`, struct {
			R float64 `json:"r"`
		}{R: r})
		if err != nil {
			return err
		}
		if !strings.HasPrefix(string(data), `{"kind":"circle",`) {
			t.Errorf("marshalTagged = %s, want the tag first", data)
		}
		return s.validateJSON("t#inputSchema", "", data)
	}
	if err := validate(1); err != nil {
		t.Fatal(err)
	}
	if err := validate(-1); err == nil {
		t.Fatal("negative radius accepted")
	}
}

// TestSchemaSetECMAPatterns: JSON Schema patterns are ECMA-262; one that
// Go's regexp cannot compile (a lookahead) still validates.
func TestSchemaSetECMAPatterns(t *testing.T) {
	s := NewSchemaSet(map[string]string{"t#inputSchema": `{"type":"string","pattern":"^(?!admin$)[a-z]+$"}`})
	if err := s.validateJSON("t#inputSchema", "", []byte(`"alice"`)); err != nil {
		t.Fatalf("alice: %v", err)
	}
	var ve *ValidationError
	if err := s.validateJSON("t#inputSchema", "", []byte(`"admin"`)); !errors.As(err, &ve) {
		t.Fatalf("admin: %v, want a ValidationError", err)
	}
}

// TestSchemaSetPatternBudget: the "pattern" matches of one validation share
// one budget, so many strings that each make the engine backtrack cost the
// budget once, not once per string; a cancelled context stops validation
// before any match.
func TestSchemaSetPatternBudget(t *testing.T) {
	doc := `{"type":"array","items":{"type":"string","pattern":"^(a+)+$"}}`
	evil := `"` + strings.Repeat("a", 40) + `b"`
	many := "[" + strings.Repeat(evil+",", 49) + evil + "]"

	s := NewSchemaSet(map[string]string{"t#inputSchema": doc})
	s.patternBudget = 50 * time.Millisecond
	err := s.ValidateJSONContext(context.Background(), "t#inputSchema", "", []byte(many))
	if !errors.Is(err, ErrPatternBudget) {
		t.Fatalf("err = %v, want ErrPatternBudget", err)
	}
	// The first match spends the budget; the other 49 strings are not
	// matched at all.
	if !strings.Contains(err.Error(), "after 1 pattern match") {
		t.Errorf("err = %v, want the budget spent by the first match", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.ValidateJSONContext(ctx, "t#inputSchema", "", []byte(many)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v, want context.Canceled", err)
	}

	// The budget is per validation: the next one starts afresh.
	if err := s.ValidateJSONContext(context.Background(), "t#inputSchema", "", []byte(`["aaa","a"]`)); err != nil {
		t.Errorf("valid value: %v", err)
	}
	var ve *ValidationError
	if err := s.validateJSON("t#inputSchema", "", []byte(`["aaa","b"]`)); !errors.As(err, &ve) || ve.Pointer != "/1" {
		t.Errorf("invalid value: %v", err)
	}
}
