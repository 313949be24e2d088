package composition_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/bindimpl"
	"github.com/mcpbind/mcpbind/composition/pinning"
	"github.com/mcpbind/mcpbind/golden/sqlite-explorer/sqliteexplorer"
	"github.com/mcpbind/mcpbind/golden/ts-sdk-v2/tssdkv2"
	"github.com/mcpbind/mcpbind/internal/mcpconn"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// proxyProcessArg starts the arguments that make the test binary a
// forwarding proxy (TestForwardProxyProcess) instead of running tests.
const proxyProcessArg = "mcpbind-forward-proxy"

// TestForwardProxyProcess is not a test: run as
//
//	TESTBINARY -test.run=^TestForwardProxyProcess$ -- mcpbind-forward-proxy PKG [TOOL,...|all] COMMAND [ARG...]
//
// the test binary connects to the stdio server COMMAND with the generated
// package PKG's Pins (pinning.DigestCheck, DigestFail), forwards its tools (or those
// named) with PKG's Forward, and serves them over stdio with ServeStdio,
// under the downstream's own serverInfo. Run any other way it returns at
// once.
func TestForwardProxyProcess(t *testing.T) {
	args := flag.Args()
	if len(args) < 4 || args[0] != proxyProcessArg {
		return
	}
	ctx := context.Background()
	forward := map[string]func(*server.MCPServer, composition.Caller, ...string) error{
		"tssdkv2":        tssdkv2.Forward,
		"sqliteexplorer": sqliteexplorer.Forward,
	}[args[1]]
	pins := map[string]composition.Pins{
		"tssdkv2":        tssdkv2.Pins,
		"sqliteexplorer": sqliteexplorer.Pins,
	}[args[1]]
	var tools []string
	if args[2] != "all" {
		tools = strings.Split(args[2], ",")
	}
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "forward proxy:", err)
		os.Exit(1)
	}
	down, err := composition.Connect(ctx, composition.Stdio(args[3], args[4:]...), pinning.DigestCheck(pins, composition.DigestFail))
	if err != nil {
		fail(err)
	}
	var info struct{ Name, Version string }
	_ = json.Unmarshal(down.ServerInfo(), &info)
	s := server.NewMCPServer(info.Name, info.Version)
	if err := forward(s, down, tools...); err != nil {
		fail(err)
	}
	err = composition.ServeStdio(ctx, s, os.Stdin, os.Stdout)
	_ = down.Close()
	if err != nil {
		fail(err)
	}
	os.Exit(0)
}

// proxyCommand is the command line of a forwarding proxy of the stdio
// server downstream, forwarding pkg's tools (nil: all).
func proxyCommand(t *testing.T, pkg string, tools []string, downstream ...string) []string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	only := "all"
	if tools != nil {
		only = strings.Join(tools, ",")
	}
	return append([]string{self, "-test.run=^TestForwardProxyProcess$", "--", proxyProcessArg, pkg, only}, downstream...)
}

// tsRun is what testservers/ts-client.mjs prints, decoded loosely.
type tsRun struct {
	ProtocolVersion string           `json:"protocolVersion"`
	Tools           []map[string]any `json:"tools"`
	Results         []map[string]any `json:"results"`
}

// runTS runs testservers/ts-client.mjs with sdk ("v1": 2025-06-18, "v2":
// 2026-07-28) and calls against the stdio server command.
func runTS(t *testing.T, sdk string, calls []testenv.Call, command ...string) tsRun {
	t.Helper()
	out := testenv.TSClient(t, sdk, calls, command...)
	var run tsRun
	if err := json.Unmarshal(out, &run); err != nil {
		t.Fatalf("ts-client.mjs output: %v\n%s", err, out)
	}
	if len(run.Results) != len(calls) {
		t.Fatalf("ts-client.mjs made %d calls, want %d", len(run.Results), len(calls))
	}
	for _, r := range run.Results {
		withoutReservedMeta(r)
	}
	return run
}

// withoutReservedMeta drops from a result the _meta keys MCP reserves
// (such as io.modelcontextprotocol/serverInfo, which says which server
// answered: the proxy drops the downstream's and mcp-go adds none), and
// _meta when nothing is left.
func withoutReservedMeta(r map[string]any) {
	meta, ok := r["_meta"].(map[string]any)
	if !ok {
		return
	}
	for k := range meta {
		if strings.HasPrefix(k, "io.modelcontextprotocol/") {
			delete(meta, k)
		}
	}
	if len(meta) == 0 {
		delete(r, "_meta")
	}
}

// proxyCase is a downstream server and the calls compared on it.
type proxyCase struct {
	name, pkg  string
	downstream func(t *testing.T) []string
	calls      []testenv.Call
	// refused are the calls the proxy refuses for their arguments: a tool
	// error naming the JSON pointer, where the downstream answers its own
	// validation error.
	refused map[int]string
	// legacyText are the calls whose text block the downstream writes
	// differently toward a 2025-era client (the {"result": v} envelope
	// serialised): the proxy forwards the text its 2026-07-28 session got.
	legacyText map[int]bool
}

// proxyCases are the downstreams TestForwardMatchesDownstream compares.
var proxyCases = []proxyCase{
	{
		name: "ts-sdk-v2", pkg: "tssdkv2",
		downstream: func(t *testing.T) []string {
			node, args := testenv.TSSDKv2Server(t, "")
			return append([]string{node}, args...)
		},
		calls: []testenv.Call{
			{Name: "list_tags"},
			{Name: "count"},
			{Name: "count", Arguments: map[string]any{"n": 3}},
			{Name: "find_row"},
			{Name: "find_row", Arguments: map[string]any{"missing": true}},
			{Name: "stats"},
			{Name: "fail"},
			{Name: "echo_args"},
			{Name: "echo_args", Arguments: map[string]any{"zzz": 1}},
			{Name: "echo_args", Arguments: map[string]any{"a": 2, "b": []any{true}}},
			{Name: "count", Arguments: map[string]any{"n": "x"}},
			{Name: "echo_args", Arguments: map[string]any{"a": "x"}},
		},
		refused:    map[int]string{10: "/n", 11: "/a"},
		legacyText: map[int]bool{},
	},
	{
		name: "sqlite-explorer", pkg: "sqliteexplorer",
		downstream: func(t *testing.T) []string {
			bin, args := testenv.SQLiteExplorerStdio(t)
			return append([]string{bin}, args...)
		},
		// every tool of sqlite-explorer, and a property its inputSchema
		// does not allow
		calls: append(testenv.SQLiteExplorerCalls(), testenv.Call{Name: "count_rows", Arguments: map[string]any{"table": "books", "zzz": 1}}),

		refused: map[int]string{9: "/"},
		// mcp-go servers serialise the wrapped value in the text block
		// toward clients before 2026-07-28; the proxy's session with the
		// downstream is at 2026-07-28, where the text is the natural value.
		legacyText: map[int]bool{0: true, 1: true, 4: true, 5: true},
	},
}

// TestForwardMatchesDownstream: TypeScript SDK clients of both eras
// (@modelcontextprotocol/sdk 1.x at 2025-06-18, @modelcontextprotocol/client
// 2.x at 2026-07-28) see the same tools and, tool by tool, the same results
// (content blocks, structuredContent, isError, _meta but the reserved keys)
// and the same JSON-RPC errors (code and message) from a generated Forward
// proxy as from the downstream server itself: the TypeScript SDK v2 test
// server (array, integer and nullable results wrapped toward the old era, a
// tool throwing -32001, a tool echoing its raw arguments: no default added,
// unknown properties kept) and sqlite-explorer. The proxy's session with the
// downstream is at 2026-07-28 in every case, so the 2025-06-18 client sees
// results re-wrapped. Arguments that do not match the inputSchema are
// refused by the proxy with a tool error naming the JSON pointer.
func TestForwardMatchesDownstream(t *testing.T) {
	for _, pc := range proxyCases {
		for _, sdk := range []string{"v1", "v2"} {
			t.Run(pc.name+"/"+sdk, func(t *testing.T) {
				want := runTS(t, sdk, pc.calls, pc.downstream(t)...)
				got := runTS(t, sdk, pc.calls, proxyCommand(t, pc.pkg, nil, pc.downstream(t)...)...)
				if got.ProtocolVersion != want.ProtocolVersion {
					t.Errorf("negotiated %q through the proxy, %q directly", got.ProtocolVersion, want.ProtocolVersion)
				}
				if gt, wt := listed(got.Tools, want.Tools), listed(want.Tools, nil); !reflect.DeepEqual(gt, wt) {
					gj, _ := json.Marshal(gt)
					wj, _ := json.Marshal(wt)
					t.Errorf("tools/list differs:\n direct %s\n proxy  %s", wj, gj)
				}
				for i, c := range pc.calls {
					g, w := got.Results[i], want.Results[i]
					if ptr, ok := pc.refused[i]; ok {
						text := ""
						if blocks, _ := g["content"].([]any); len(blocks) == 1 {
							text, _ = blocks[0].(map[string]any)["text"].(string)
						}
						if g["isError"] != true || !strings.HasPrefix(text, fmt.Sprintf("invalid arguments for tool %q at %s", c.Name, ptr)) {
							t.Errorf("%s %v: proxy %v, direct %v; want the proxy's tool error naming %s", c.Name, c.Arguments, g, w, ptr)
						}
						continue
					}
					if sdk == "v1" && pc.legacyText[i] {
						// The text as the proxy's session got it: the
						// natural value of the structuredContent.
						sc, _ := w["structuredContent"].(map[string]any)
						natural, _ := json.Marshal(sc["result"])
						want := map[string]any{"type": "text", "text": string(natural)}
						if blocks, _ := g["content"].([]any); len(blocks) != 1 || !reflect.DeepEqual(blocks[0], want) {
							t.Errorf("%s %v: proxy content %v, want %v", c.Name, c.Arguments, g["content"], want)
						}
						w["content"] = g["content"]
					}
					if !reflect.DeepEqual(g, w) {
						gj, _ := json.Marshal(g)
						wj, _ := json.Marshal(w)
						t.Errorf("%s %v differs:\n direct %s\n proxy  %s", c.Name, c.Arguments, wj, gj)
					}
				}
			})
		}
	}
}

// listed returns tools (a tools/list answer) sorted by name, as mcp-go
// lists them, and as the proxy's tools can be compared with direct's:
// mcp-go's mcp.Tool always sends "annotations" (an empty object where the
// downstream sends none), and a 2025-era outputSchema is generate's
// {"result": S} envelope, without the "$schema" an SDK may put at its root.
func listed(tools, direct []map[string]any) []map[string]any {
	byName := map[string]map[string]any{}
	for _, d := range direct {
		byName[d["name"].(string)] = d
	}
	out := slices.Clone(tools)
	slices.SortFunc(out, func(a, b map[string]any) int { return strings.Compare(a["name"].(string), b["name"].(string)) })
	for i, tool := range out {
		d, ok := byName[tool["name"].(string)]
		if !ok {
			continue
		}
		tool = maps.Clone(tool)
		if a, ok := tool["annotations"].(map[string]any); ok && len(a) == 0 && d["annotations"] == nil {
			delete(tool, "annotations")
		}
		if o, ok := tool["outputSchema"].(map[string]any); ok && o["$schema"] == nil && reflect.DeepEqual(o["required"], []any{"result"}) {
			if do, ok := d["outputSchema"].(map[string]any); ok && do["$schema"] != nil {
				o = maps.Clone(o)
				o["$schema"] = do["$schema"]
				tool["outputSchema"] = o
			}
		}
		out[i] = tool
	}
	return out
}

// TestForwardKeepsClientCredentials: a client's Authorization header (and
// any other header it sends) reaches the proxy but not the downstream,
// which the proxy reaches with its own session (the MCP authorization
// specification forbids token passthrough). The proxy serves streamable
// HTTP with StreamableHTTPHandler; the downstream is sqlite-explorer over
// streamable HTTP behind a reverse proxy that records every header it is
// sent.
func TestForwardKeepsClientCredentials(t *testing.T) {
	ctx := context.Background()
	target, err := url.Parse(testenv.SQLiteExplorerHTTP(t))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var downstreamHeaders []http.Header
	forward := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})
	// Its own transport: with http.DefaultTransport, which every test of the
	// binary shares (httptest.Server.Close closes its idle connections), a
	// forwarded answer was once cut mid-body under load ("ReverseProxy read
	// error during body copy: use of closed network connection").
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	forward.Transport = tr
	recorder := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		downstreamHeaders = append(downstreamHeaders, r.Header.Clone())
		mu.Unlock()
		forward.ServeHTTP(w, r)
	}))
	t.Cleanup(recorder.Close)
	down, err := composition.Connect(ctx, composition.HTTP(recorder.URL+target.Path), pinning.DigestCheck(sqliteexplorer.Pins, composition.DigestFail))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = down.Close() })
	s := server.NewMCPServer("proxy", "0.0.0")
	if err := sqliteexplorer.Forward(s, down); err != nil {
		t.Fatal(err)
	}
	var proxyAuth []string
	handler := composition.StreamableHTTPHandler(server.NewStreamableHTTPServer(s))
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		proxyAuth = append(proxyAuth, r.Header.Get("Authorization"))
		mu.Unlock()
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	const token = "client-secret-token-7f3a"
	client, err := composition.Connect(ctx, composition.HTTP(front.URL+"/mcp"), composition.WithBearerToken(token), composition.WithHeader("X-Client-Tenant", token))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	n, err := sqliteexplorer.NewClient(client).CountRows(ctx, sqliteexplorer.CountRowsArgs{Table: "books"})
	if err != nil || n == 0 {
		t.Fatalf("count_rows through the proxy: %d, %v", n, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Contains(proxyAuth, "Bearer "+token) {
		t.Fatalf("the proxy never saw the client's Authorization header (saw %q)", proxyAuth)
	}
	calls := 0
	for _, h := range downstreamHeaders {
		for k, vs := range h {
			for _, v := range vs {
				if strings.Contains(v, token) {
					t.Errorf("the downstream got the client's credential in %s: %q", k, v)
				}
			}
		}
		calls++
	}
	if calls == 0 {
		t.Fatal("the downstream got no request")
	}
}

// TestForwardSubsetAndOwnFailures: Forward lists only the tools named (an
// unknown name is an error, nothing added); a call the proxy cannot
// complete is a JSON-RPC error in our words that names no executable or
// downstream text: a pinned tool whose live definition changed (DigestFail
// blocks it), and a downstream session that is closed.
func TestForwardSubsetAndOwnFailures(t *testing.T) {
	ctx := context.Background()
	node, args := testenv.TSSDKv2Server(t, "")
	down := connectTSSDKv2(t)
	if err := tssdkv2.Forward(server.NewMCPServer("proxy", "0.0.0"), down, "count", "no_such_tool"); err == nil || !strings.Contains(err.Error(), `"no_such_tool"`) {
		t.Fatalf("Forward with an unknown tool: %v", err)
	}
	s := server.NewMCPServer("proxy", "0.0.0")
	if err := tssdkv2.Forward(s, down, "count", "stats"); err != nil {
		t.Fatal(err)
	}
	client, err := composition.Connect(ctx, composition.InProcess(s))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	tools, err := client.ListToolsRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, raw := range tools {
		var tool struct{ Name string }
		_ = json.Unmarshal(raw, &tool)
		names = append(names, tool.Name)
	}
	if !slices.Equal(names, []string{"count", "stats"}) {
		t.Errorf("listed %q, want count and stats", names)
	}
	if res, err := client.CallResult(ctx, "count", map[string]any{"n": 9}); err != nil || string(res.StructuredContent) != "9" {
		t.Fatalf("count: %v, %v", res, err)
	}

	// A downstream whose "stats" changed since the bundle (a pin that the
	// live tool does not match): blocked under DigestFail.
	pinned, err := composition.Connect(ctx, composition.Stdio(node, args...), pinning.DigestCheck(composition.Pins{ProtocolVersion: "2026-07-28",
		Tools: []*bindimpl.Tool{{Name: "stats", Digest: "sha256:" + strings.Repeat("0", 64)}}}, composition.DigestFail))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pinned.Close() })
	ps := server.NewMCPServer("proxy", "0.0.0")
	if err := tssdkv2.Forward(ps, pinned, "stats"); err != nil {
		t.Fatal(err)
	}
	pclient, err := composition.Connect(ctx, composition.InProcess(ps))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pclient.Close() })
	_, err = pclient.CallResult(ctx, "stats", nil)
	if err == nil || !strings.Contains(err.Error(), `composition: forwarding the tool "stats": it changed on the downstream server since the bundle was exported, so it is not called`) ||
		strings.Contains(err.Error(), node) || strings.Contains(err.Error(), "ts-sdk-v2-server") {
		t.Errorf("a call of a blocked tool: %v", err)
	}

	_ = down.Close()
	_, err = client.CallResult(ctx, "count", nil)
	if err == nil || !strings.Contains(err.Error(), `composition: forwarding the tool "count": the session with the downstream server is closed`) ||
		strings.Contains(err.Error(), node) || strings.Contains(err.Error(), "ts-sdk-v2-server") {
		t.Errorf("a call after the downstream was lost: %v", err)
	}
}

// TestForwardJSONRPCErrorOverHTTP: served with StreamableHTTPHandler, a
// downstream's JSON-RPC error reaches the client with the downstream's code
// and message (mcp-go answers a handler's error with -32603; the held
// message's placeholder lets the writer put the code back), in sessions of
// both eras; a tool result in the same session is unaffected.
func TestForwardJSONRPCErrorOverHTTP(t *testing.T) {
	ctx := context.Background()
	down := connectTSSDKv2(t)
	s := server.NewMCPServer("proxy", "0.0.0")
	if err := tssdkv2.Forward(s, down); err != nil {
		t.Fatal(err)
	}
	front := httptest.NewServer(composition.StreamableHTTPHandler(server.NewStreamableHTTPServer(s)))
	t.Cleanup(front.Close)
	for _, version := range []string{"2025-11-25", composition.ModernProtocolVersion} {
		t.Run(version, func(t *testing.T) {
			client, err := composition.Connect(ctx, composition.HTTP(front.URL+"/mcp"), composition.WithProtocolVersion(version))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = client.Close() })
			if client.ProtocolVersion() != version {
				t.Fatalf("negotiated %s, want %s", client.ProtocolVersion(), version)
			}
			_, err = client.CallResult(ctx, "fail", nil)
			re, ok := errors.AsType[*mcpconn.RPCError](err)
			if !ok || re.Code != -32001 || re.Message != "backend unavailable: fetch failed" {
				t.Errorf("fail through the proxy: %v (JSON-RPC error %+v)", err, re)
			}
			want := "4"
			if version < composition.ModernProtocolVersion {
				want = `{"result":4}`
			}
			if res, err := client.CallResult(ctx, "count", map[string]any{"n": 4}); err != nil || string(res.StructuredContent) != want {
				t.Errorf("count through the proxy: %v, %v", res, err)
			}
		})
	}
}

// connectTSSDKv2 connects to testservers/ts-sdk-v2-server.mjs over stdio
// with tssdkv2's Pins through pinning.DigestCheck (DigestFail), closed in t.Cleanup.
func connectTSSDKv2(t *testing.T) *composition.Session {
	t.Helper()
	node, args := testenv.TSSDKv2Server(t, "")
	down, err := composition.Connect(context.Background(), composition.Stdio(node, args...), pinning.DigestCheck(tssdkv2.Pins, composition.DigestFail))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = down.Close() })
	return down
}
