package golden

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/golden/untyped-envelope/untypedenvelope"
)

// names answers the tools of golden/untyped-envelope.
type names struct{}

func (names) CountNames(context.Context) (untypedenvelope.CountNamesResult, error) { return 2, nil }
func (names) ListNames(context.Context) ([]string, error)                          { return []string{"ada", "bo"}, nil }

// TestUntypedEnvelopeServes is issue 15's shape: an outputSchema
// {"properties":{"result":…},"required":["result"]} without "type". The
// generated Register must accept it (the runtime once re-decided the
// envelope with a stricter rule than generate and refused it), list the
// bundle's envelope toward a 2025-06-18 session and the natural schema
// toward a 2026-07-28 one, and answer each era so that the generated
// client decodes the natural value.
func TestUntypedEnvelopeServes(t *testing.T) {
	srv := server.NewMCPServer("untyped-envelope", "1", server.WithToolCapabilities(false))
	if err := untypedenvelope.Register(srv, names{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, tc := range []struct {
		version, listNames, countNames string
	}{
		{"2025-06-18", `{"properties":{"result":{"type":"array","items":{"type":"string"}}},"required":["result"]}`,
			`{"properties":{"result":{"$ref":"#/$defs/count"}},"required":["result"],"$defs":{"count":{"type":"integer","minimum":0}}}`},
		{"", `{"type":"array","items":{"type":"string"}}`, `{"$ref":"#/$defs/count","$defs":{"count":{"type":"integer","minimum":0}}}`},
	} {
		sess, err := composition.Connect(ctx, composition.InProcess(srv), composition.WithProtocolVersion(tc.version),
			composition.WithResultValidation())
		if err != nil {
			t.Fatal(err)
		}
		defer sess.Close()
		listed, err := sess.ListToolsRaw(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"count_names": tc.countNames, "list_names": tc.listNames}
		for _, raw := range listed {
			var tool struct {
				Name         string          `json:"name"`
				OutputSchema json.RawMessage `json:"outputSchema"`
			}
			if err := json.Unmarshal(raw, &tool); err != nil {
				t.Fatal(err)
			}
			if !jsonEqual(t, string(tool.OutputSchema), want[tool.Name]) {
				t.Errorf("session %q: %s listed with %s, want %s", tc.version, tool.Name, tool.OutputSchema, want[tool.Name])
			}
		}
		c := untypedenvelope.NewClient(sess)
		got, err := c.ListNames(ctx)
		if err != nil || len(got) != 2 || got[0] != "ada" || got[1] != "bo" {
			t.Errorf("session %q: ListNames = %q, %v", tc.version, got, err)
		}
		n, err := c.CountNames(ctx)
		if err != nil || n != 2 {
			t.Errorf("session %q: CountNames = %d, %v", tc.version, n, err)
		}
	}
}
