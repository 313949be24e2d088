package composition_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/bindimpl"
)

// TestServeEraRules checks, on the raw wire through InProcess, how Serve
// lists and answers each kind of output in each protocol era (SEP-2106).
// The tools are declared as a generated Register declares them: generate
// decides the listing of each era, and Serve takes it as given (the
// natural outputSchema in the tool object, the envelope through
// WithLegacyOutputSchema):
//   - an integer result (natural schema not a plain object) is listed with
//     its natural schema and answered unwrapped from 2026-07-28 on, and
//     listed as the {"result": …} envelope and answered wrapped before;
//   - a tool whose bundle holds the envelope (ResultPointer, as exported
//     from a server before 2026-07-28) is listed and answered the same way;
//   - a plain object result is listed and answered alike in every era.
//
// Wrapping in every era, or listing the natural schemas in every era,
// fails one of these.
func TestServeEraRules(t *testing.T) {
	const (
		natural  = `{"type":"integer"}`
		envelope = `{"type":"object","properties":{"result":{"type":"integer"}},"required":["result"]}`
		object   = `{"type":"object","properties":{"n":{"type":"integer"}}}`
	)
	type row struct {
		N int64 `json:"n"`
	}
	seven := func(context.Context) (int64, error) { return 7, nil }
	tools := []composition.ServedTool{
		bindimpl.HandleNoArgs(bindimpl.Tool{Name: "count"},
			`{"name":"count","inputSchema":{"type":"object"},"outputSchema":`+natural+`}`, seven).WithLegacyOutputSchema(envelope),
		bindimpl.HandleNoArgs(bindimpl.Tool{Name: "count_enveloped", ResultPointer: "/properties/result"},
			`{"name":"count_enveloped","inputSchema":{"type":"object"},"outputSchema":`+natural+`}`, seven).WithLegacyOutputSchema(envelope),
		bindimpl.HandleNoArgs(bindimpl.Tool{Name: "row", Output: bindimpl.Output{PlainObject: true}},
			`{"name":"row","inputSchema":{"type":"object"},"outputSchema":`+object+`}`,
			func(context.Context) (row, error) { return row{N: 7}, nil }),
	}
	for _, tc := range []struct {
		version string
		legacy  bool
	}{
		{"", false}, // the newest: 2026-07-28
		{composition.ModernProtocolVersion, false},
		{"2025-06-18", true},
		{"2025-03-26", true},
		{"2024-11-05", true},
	} {
		s := serveInProcess(t, tc.version, tools...)
		if v := s.ProtocolVersion(); (v < composition.ModernProtocolVersion) != tc.legacy || (tc.version != "" && v != tc.version) {
			t.Fatalf("session %q negotiated %s", tc.version, v)
		}
		ctx := context.Background()
		listed, err := s.ListToolsRaw(ctx)
		if err != nil {
			t.Fatal(err)
		}
		schemas := map[string]string{}
		for _, raw := range listed {
			var tool struct {
				Name         string          `json:"name"`
				OutputSchema json.RawMessage `json:"outputSchema"`
			}
			if err := json.Unmarshal(raw, &tool); err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := json.Compact(&buf, tool.OutputSchema); err != nil {
				t.Fatal(err)
			}
			schemas[tool.Name] = buf.String()
		}
		wantSchema, wantCount := natural, `7`
		if tc.legacy {
			wantSchema, wantCount = envelope, `{"result":7}`
		}
		for name, want := range map[string][2]string{
			"count":           {wantSchema, wantCount},
			"count_enveloped": {wantSchema, wantCount},
			"row":             {object, `{"n":7}`},
		} {
			if schemas[name] != want[0] {
				t.Errorf("session %q: %s listed with outputSchema %s, want %s", tc.version, name, schemas[name], want[0])
			}
			res, err := s.CallResult(ctx, name, nil)
			if err != nil {
				t.Fatalf("session %q: %s: %v", tc.version, name, err)
			}
			if string(res.StructuredContent) != want[1] || res.Text() != want[1] {
				t.Errorf("session %q: %s answered structuredContent %s, text %q; want %s in both", tc.version, name, res.StructuredContent, res.Text(), want[1])
			}
		}
	}
}
