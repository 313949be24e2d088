package composition

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcpbind/mcpbind/composition/bindimpl"
	"github.com/mcpbind/mcpbind/internal/mcpconn"
)

// testServerTools are the test server's tools, in the order tools/list gives
// them (mcp-go sorts by name).
var testServerTools = []string{
	"always_wrapped", "array", "bad_header", "big_int", "bool_schema", "cwd", "echo", "exit", "fails", "getenv",
	"integer", "null_value", "nullable_row", "object", "sleep", "text_json", "text_plain", "type_array_schema",
}

// TestTestServer runs the session suite against composition's mcp-go test
// server over stdio and over Streamable HTTP on loopback, in both protocol
// eras.
func TestTestServer(t *testing.T) {
	bin := buildTestServer(t)
	url := startHTTPServer(t, bin)

	eras := []struct {
		name string
		pin  string // WithProtocolVersion
		want string // negotiated version
	}{
		{"modern", "", ModernProtocolVersion},
		{"legacy", "2025-06-18", "2025-06-18"},
	}
	transports := []struct {
		name string
		tr   Transport
	}{
		{TransportStdio, Stdio(bin)},
		{TransportStreamableHTTP, HTTP(url)},
	}
	for _, tr := range transports {
		for _, era := range eras {
			t.Run(tr.name+"/"+era.name, func(t *testing.T) {
				t.Parallel()
				ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
				defer cancel()
				s, err := Connect(ctx, tr.tr, WithProtocolVersion(era.pin))
				if err != nil {
					t.Fatal(err)
				}
				defer func() {
					if err := s.Close(); err != nil {
						t.Errorf("Close: %v", err)
					}
				}()
				if got := s.ProtocolVersion(); got != era.want {
					t.Errorf("ProtocolVersion() = %q, want %q", got, era.want)
				}
				if got := s.Transport(); got != tr.name {
					t.Errorf("Transport() = %q, want %q", got, tr.name)
				}
				exerciseSession(ctx, t, s)
			})
		}
	}

	t.Run("options", func(t *testing.T) { t.Parallel(); testOptions(t, bin) })
	t.Run("paging", func(t *testing.T) { t.Parallel(); testPaging(t, bin) })
	t.Run("lifetime", func(t *testing.T) { t.Parallel(); testLifetime(t, bin) })
	t.Run("headers", func(t *testing.T) { t.Parallel(); testHeaders(t, bin) })
}

func exerciseSession(ctx context.Context, t *testing.T, s *Session) {
	t.Run("server facts", func(t *testing.T) {
		var info struct{ Name, Version string }
		if err := json.Unmarshal(s.ServerInfo(), &info); err != nil || info.Name != "mcpbind-testserver" || info.Version != "1.0.0" {
			t.Errorf("ServerInfo() = %s (%v)", s.ServerInfo(), err)
		}
		var caps map[string]json.RawMessage
		if err := json.Unmarshal(s.Capabilities(), &caps); err != nil || string(caps["tools"]) != `{"listChanged":true}` {
			t.Errorf("Capabilities() = %s (%v)", s.Capabilities(), err)
		}
		if got := s.Instructions(); got != "Test server for mcpbind's composition package." {
			t.Errorf("Instructions() = %q", got)
		}
	})

	t.Run("ListToolsRaw", func(t *testing.T) {
		tools, err := s.ListToolsRaw(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		byName := map[string]json.RawMessage{}
		for _, raw := range tools {
			var tool struct{ Name string }
			if err := json.Unmarshal(raw, &tool); err != nil {
				t.Fatalf("tool %s: %v", raw, err)
			}
			names = append(names, tool.Name)
			byName[tool.Name] = raw
		}
		if !reflect.DeepEqual(names, testServerTools) {
			t.Fatalf("tools = %q\nwant    %q", names, testServerTools)
		}
		// Tools that mcp-go's client would drop or fail on arrive untouched.
		if !strings.Contains(string(byName["bad_header"]), `"x-mcp-header":"Region"`) {
			t.Errorf("bad_header = %s", byName["bad_header"])
		}
		if !strings.Contains(string(byName["bool_schema"]), `"inputSchema":true`) {
			t.Errorf("bool_schema = %s", byName["bool_schema"])
		}
		var ta struct {
			InputSchema  json.RawMessage
			OutputSchema json.RawMessage
		}
		if err := json.Unmarshal(byName["type_array_schema"], &ta); err != nil {
			t.Fatal(err)
		}
		wantInput := `{"type":["object","null"],"properties":{"q":{"type":"string","pattern":"^[a-z]+$"}},"$defs":{"unused":{"oneOf":[{"type":"string"},{"type":"integer"}]}}}`
		if string(ta.InputSchema) != wantInput || string(ta.OutputSchema) != "true" {
			t.Errorf("type_array_schema schemas = %s, %s", ta.InputSchema, ta.OutputSchema)
		}
	})

	t.Run("object", func(t *testing.T) {
		var got struct {
			Name  string `json:"name"`
			Count int    `json:"count"`
			ID    int64  `json:"id"`
		}
		if err := s.Invoke(ctx, &bindimpl.Tool{Name: "object", Output: bindimpl.Output{PlainObject: true, CanBeObject: true}}, nil, &got); err != nil {
			t.Fatal(err)
		}
		if got.Name != "widget" || got.Count != 3 || got.ID != 9007199254740993 {
			t.Errorf("got %+v", got)
		}
	})

	t.Run("integer", func(t *testing.T) {
		var got int64
		if err := s.Invoke(ctx, &bindimpl.Tool{Name: "integer"}, nil, &got); err != nil || got != 42 {
			t.Errorf("got %d, %v", got, err)
		}
	})

	t.Run("array", func(t *testing.T) {
		var got []string
		if err := s.Invoke(ctx, &bindimpl.Tool{Name: "array"}, nil, &got); err != nil || !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
			t.Errorf("got %q, %v", got, err)
		}
	})

	t.Run("null", func(t *testing.T) {
		got := &struct{ A int }{A: 1}
		if err := s.Invoke(ctx, &bindimpl.Tool{Name: "null_value"}, nil, &got); err != nil || got != nil {
			t.Errorf("got %+v, %v", got, err)
		}
		res, err := s.CallResult(ctx, "null_value", nil)
		if err != nil || string(res.StructuredContent) != "null" {
			t.Errorf("StructuredContent = %q, %v; want the literal null", res.StructuredContent, err)
		}
	})

	t.Run("big int64", func(t *testing.T) {
		var got int64
		if err := s.Invoke(ctx, &bindimpl.Tool{Name: "big_int"}, nil, &got); err != nil || got != 9007199254740993 {
			t.Errorf("got %d, %v", got, err)
		}
	})

	t.Run("always wrapped", func(t *testing.T) {
		var got int64
		if err := s.Invoke(ctx, &bindimpl.Tool{Name: "always_wrapped", Output: bindimpl.Output{AlwaysWraps: true}}, nil, &got); err != nil || got != 7 {
			t.Errorf("got %d, %v", got, err)
		}
	})

	t.Run("nullable row", func(t *testing.T) {
		// Wrapped for legacy clients, natural for modern ones: the same Call
		// gives the row in both eras.
		type Row struct {
			ID   int64  `json:"id"`
			Name string `json:"name"`
		}
		nullable := bindimpl.Tool{Name: "nullable_row", Output: bindimpl.Output{CanBeObject: true}}
		var row *Row
		if err := s.Invoke(ctx, &nullable, nil, &row); err != nil {
			t.Fatal(err)
		}
		if row == nil || *row != (Row{ID: 9007199254740993, Name: "row"}) {
			t.Errorf("row = %+v", row)
		}
		row = &Row{ID: 1}
		if err := s.Invoke(ctx, &nullable, map[string]any{"missing": true}, &row); err != nil || row != nil {
			t.Errorf("missing row = %+v, %v; want nil", row, err)
		}
	})

	t.Run("isError", func(t *testing.T) {
		err := s.Invoke(ctx, &bindimpl.Tool{Name: "fails"}, nil, new(any))
		var te *ToolError
		if !errors.As(err, &te) {
			t.Fatalf("err = %v, want a *ToolError", err)
		}
		if te.Tool != "fails" || te.Text != "kaboom: the widget is broken" || te.Result == nil || !te.Result.IsError {
			t.Errorf("ToolError = %+v", te)
		}
		if want := `tool "fails" reported an error: kaboom: the widget is broken`; te.Error() != want {
			t.Errorf("Error() = %q, want %q", te.Error(), want)
		}
		if _, err := s.CallResult(ctx, "fails", nil); !errors.As(err, &te) {
			t.Errorf("CallResult err = %v, want a *ToolError", err)
		}
	})

	t.Run("JSON in text", func(t *testing.T) {
		var got struct {
			A   int   `json:"a"`
			Big int64 `json:"big"`
		}
		if err := s.Invoke(ctx, &bindimpl.Tool{Name: "text_json"}, nil, &got); err != nil || got.A != 1 || got.Big != 9007199254740993 {
			t.Errorf("got %+v, %v", got, err)
		}
	})

	t.Run("plain text", func(t *testing.T) {
		var got any
		err := s.Invoke(ctx, &bindimpl.Tool{Name: "text_plain"}, nil, &got)
		if err == nil || !strings.Contains(err.Error(), `tool "text_plain"`) || !strings.Contains(err.Error(), "just words") {
			t.Errorf("err = %v", err)
		}
		res, err := s.CallResult(ctx, "text_plain", nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Text() != "just words" || res.StructuredContent != nil || len(res.Content) != 1 || res.Content[0].Type != "text" {
			t.Errorf("result = %+v", res)
		}
		if !strings.Contains(string(res.Content[0].Raw), `"just words"`) {
			t.Errorf("Raw = %s", res.Content[0].Raw)
		}
		if err := res.DecodeJSON(&got); err == nil {
			t.Error("DecodeJSON of plain text succeeded")
		}
	})

	t.Run("decode error", func(t *testing.T) {
		var got string
		err := s.Invoke(ctx, &bindimpl.Tool{Name: "array"}, nil, &got)
		if err == nil || !strings.Contains(err.Error(), `tool "array"`) || !strings.Contains(err.Error(), `["a","b","c"]`) {
			t.Errorf("err = %v", err)
		}
	})

	t.Run("CallResult", func(t *testing.T) {
		res, err := s.CallResult(ctx, "text_json", nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Text() != "Here is the data:\n{\"a\":1,\"big\":9007199254740993}" {
			t.Errorf("Text() = %q", res.Text())
		}
		var m map[string]json.Number
		dec := func(v any) error { return res.DecodeJSON(v) }
		if err := dec(&m); err != nil || m["big"] != "9007199254740993" {
			t.Errorf("DecodeJSON = %v, %v", m, err)
		}
	})

	t.Run("arguments", func(t *testing.T) {
		var got map[string]any
		if err := s.Invoke(ctx, &bindimpl.Tool{Name: "echo"}, nil, &got); err != nil || len(got) != 0 || got == nil {
			t.Errorf("nil args: got %v, %v; want {}", got, err)
		}
		type args struct {
			N    int64             `json:"n"`
			Tags map[string]string `json:"tags"`
		}
		var back args
		in := args{N: 9007199254740993, Tags: map[string]string{"k": "v"}}
		if err := s.Invoke(ctx, &bindimpl.Tool{Name: "echo"}, in, &back); err != nil || !reflect.DeepEqual(back, in) {
			t.Errorf("got %+v, %v; want %+v", back, err, in)
		}
		if err := s.Invoke(ctx, &bindimpl.Tool{Name: "echo"}, []int{1}, nil); err == nil || !strings.Contains(err.Error(), "JSON object") {
			t.Errorf("array args: err = %v", err)
		}
	})

	t.Run("unknown tool", func(t *testing.T) {
		_, err := s.CallResult(ctx, "no_such_tool", nil)
		var te *ToolError
		if err == nil || errors.As(err, &te) && te.Tool != "no_such_tool" {
			t.Errorf("err = %v", err)
		}
		if err != nil && !strings.Contains(err.Error(), "no_such_tool") {
			t.Errorf("err = %v, want it to name the tool", err)
		}
	})

	t.Run("concurrent calls", func(t *testing.T) { testConcurrent(ctx, t, s) })

	t.Run("cancellation", func(t *testing.T) {
		callCtx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		var err error
		returnsOnceDone(t, callCtx, "a call of a tool that sleeps a minute", func() {
			err = s.Invoke(callCtx, &bindimpl.Tool{Name: "sleep"}, map[string]any{"ms": 60000}, nil)
		})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want context.DeadlineExceeded", err)
		}
		// The session still works.
		var got int64
		if err := s.Invoke(ctx, &bindimpl.Tool{Name: "integer"}, nil, &got); err != nil || got != 42 {
			t.Errorf("after cancellation: %d, %v", got, err)
		}
	})
}

func testOptions(t *testing.T, bin string) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	dir := t.TempDir()
	var stderr syncBuffer
	s, err := Connect(ctx, Stdio(bin),
		WithEnv("MCPBIND_TEST_GREETING=hello there"),
		WithDir(dir),
		WithStderr(&stderr),
		connOption(mcpconn.WithClientInfo("composition-test", "0.0.1")))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	res, err := s.CallResult(ctx, "getenv", map[string]string{"name": "MCPBIND_TEST_GREETING"})
	if err != nil || res.Text() != "hello there" {
		t.Errorf("getenv: %v, %v", res, err)
	}
	res, err = s.CallResult(ctx, "cwd", nil)
	if err != nil {
		t.Fatal(err)
	}
	gotDir, _ := filepath.EvalSymlinks(res.Text())
	wantDir, _ := filepath.EvalSymlinks(dir)
	if gotDir != wantDir {
		t.Errorf("cwd = %q, want %q", gotDir, wantDir)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if !strings.Contains(stderr.String(), "testserver: starting") {
		t.Errorf("stderr = %q", stderr.String())
	}
	if !errors.Is(s.Err(), ErrSessionClosed) {
		t.Errorf("Err after Close = %v, want ErrSessionClosed", s.Err())
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// testLifetime checks that a session outlives the context given to Connect,
// and that a server that dies during a call is reported with its exit status
// and stderr.
func testLifetime(t *testing.T, bin string) {
	connectCtx, cancelConnect := context.WithTimeout(t.Context(), 30*time.Second)
	s, err := Connect(connectCtx, Stdio(bin))
	cancelConnect()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var n int64
	if err := s.Invoke(ctx, &bindimpl.Tool{Name: "integer"}, nil, &n); err != nil || n != 42 {
		t.Fatalf("after the connect context ended: %d, %v", n, err)
	}
	_, err = s.CallResult(ctx, "exit", nil)
	t.Logf("call to a server that exits: %v", err)
	// The stderr tail is kept out of the message (StderrTail).
	if err == nil || !strings.Contains(err.Error(), "exit status 5") || strings.Contains(err.Error(), "exiting on request") ||
		!strings.Contains(StderrTail(err), "testserver: exiting on request") {
		t.Errorf("err = %v (stderr tail %q), want the exit status, and the stderr tail only in StderrTail", err, StderrTail(err))
	}
	var lost *SessionLostError
	if !errors.Is(err, ErrSessionLost) || !errors.As(err, &lost) || !lost.Sent {
		t.Errorf("err = %v, want a SessionLostError (sent) matching ErrSessionLost", err)
	}
	select {
	case <-s.Done():
	case <-time.After(hangBound):
		t.Fatalf("Done not closed %v after the server exited", hangBound)
	}
	err = s.Invoke(ctx, &bindimpl.Tool{Name: "integer"}, nil, &n)
	t.Logf("call after the server exited: %v", err)
	if !errors.As(err, &lost) || lost.Sent {
		t.Errorf("call after the server exited: err = %v, want a SessionLostError (not sent)", err)
	}
	if !errors.Is(s.Err(), ErrSessionLost) {
		t.Errorf("Err() = %v, want ErrSessionLost", s.Err())
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close after the server exited: %v", err)
	}
}

// testConcurrent checks that concurrent calls on one session each get their
// own raw result.
func testConcurrent(ctx context.Context, t *testing.T, s *Session) {
	errs := make(chan error, 40)
	for i := range 40 {
		go func() {
			switch i % 4 {
			case 0:
				var n int64
				if err := s.Invoke(ctx, &bindimpl.Tool{Name: "big_int"}, nil, &n); err != nil || n != 9007199254740993 {
					errs <- fmt.Errorf("big_int: %d, %v", n, err)
					return
				}
			case 1:
				var back map[string]int64
				if err := s.Invoke(ctx, &bindimpl.Tool{Name: "echo"}, map[string]int64{"i": int64(i)}, &back); err != nil || back["i"] != int64(i) {
					errs <- fmt.Errorf("echo %d: %v, %v", i, back, err)
					return
				}
			case 2:
				var a []string
				if err := s.Invoke(ctx, &bindimpl.Tool{Name: "array"}, nil, &a); err != nil || len(a) != 3 {
					errs <- fmt.Errorf("array: %v, %v", a, err)
					return
				}
			case 3:
				tools, err := s.ListToolsRaw(ctx)
				if err != nil || len(tools) != len(testServerTools) {
					errs <- fmt.Errorf("ListToolsRaw: %d tools, %v", len(tools), err)
					return
				}
			}
			errs <- nil
		}()
	}
	for range 40 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func testPaging(t *testing.T, bin string) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()

	s, err := Connect(ctx, Stdio(bin, "-page", "4"), connOption(mcpconn.WithMaxPages(2)))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = s.ListToolsRaw(ctx)
	if err == nil || !strings.Contains(err.Error(), "more than 2 pages") || !strings.Contains(err.Error(), "page 3") || !strings.Contains(err.Error(), bin) {
		t.Errorf("err = %v", err)
	}

	loop, err := Connect(ctx, Stdio(bin, "-loop-cursor"))
	if err != nil {
		t.Fatal(err)
	}
	defer loop.Close()
	_, err = loop.ListToolsRaw(ctx)
	if err == nil || !strings.Contains(err.Error(), "repeated cursor") || !strings.Contains(err.Error(), "page 2") {
		t.Errorf("err = %v", err)
	}

	one, err := Connect(ctx, Stdio(bin, "-page", "100"))
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	tools, err := one.ListToolsRaw(ctx)
	if err != nil || len(tools) != len(testServerTools) {
		t.Errorf("one page: %d tools, %v", len(tools), err)
	}
}

func testHeaders(t *testing.T, bin string) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	const secret = "s3cret-t0ken"
	url := startHTTPServer(t, bin, "-require-header", "X-Test-Token:"+secret)

	s, err := Connect(ctx, HTTP(url), WithHeader("X-Test-Token", secret))
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := s.Invoke(ctx, &bindimpl.Tool{Name: "integer"}, nil, &n); err != nil || n != 42 {
		t.Errorf("call with header: %d, %v", n, err)
	}
	s.Close()

	_, err = Connect(ctx, HTTP(url), WithHeader("X-Test-Token", "wrong-"+secret))
	var ce *ConnectError
	if !errors.As(err, &ce) || ce.Stage != "initialize" {
		t.Fatalf("err = %v, want a *ConnectError at initialize", err)
	}
	if strings.Contains(err.Error(), secret) {
		t.Errorf("error leaks the header value: %v", err)
	}
	if !strings.Contains(err.Error(), "401") && !strings.Contains(strings.ToLower(err.Error()), "authorization") {
		t.Errorf("err = %v, want it to say 401/authorization", err)
	}
}

// TestConnectErrors checks that every way a connect fails is a *ConnectError
// that says what happened, and that a server that hangs cannot hold Connect
// past its context.
func TestConnectErrors(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Fatalf("these tests need /bin/sh: %v", err)
	}
	type check struct {
		name    string
		tr      func(t *testing.T) Transport
		opts    []Option
		timeout time.Duration
		stage   string
		is      error    // errors.Is target, if any
		want    []string // substrings of Error()
		deny    []string // must not appear in Error()
		stderr  string   // ConnectError.Stderr
	}
	stdio := func(cmd string, args ...string) func(*testing.T) Transport {
		return func(*testing.T) Transport { return Stdio(cmd, args...) }
	}
	checks := []check{
		{
			name: "missing binary", tr: stdio("mcpbind-no-such-server-binary"), stage: "start",
			is: errExecNotFound, want: []string{"mcpbind-no-such-server-binary", "not found"},
		},
		{
			name: "exits at once", tr: stdio("sh", "-c", "echo boom >&2; exit 3"), stage: "initialize",
			// The stderr tail stays in Stderr, out of the message.
			want: []string{"exited (exit status 3)"}, deny: []string{"boom"}, stderr: "boom",
		},
		{
			name: "garbage then exit", tr: stdio("sh", "-c", "echo 'Welcome to my server!'; printf '\\001\\377 junk'; exit 0"), stage: "initialize",
			want: []string{"not JSON-RPC", "Welcome to my server!", "exited (exit status 0)"},
		},
		{
			name: "garbage then hang", tr: stdio("sh", "-c", "echo 'not json at all'; exec sleep 60"), stage: "initialize",
			timeout: time.Second, is: context.DeadlineExceeded, want: []string{"not JSON-RPC", "not json at all", "context"},
		},
		{
			name: "hangs", tr: stdio("sh", "-c", "echo waiting >&2; exec sleep 60"), stage: "initialize",
			timeout: 500 * time.Millisecond, is: context.DeadlineExceeded, want: []string{"deadline"}, stderr: "waiting",
		},
		{
			name: "bad working directory", tr: stdio("sh", "-c", "exit 0"), opts: []Option{WithDir("/nonexistent/mcpbind-dir")},
			stage: "start", want: []string{"/nonexistent/mcpbind-dir"},
		},
		{
			name: "HTTP 404", stage: "initialize", want: []string{"404", "MCP endpoint"},
			tr: func(t *testing.T) Transport { return HTTP(httpServer(t, http404) + "/mcp") },
		},
		{
			name: "HTTP 500", stage: "initialize", want: []string{"500", "database exploded"},
			tr: func(t *testing.T) Transport { return HTTP(httpServer(t, http500) + "/mcp") },
		},
		{
			name: "HTTP hangs", stage: "initialize", timeout: 500 * time.Millisecond, is: context.DeadlineExceeded,
			tr: func(t *testing.T) Transport { return HTTP(httpServer(t, httpHang) + "/mcp") },
		},
		{
			name: "HTTP garbage JSON", stage: "initialize", want: []string{"decode"},
			tr: func(t *testing.T) Transport { return HTTP(httpServer(t, httpGarbage) + "/mcp") },
		},
		{
			name: "HTTP wrong content", stage: "initialize", want: []string{"text/html"},
			tr: func(t *testing.T) Transport { return HTTP(httpServer(t, httpHTML) + "/mcp") },
		},
		{
			name: "HTTP credentials not shown", stage: "initialize", want: []string{"404"},
			deny: []string{"hunter2", "tok3n", "frag"},
			tr: func(t *testing.T) Transport {
				u := httpServer(t, http404)
				return HTTP(strings.Replace(u, "http://", "http://alice:hunter2@", 1) + "/mcp?token=tok3n#frag")
			},
		},
		{
			name: "HTTP nothing listening", stage: "initialize", want: []string{"initialize: dial tcp", "connection refused"},
			// One layer of context per layer of meaning: not mcp-go's
			// wrappers, nor the URL a second time.
			deny: []string{"transport error", "failed to send request", "Post "},
			tr:   func(t *testing.T) Transport { return HTTP("http://" + closedPort(t) + "/mcp") },
		},
		{name: "not a URL", tr: func(*testing.T) Transport { return HTTP("ftp://example.com/x") }, stage: "config"},
		{name: "zero transport", tr: func(*testing.T) Transport { return Transport{} }, stage: "config"},
		{
			name: "unknown protocol version", tr: stdio("sh"), opts: []Option{WithProtocolVersion("2099-01-01")},
			stage: "config", want: []string{"2099-01-01"},
		},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			timeout := c.timeout
			if timeout == 0 {
				timeout = 20 * time.Second
			}
			ctx, cancel := context.WithTimeout(t.Context(), timeout)
			defer cancel()
			tr := c.tr(t)
			var s *Session
			var err error
			returnsOnceDone(t, ctx, "Connect", func() { s, err = Connect(ctx, tr, c.opts...) })
			if err == nil {
				s.Close()
				t.Fatal("Connect succeeded")
			}
			t.Logf("error:\n%v", err)
			var ce *ConnectError
			if !errors.As(err, &ce) {
				t.Fatalf("err is %T, want *ConnectError", err)
			}
			if ce.Stage != c.stage {
				t.Errorf("Stage = %q, want %q", ce.Stage, c.stage)
			}
			if ce.Server != tr.String() || ce.Server == "" {
				t.Errorf("Server = %q, want %q", ce.Server, tr.String())
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("errors.Is(err, %v) = false", c.is)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not mention %q", w)
				}
			}
			for _, d := range c.deny {
				if strings.Contains(err.Error(), d) || strings.Contains(ce.Server, d) {
					t.Errorf("error shows %q", d)
				}
			}
			if ce.Stderr != c.stderr {
				t.Errorf("Stderr = %q, want %q", ce.Stderr, c.stderr)
			}
		})
	}
}

func ExampleConnect() {
	ctx := context.Background()
	s, err := Connect(ctx, Stdio("mcpbind-example-server"))
	if err != nil {
		var ce *ConnectError
		if errors.As(err, &ce) {
			fmt.Println(ce.Stage)
		}
		return
	}
	defer s.Close()
	// Output: start
}
