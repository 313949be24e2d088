package otelmcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/otelmcp"
)

// secretArgs is a call's arguments full of secrets, at several depths and
// in several spellings, and one URL with credentials.
type secretArgs struct {
	Query    string            `json:"query"`
	Password string            `json:"password"`
	APIKey   string            `json:"api_key"`
	Headers  map[string]string `json:"headers"`
	Nested   []map[string]any  `json:"nested"`
	URL      string            `json:"url"`
}

// secretValues are the values of secretArgs that must never be recorded.
var secretValues = []string{"hunter2-pw", "sk-live-abc123", "Bearer tok-xyz", "ghp_refresh_999", "pw-in-url"}

func newSecretArgs() secretArgs {
	return secretArgs{
		Query: "select 1", Password: "hunter2-pw", APIKey: "sk-live-abc123",
		Headers: map[string]string{"Authorization": "Bearer tok-xyz", "Accept": "json"},
		Nested:  []map[string]any{{"refreshToken": "ghp_refresh_999", "n": 1}},
		URL:     "https://bob:pw-in-url@example.com/db",
	}
}

// TestArgumentsAndResults: without the options a span holds neither
// arguments nor result; with them the client and server spans hold both
// as JSON, with every secret-looking member masked and
// URL credentials removed, and a long payload cut to MaxPayloadBytes.
func TestArgumentsAndResults(t *testing.T) {
	result := &composition.Result{StructuredContent: json.RawMessage(`{"rows":[1],"token":"ghp_refresh_999"}`)}
	next := func(context.Context, composition.Call) (*composition.Result, error) { return result, nil }
	call := composition.Call{Tool: "t", Args: newSecretArgs(), Request: &composition.Request{}, Peer: stdioPeer}

	off := newRecorder(t)
	invoke(t, off, call, next)
	if a := attrs(off.one(t, "tools/call t").Attributes()); a["gen_ai.tool.call.arguments"] != "" || a["gen_ai.tool.call.result"] != "" {
		t.Errorf("recorded without opting in: %v", a)
	}

	on := newRecorder(t, otelmcp.WithToolArguments(), otelmcp.WithToolResults())
	invoke(t, on, call, next)
	a := attrs(on.one(t, "tools/call t").Attributes())
	wantArgs := `{"api_key":"***","headers":{"Accept":"json","Authorization":"***"},"nested":[{"n":1,"refreshToken":"***"}],"password":"***","query":"select 1","url":"https://***@example.com/db"}`
	if got := a["gen_ai.tool.call.arguments"]; got != wantArgs {
		t.Errorf("arguments\n got %s\nwant %s", got, wantArgs)
	}
	if got, want := a["gen_ai.tool.call.result"], `{"rows":[1],"token":"***"}`; got != want {
		t.Errorf("result %s, want %s", got, want)
	}

	_, err := on.tel.ServerInterceptor()(context.Background(), composition.ServerCall{Tool: "s", Args: json.RawMessage(`{"q":1,"Api-Key":"sk-live-abc123"}`)},
		func(context.Context, composition.ServerCall) (composition.Answer, error) {
			return composition.Answer{Text: `{"secret":"sk-live-abc123"}`, Structured: json.RawMessage(`{"secret":"sk-live-abc123","ok":true}`)}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	sa := attrs(on.one(t, "tools/call s").Attributes())
	if got, want := sa["gen_ai.tool.call.result"], `{"ok":true,"secret":"***"}`; got != want {
		t.Errorf("server result %s, want %s", got, want)
	}
	if got, want := sa["gen_ai.tool.call.arguments"], `{"Api-Key":"***","q":1}`; got != want {
		t.Errorf("server arguments %s, want %s", got, want)
	}
	for _, s := range on.spans.Ended() {
		for _, kv := range s.Attributes() {
			for _, v := range secretValues {
				if strings.Contains(kv.Value.Emit(), v) {
					t.Errorf("span %q attribute %s holds the secret %q", s.Name(), kv.Key, v)
				}
			}
		}
	}

	long := composition.Call{Tool: "long", Args: map[string]string{"q": strings.Repeat("x", 3*otelmcp.MaxPayloadBytes)}, Peer: stdioPeer}
	invoke(t, on, long, next)
	if got := attrs(on.one(t, "tools/call long").Attributes())["gen_ai.tool.call.arguments"]; len(got) > otelmcp.MaxPayloadBytes+len("…") || !strings.HasSuffix(got, "…") {
		t.Errorf("long arguments recorded as %d bytes ending %q", len(got), got[len(got)-5:])
	}
}
