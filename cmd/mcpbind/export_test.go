package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// result is what one run of the mcpbind binary did.
type result struct {
	stdout, stderr string
	code           int
}

// runBinary runs the mcpbind binary with args and extra environment.
func runBinary(t *testing.T, bin string, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("running %s %q: %v", bin, args, err)
	}
	return result{stdout: stdout.String(), stderr: stderr.String(), code: code}
}

// mustExport runs an export that must succeed and returns the bundle bytes
// from the output file.
func mustExport(t *testing.T, bin string, env []string, args ...string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "bundle.json")
	r := runBinary(t, bin, env, append([]string{"export", "-o", out}, args...)...)
	if r.code != 0 {
		t.Fatalf("mcpbind export %q: exit %d\nstderr:\n%s", args, r.code, r.stderr)
	}
	if r.stdout != "" {
		t.Errorf("stdout is not empty with -o: %q", r.stdout)
	}
	if !strings.Contains(r.stderr, "mcpbind: exported ") {
		t.Errorf("no summary on stderr: %q", r.stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// parseOne parses bundle bytes holding one server.
func parseOne(t *testing.T, data []byte) bundle.Server {
	t.Helper()
	b, err := bundle.Parse(data, "bundle.json")
	if err != nil {
		t.Fatalf("exported bundle does not parse: %v", err)
	}
	if len(b.Servers) != 1 {
		t.Fatalf("%d servers", len(b.Servers))
	}
	return b.Servers[0]
}

func compactJSON(t *testing.T, raw []byte) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		t.Fatalf("compact %s: %v", raw, err)
	}
	return buf.String()
}

// TestExport runs the mcpbind binary against real servers: the npm package
// @modelcontextprotocol/server-everything and sqlite-explorer over stdio, and
// mcp-go servers over streamable HTTP.
func TestExport(t *testing.T) {
	bin := testenv.Build(t, "./cmd/mcpbind")

	t.Run("server-everything stdio", func(t *testing.T) {
		node, args := testenv.ServerEverything(t)
		const secret = "env-s3cr3t-value-9f8e7d"
		cmdline := append([]string{"--env", "MCPBIND_TEST_SECRET=" + secret, "--", node}, args...)
		data := mustExport(t, bin, nil, cmdline...)
		if bytes.Contains(data, []byte(secret)) || bytes.Contains(data, []byte("MCPBIND_TEST_SECRET")) {
			t.Error("the bundle holds the --env value")
		}
		for _, leak := range []string{node, "index.js", "node_modules"} {
			if bytes.Contains(data, []byte(leak)) {
				t.Errorf("the bundle holds the command line (%q)", leak)
			}
		}
		srv := parseOne(t, data)
		if srv.Transport != bundle.TransportStdio || srv.ID != "mcp-servers-everything" || srv.ProtocolVersion == "" {
			t.Errorf("server %s transport %s protocol %s", srv.ID, srv.Transport, srv.ProtocolVersion)
		}

		// Every tool the server lists, byte for byte (after removing
		// insignificant whitespace) as a raw JSON-RPC capture sees it.
		want := captureToolsList(t, node, args, srv.ProtocolVersion)
		if len(want) == 0 {
			t.Fatal("the raw capture found no tools")
		}
		got := map[string]string{}
		for _, tl := range srv.Tools {
			got[tl.Name] = string(tl.Raw)
		}
		if len(got) != len(want) {
			t.Errorf("bundle has %d tools, the server lists %d", len(got), len(want))
		}
		for name, raw := range want {
			if got[name] != raw {
				t.Errorf("tool %s differs:\n bundle %s\n server %s", name, got[name], raw)
			}
		}
		t.Logf("server-everything: %d tools, protocol %s", len(srv.Tools), srv.ProtocolVersion)

		// Deterministic: a second export, to stdout this time, gives the
		// same bytes.
		r := runBinary(t, bin, nil, append([]string{"export", "--"}, append([]string{node}, args...)...)...)
		if r.code != 0 {
			t.Fatalf("second export: exit %d: %s", r.code, r.stderr)
		}
		if r.stdout != string(data) {
			t.Error("a second export gave different bytes")
		}

		// Asking for a version the server does not speak: it answers
		// another, which is recorded, with a warning.
		r = runBinary(t, bin, nil, append([]string{"export", "--protocol-version", "2026-07-28", "--", node}, args...)...)
		if r.code != 0 || !strings.Contains(r.stderr, "warning: asked "+node+" for protocol 2026-07-28; it answered "+srv.ProtocolVersion) {
			t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
		}
	})

	t.Run("sqlite-explorer stdio and HTTP", func(t *testing.T) {
		command, args := testenv.SQLiteExplorerStdio(t)
		url := testenv.SQLiteExplorerHTTP(t)
		stdio := parseOne(t, mustExport(t, bin, nil, append([]string{"--", command}, args...)...))
		overHTTP := parseOne(t, mustExport(t, bin, nil, url))
		if stdio.Transport != bundle.TransportStdio || overHTTP.Transport != bundle.TransportStreamableHTTP {
			t.Errorf("transports %s, %s", stdio.Transport, overHTTP.Transport)
		}
		if stdio.ID != "sqlite-explorer" || overHTTP.ID != stdio.ID {
			t.Errorf("ids %s, %s", stdio.ID, overHTTP.ID)
		}
		if len(stdio.Tools) == 0 {
			t.Fatal("no tools")
		}
		if len(stdio.Tools) != len(overHTTP.Tools) {
			t.Fatalf("%d tools over stdio, %d over HTTP", len(stdio.Tools), len(overHTTP.Tools))
		}
		for i := range stdio.Tools {
			if !bytes.Equal(stdio.Tools[i].Raw, overHTTP.Tools[i].Raw) {
				t.Errorf("tool %s differs:\n stdio %s\n http  %s", stdio.Tools[i].Name, stdio.Tools[i].Raw, overHTTP.Tools[i].Raw)
			}
		}
		if stdio.ProtocolVersion != overHTTP.ProtocolVersion || !bytes.Equal(stdio.ServerInfo, overHTTP.ServerInfo) {
			t.Errorf("protocol %s vs %s; serverInfo %s vs %s", stdio.ProtocolVersion, overHTTP.ProtocolVersion, stdio.ServerInfo, overHTTP.ServerInfo)
		}

		// --protocol-version pins the era: sqlite-explorer wraps the
		// integer result of count_rows for clients before 2026-07-28.
		legacy := parseOne(t, mustExport(t, bin, nil, append([]string{"--protocol-version", "2025-06-18", "--", command}, args...)...))
		if stdio.ProtocolVersion != "2026-07-28" || legacy.ProtocolVersion != "2025-06-18" {
			t.Fatalf("protocol versions %s (newest), %s (pinned)", stdio.ProtocolVersion, legacy.ProtocolVersion)
		}
		outputSchema := func(s bundle.Server, tool string) string {
			for _, tl := range s.Tools {
				if tl.Name == tool {
					var v struct {
						OutputSchema json.RawMessage `json:"outputSchema"`
					}
					if err := json.Unmarshal(tl.Raw, &v); err != nil {
						t.Fatal(err)
					}
					return string(v.OutputSchema)
				}
			}
			t.Fatalf("no tool %s", tool)
			return ""
		}
		if got := outputSchema(stdio, "count_rows"); !strings.HasPrefix(got, `{"type":"integer"`) {
			t.Errorf("count_rows outputSchema at 2026-07-28: %s", got)
		}
		if got := outputSchema(legacy, "count_rows"); !strings.Contains(got, `"result"`) {
			t.Errorf("count_rows outputSchema at 2025-06-18: %s", got)
		}
	})

	t.Run("schemas mcp.Tool cannot decode, over two pages", func(t *testing.T) {
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		srv := parseOne(t, mustExport(t, bin, nil, "--env", fakeServerEnv+"=odd", "--id", "odd", "--", self))
		if srv.ID != "odd" || len(srv.Tools) != 2 {
			t.Fatalf("%s: %d tools", srv.ID, len(srv.Tools))
		}
		// Sorted by name: array_root, bool_root.
		if string(srv.Tools[0].Raw) != oddTools[1] || string(srv.Tools[1].Raw) != oddTools[0] {
			t.Errorf("tools changed:\n%s\n%s", srv.Tools[0].Raw, srv.Tools[1].Raw)
		}
	})

	t.Run("HTTP headers and tokens stay out of the bundle", func(t *testing.T) {
		const headerSecret, tokenSecret, querySecret = "hdr-s3cr3t-1a2b", "tok-s3cr3t-3c4d", "qry-s3cr3t-5e6f"
		url, seen := startMCPHTTP(t)
		data := mustExport(t, bin, []string{"MCPBIND_TEST_TOKEN=" + tokenSecret},
			"--header", "X-Api-Key: "+headerSecret, "--bearer-env", "MCPBIND_TEST_TOKEN", url+"?key="+querySecret)
		for _, s := range []string{headerSecret, tokenSecret, querySecret, "X-Api-Key", "MCPBIND_TEST_TOKEN", "127.0.0.1", "Bearer"} {
			if bytes.Contains(data, []byte(s)) {
				t.Errorf("the bundle holds %q", s)
			}
		}
		h := seen()
		if h.Get("X-Api-Key") != headerSecret || h.Get("Authorization") != "Bearer "+tokenSecret {
			t.Errorf("the server did not get the headers: %v", h)
		}
		srv := parseOne(t, data)
		if srv.Transport != bundle.TransportStreamableHTTP || srv.ID != "header-test" || len(srv.Tools) != 1 {
			t.Fatalf("%+v", srv)
		}
		// The raw schema keeps the server's key order.
		if !strings.Contains(string(srv.Tools[0].Raw), `"inputSchema":{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"integer"}}}`) {
			t.Errorf("raw tool %s", srv.Tools[0].Raw)
		}
	})

	t.Run("bad servers", func(t *testing.T) {
		testBadServers(t, bin)
	})
}

// startMCPHTTP serves an mcp-go server over streamable HTTP on loopback and
// returns its endpoint and a function returning the last request's headers.
func startMCPHTTP(t *testing.T) (url string, lastHeaders func() http.Header) {
	s := server.NewMCPServer("Header Test", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewToolWithRawSchema("echo", "Echoes its input.",
		json.RawMessage(`{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"integer"}}}`)),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("ok"), nil
		})
	h := server.NewStreamableHTTPServer(s)
	var mu sync.Mutex
	var last http.Header
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		last = r.Header.Clone()
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp", func() http.Header {
		mu.Lock()
		defer mu.Unlock()
		return last
	}
}

// testBadServers checks that servers which cannot be started or reached, or
// answer garbage, give a clear message naming the server, exit 3, and write
// nothing: no new file, an existing file untouched, nothing on stdout.
func testBadServers(t *testing.T, bin string) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	notFound := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(notFound.Close)
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "database on fire", http.StatusInternalServerError)
	}))
	t.Cleanup(failing.Close)
	const secret = "s3cr3t-echoed-7q"
	echoing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "invalid credentials: "+r.Header.Get("Authorization")+" / "+r.Header.Get("X-Api-Key"), http.StatusUnauthorized)
	}))
	t.Cleanup(echoing.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String() + "/mcp"
	_ = ln.Close()

	fake := func(mode string, extra ...string) []string {
		return append(append([]string{"--env", fakeServerEnv + "=" + mode}, extra...), "--", self)
	}
	cases := []struct {
		name string
		args []string
		want []string // substrings of stderr, besides the server's name
	}{
		{"binary missing", []string{"--", "/nonexistent/mcp-server", "--flag"}, []string{"/nonexistent/mcp-server", "no such file"}},
		{"command not on PATH", []string{"--", "mcpbind-no-such-server-4711"}, []string{"mcpbind-no-such-server-4711", "not found"}},
		{"server exits at once", fake("exit"), []string{"exit status 7", "permission denied"}},
		{"garbage, then exit", fake("garbage-exit"), []string{"not JSON-RPC", "garbage"}},
		{"garbage, then silence", fake("garbage", "--timeout", "2s"), []string{"not JSON-RPC", "--timeout 2s"}},
		{"no answer", fake("hang", "--timeout", "2s"), []string{"--timeout 2s"}},
		{"tools/list without tools", fake("notools"), []string{"tools/list", "no tools array"}},
		{"tool without a name", fake("noname"), []string{"tools/list: tool 1: missing name", "I have no name"}},
		{"tool listed twice", fake("duplicate"), []string{`tool "twice" listed twice`}},
		{"cursor loop", fake("loopcursor"), []string{"repeated cursor"}},
		{"tools/list page over --max-response-bytes", fake("odd", "--max-response-bytes", "200"), []string{"tools/list page 2", "larger than 200 bytes"}},
		{"invalid UTF-8", fake("badutf8"), []string{`tool 1 ("query")`, "\"/inputSchema/properties/ta\uFFFDble\" is not valid UTF-8"}},
		{"HTTP 404", []string{notFound.URL + "/mcp"}, []string{notFound.URL + "/mcp", "404"}},
		{"HTTP 500", []string{failing.URL + "/mcp"}, []string{failing.URL + "/mcp", "500"}},
		{"connection refused", []string{refused}, []string{refused, "refused"}},
		// Secrets the server echoes back are hidden from messages.
		{"server echoes an env value", fake("echo-env", "--env", "MCPBIND_TEST_SECRET="+secret), []string{"bad key ***", "key: ***"}},
		{"server echoes an env value, with -v", fake("echo-env", "-v", "--env", "MCPBIND_TEST_SECRET="+secret), []string{"bad key ***", "key: ***"}},
		{"server echoes headers", []string{"--header", "X-Api-Key: " + secret, "--bearer-env", "MCPBIND_TEST_TOKEN", echoing.URL + "/mcp"},
			[]string{"401", "invalid credentials: *** / ***"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // most of the time is spent waiting
			dir := t.TempDir()
			existing := filepath.Join(dir, "existing.json")
			const previous = "previous content\n"
			if err := os.WriteFile(existing, []byte(previous), 0o600); err != nil {
				t.Fatal(err)
			}
			fresh := filepath.Join(dir, "fresh.json")
			server := tc.args[len(tc.args)-1]
			if i := slices.Index(tc.args, "--"); i >= 0 {
				server = tc.args[i+1]
			}
			for _, out := range []string{existing, fresh, ""} {
				args := []string{"export"}
				if out != "" {
					args = append(args, "-o", out)
				}
				r := runBinary(t, bin, []string{"MCPBIND_TEST_TOKEN=" + secret}, append(args, tc.args...)...)
				if r.code != exitServer {
					t.Errorf("-o %q: exit %d, want %d\nstderr: %s", out, r.code, exitServer, r.stderr)
				}
				if r.stdout != "" {
					t.Errorf("-o %q: stdout %q", out, r.stdout)
				}
				for _, w := range append([]string{server}, tc.want...) {
					if !strings.Contains(r.stderr, w) {
						t.Errorf("-o %q: stderr lacks %q:\n%s", out, w, r.stderr)
					}
				}
				if strings.Contains(r.stderr, fakeServerEnv+"=") || strings.Contains(r.stderr, secret) {
					t.Errorf("stderr shows an --env, --header or token value: %s", r.stderr)
				}
			}
			if got, err := os.ReadFile(existing); err != nil || string(got) != previous {
				t.Errorf("the existing file changed: %q %v", got, err)
			}
			ents, _ := os.ReadDir(dir)
			if len(ents) != 1 {
				var names []string
				for _, e := range ents {
					names = append(names, e.Name())
				}
				t.Errorf("files written: %v", names)
			}
		})
	}
}

// captureToolsList starts a stdio server and lists its tools with
// hand-written JSON-RPC (initialize at version, then tools/list page by
// page), returning each tool compacted, by name.
func captureToolsList(t *testing.T, command string, args []string, version string) map[string]string {
	t.Helper()
	if version == "2026-07-28" {
		t.Fatalf("the raw capture speaks the initialize era only; the export negotiated %s", version)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, command, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = stdin.Close()
		_ = cmd.Wait()
	}()
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 16<<20), 16<<20)
	enc := json.NewEncoder(stdin)
	call := func(id int, method string, params any) json.RawMessage {
		t.Helper()
		if err := enc.Encode(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
			t.Fatal(err)
		}
		for sc.Scan() {
			var msg struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(sc.Bytes(), &msg) != nil || msg.Method != "" || string(msg.ID) != strconv.Itoa(id) {
				continue
			}
			if msg.Error != nil {
				t.Fatalf("%s: %s", method, msg.Error)
			}
			return msg.Result
		}
		t.Fatalf("%s: no answer (%v)", method, sc.Err())
		return nil
	}
	call(1, "initialize", map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "capture", "version": "0"},
	})
	if err := enc.Encode(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); err != nil {
		t.Fatal(err)
	}
	tools := map[string]string{}
	cursor := ""
	for id := 2; ; id++ {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		var page struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(call(id, "tools/list", params), &page); err != nil {
			t.Fatal(err)
		}
		for _, raw := range page.Tools {
			var named struct {
				Name string `json:"name"`
			}
			if err := json.Unmarshal(raw, &named); err != nil {
				t.Fatal(err)
			}
			tools[named.Name] = compactJSON(t, raw)
		}
		if page.NextCursor == "" || id > 100 {
			return tools
		}
		cursor = page.NextCursor
	}
}
