package composition_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/bindimpl"
)

// serveInProcess registers tools on a new mcp-go server and connects a
// session to it in process at version ("" = newest).
func serveInProcess(t *testing.T, version string, tools ...composition.ServedTool) *composition.Session {
	t.Helper()
	return serveInProcessWith(t, version, nil, tools...)
}

// serveInProcessWith is serveInProcess with Serve options.
func serveInProcessWith(t *testing.T, version string, opts []composition.ServerOption, tools ...composition.ServedTool) *composition.Session {
	t.Helper()
	srv := server.NewMCPServer("serve-test", "0.0.1", server.WithToolCapabilities(false))
	if err := composition.Serve(srv, tools, opts...); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	s, err := composition.Connect(ctx, composition.InProcess(srv), composition.WithProtocolVersion(version))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// TestServePlainResults: a tool without outputSchema sends the handler's
// *Result as it is (every content block, no structuredContent), and a
// *ToolError carrying a Result is sent as that result with isError.
func TestServePlainResults(t *testing.T) {
	echo := bindimpl.Tool{Name: "echo"}
	const echoJSON = `{"name":"echo","description":"Echo.","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}}`
	type echoArgs struct {
		Text string `json:"text"`
	}
	sent := &composition.Result{Content: []composition.Content{
		{Type: "text", Text: "hello"},
		{Type: "image", MimeType: "image/png", Data: "iVBORw0KGgo="},
	}}
	fail := bindimpl.Tool{Name: "fail"}
	s := serveInProcess(t, "",
		bindimpl.Handle(echo, echoJSON, func(_ context.Context, a echoArgs) (*composition.Result, error) {
			if a.Text != "hello" {
				return nil, errors.New("unexpected " + a.Text)
			}
			return sent, nil
		}),
		bindimpl.HandleNoArgs(fail, `{"name":"fail","inputSchema":{"type":"object"}}`, func(context.Context) (*composition.Result, error) {
			return nil, &composition.ToolError{Text: "ignored", Result: &composition.Result{Content: []composition.Content{{Type: "text", Text: "disk full"}}}}
		}),
		// The README: a *ToolError wrapped with %w is forwarded as its
		// Result too (the downstream's text, as sent); with %v only the
		// message, which is ours.
		bindimpl.HandleNoArgs(bindimpl.Tool{Name: "wrapped"}, `{"name":"wrapped","inputSchema":{"type":"object"}}`, func(context.Context) (*composition.Result, error) {
			return nil, fmt.Errorf("lookup: %w", &composition.ToolError{Text: "ignored", Result: &composition.Result{Content: []composition.Content{{Type: "text", Text: "disk\x1b[2J full"}}}})
		}),
		bindimpl.HandleNoArgs(bindimpl.Tool{Name: "ours"}, `{"name":"ours","inputSchema":{"type":"object"}}`, func(context.Context) (*composition.Result, error) {
			return nil, fmt.Errorf("lookup: %v", &composition.ToolError{Text: "disk\x1b[2J full"})
		}),
	)
	ctx := context.Background()
	got, err := s.CallResult(ctx, "echo", map[string]any{"text": "hello"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Content) != 2 || got.Content[0].Text != "hello" || got.Content[1].Data != "iVBORw0KGgo=" || got.StructuredContent != nil {
		t.Errorf("echo: %+v", got)
	}
	_, err = s.CallResult(ctx, "fail", nil)
	var te *composition.ToolError
	if !errors.As(err, &te) || te.Text != "disk full" {
		t.Errorf("fail: %v, want a tool error with the Result's text", err)
	}
	_, err = s.CallResult(ctx, "wrapped", nil)
	if !errors.As(err, &te) || te.Text != "disk\x1b[2J full" {
		t.Errorf("wrapped: %v, want a tool error with the wrapped Result's text as sent", err)
	}
	_, err = s.CallResult(ctx, "ours", nil)
	if !errors.As(err, &te) || strings.ContainsRune(te.Text, 0x1b) || !strings.HasPrefix(te.Text, "lookup: ") {
		t.Errorf("ours: %v (text %q), want our message with the peer text escaped", err, te.Text)
	}
}

// TestServeAlwaysWraps: a tool the bundle says always wraps (FastMCP, the
// Python SDK) is listed with its envelope and answered {"result": v} in
// both eras.
func TestServeAlwaysWraps(t *testing.T) {
	const envelope = `{"type":"object","properties":{"result":{"type":"integer"}},"required":["result"],"x-fastmcp-wrap-result":true}`
	tool := bindimpl.Tool{Name: "n", Output: bindimpl.Output{AlwaysWraps: true}, ResultPointer: "/properties/result"}
	for _, version := range []string{"", "2025-06-18"} {
		s := serveInProcess(t, version, bindimpl.HandleNoArgs(tool,
			`{"name":"n","inputSchema":{"type":"object"},"outputSchema":`+envelope+`}`,
			func(context.Context) (int64, error) { return 7, nil }))
		ctx := context.Background()
		tools, err := s.ListToolsRaw(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var listed struct {
			OutputSchema json.RawMessage `json:"outputSchema"`
		}
		if err := json.Unmarshal(tools[0], &listed); err != nil || string(listed.OutputSchema) != envelope {
			t.Errorf("session %q: listed %s, want the envelope", version, listed.OutputSchema)
		}
		res, err := s.CallResult(ctx, "n", nil)
		if err != nil {
			t.Fatal(err)
		}
		if string(res.StructuredContent) != `{"result":7}` || res.Text() != `{"result":7}` {
			t.Errorf("session %q: %s / %q, want {\"result\":7} in both", version, res.StructuredContent, res.Text())
		}
		n, err := bindimpl.CallAs[int64](ctx, s, &tool, nil)
		if err != nil || n != 7 {
			t.Errorf("session %q: typed call = %d, %v", version, n, err)
		}
	}
}

// TestServeRefusesBadTools: a tool object that is not JSON, or that names
// another tool, and a name mcp-go refuses (taken by a task tool) are errors
// from Serve, not panics, and nothing is registered.
func TestServeRefusesBadTools(t *testing.T) {
	run := func(context.Context) (int64, error) { return 0, nil }
	for _, tc := range []struct {
		name, json, want string
	}{
		{"a", `{"name":`, "not a JSON object"},
		{"a", `{"name":"b","inputSchema":{"type":"object"}}`, `is named "b"`},
		{"a", `{"name":"a","inputSchema":{"type":"object"},"outputSchema":{"type":"array"}}`, ""},
	} {
		srv := server.NewMCPServer("t", "0", server.WithToolCapabilities(false))
		err := composition.Serve(srv, []composition.ServedTool{bindimpl.HandleNoArgs(bindimpl.Tool{Name: tc.name}, tc.json, run)})
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.json, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", tc.json, err, tc.want)
		}
		if len(srv.ListTools()) != 0 {
			t.Errorf("%s: tools were registered", tc.json)
		}
	}
	srv := server.NewMCPServer("t", "0", server.WithTaskCapabilities(true, true, true))
	srv.AddTaskTool(mcp.NewTool("a", mcp.WithTaskSupport(mcp.TaskSupportRequired)), func(context.Context, mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
		return nil, nil
	})
	err := composition.Serve(srv, []composition.ServedTool{bindimpl.HandleNoArgs(bindimpl.Tool{Name: "a"}, `{"name":"a","inputSchema":{"type":"object"}}`, run)})
	if err == nil || !strings.Contains(err.Error(), "mcp-go refused") {
		t.Errorf("a name taken by a task tool: %v", err)
	}
}

// TestServeResultValidation: with WithServerResultValidation a handler value
// that breaks the natural output schema is sent as a tool error naming the
// JSON pointer, in the era where it would be wrapped too; without it, the
// value is sent.
func TestServeResultValidation(t *testing.T) {
	schemas := bindimpl.NewSchemaSet(map[string]string{"n#outputSchema": `{"type":"integer","minimum":0}`})
	tool := bindimpl.Tool{Name: "n", Schemas: schemas, OutputDoc: "n#outputSchema"}
	served := bindimpl.HandleNoArgs(tool, `{"name":"n","inputSchema":{"type":"object"}}`, func(context.Context) (int64, error) { return -1, nil })
	for _, version := range []string{"", "2025-06-18"} {
		s := serveInProcessWith(t, version, []composition.ServerOption{composition.WithServerResultValidation()}, served)
		_, err := s.CallResult(context.Background(), "n", nil)
		var te *composition.ToolError
		if !errors.As(err, &te) || !strings.Contains(te.Text, "does not match the outputSchema: at /: ") {
			t.Errorf("session %q: %v, want a tool error naming the pointer", version, err)
		}
		res, err := serveInProcess(t, version, served).CallResult(context.Background(), "n", nil)
		if err != nil || (res.Text() != "-1" && res.Text() != `{"result":-1}`) {
			t.Errorf("session %q without validation: %v, %v", version, res, err)
		}
	}
}

// TestServeLegacyOutputSchema: a tool given a legacy outputSchema (what a
// generated Register passes for a natural non-object result) is listed
// with it and answered {"result": v} toward a 2025-06-18 session, and
// listed and answered natural toward a 2026-07-28 one; the runtime takes
// both schemas as given. A legacy schema without an outputSchema, on a
// tool that always wraps, or that is not JSON is refused.
func TestServeLegacyOutputSchema(t *testing.T) {
	const natural = `{"type":"array","items":{"type":"string"}}`
	const legacy = `{"properties":{"result":{"type":"array","items":{"type":"string"}}},"required":["result"]}`
	tool := bindimpl.Tool{Name: "names"}
	served := bindimpl.HandleNoArgs(tool, `{"name":"names","inputSchema":{"type":"object"},"outputSchema":`+natural+`}`,
		func(context.Context) ([]string, error) { return []string{"ada"}, nil }).WithLegacyOutputSchema(legacy)
	for _, tc := range []struct{ version, listed, value string }{
		{"2025-06-18", legacy, `{"result":["ada"]}`},
		{"", natural, `["ada"]`},
	} {
		s := serveInProcess(t, tc.version, served)
		ctx := context.Background()
		tools, err := s.ListToolsRaw(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var listed struct {
			OutputSchema json.RawMessage `json:"outputSchema"`
		}
		if err := json.Unmarshal(tools[0], &listed); err != nil || string(listed.OutputSchema) != tc.listed {
			t.Errorf("session %q: listed %s, want %s", tc.version, listed.OutputSchema, tc.listed)
		}
		res, err := s.CallResult(ctx, "names", nil)
		if err != nil || string(res.StructuredContent) != tc.value {
			t.Errorf("session %q: %v, %v; want %s", tc.version, res, err, tc.value)
		}
	}
	run := func(context.Context) (int64, error) { return 0, nil }
	for _, tc := range []struct {
		tool         bindimpl.Tool
		json, legacy string
		want         string
	}{
		{bindimpl.Tool{Name: "a"}, `{"name":"a","inputSchema":{"type":"object"}}`, legacy, "no outputSchema"},
		{bindimpl.Tool{Name: "a", Output: bindimpl.Output{AlwaysWraps: true}}, `{"name":"a","inputSchema":{"type":"object"},"outputSchema":` + legacy + `}`, legacy, "always wraps"},
		{bindimpl.Tool{Name: "a"}, `{"name":"a","inputSchema":{"type":"object"},"outputSchema":` + natural + `}`, `{"type":`, "not JSON"},
	} {
		srv := server.NewMCPServer("t", "0", server.WithToolCapabilities(false))
		err := composition.Serve(srv, []composition.ServedTool{bindimpl.HandleNoArgs(tc.tool, tc.json, run).WithLegacyOutputSchema(tc.legacy)})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", tc.json, err, tc.want)
		}
	}
}

// TestServeArgsValidation: with WithServerArgsValidation, arguments that
// decode but break the inputSchema (a minimum) are refused as a tool error
// naming the tool and the JSON pointer, and the handler does not run;
// without it, the handler gets them.
func TestServeArgsValidation(t *testing.T) {
	schemas := bindimpl.NewSchemaSet(map[string]string{"n#inputSchema": `{"type":"object","properties":{"n":{"type":"integer","minimum":0}}}`})
	tool := bindimpl.Tool{Name: "n", Schemas: schemas, InputDoc: "n#inputSchema"}
	type args struct {
		N int64 `json:"n"`
	}
	served := bindimpl.Handle(tool, `{"name":"n","inputSchema":{"type":"object","properties":{"n":{"type":"integer","minimum":0}}}}`,
		func(_ context.Context, a args) (*composition.Result, error) {
			return &composition.Result{Content: []composition.Content{{Type: "text", Text: fmt.Sprintf("ran with %d", a.N)}}}, nil
		})
	ctx := context.Background()
	s := serveInProcessWith(t, "", []composition.ServerOption{composition.WithServerArgsValidation()}, served)
	_, err := s.CallResult(ctx, "n", map[string]int{"n": -1})
	var te *composition.ToolError
	if !errors.As(err, &te) || !strings.Contains(te.Text, `invalid arguments for tool "n"`) || !strings.Contains(te.Text, "/n") || strings.Contains(te.Text, "ran with") {
		t.Errorf("n = -1 with validation: %v, want a tool error naming /n", err)
	}
	if res, err := s.CallResult(ctx, "n", map[string]int{"n": 1}); err != nil || res.Text() != "ran with 1" {
		t.Errorf("n = 1 with validation: %v, %v", res, err)
	}
	if res, err := serveInProcess(t, "", served).CallResult(ctx, "n", map[string]int{"n": -1}); err != nil || res.Text() != "ran with -1" {
		t.Errorf("n = -1 without validation: %v, %v", res, err)
	}
}
