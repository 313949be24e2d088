// Command testserver is the MCP server that composition's tests talk to, over
// stdio (the default), Streamable HTTP (-http ADDR, which prints
// "URL http://HOST:PORT/mcp" on stdout once it listens) or the legacy
// HTTP+SSE transport of 2024-11-05 (-sse ADDR, which prints
// "URL http://HOST:PORT/sse"). It is built on mcp-go's server, which never
// wraps results; the tool nullable_row imitates the TypeScript SDK v2
// instead, wrapping its value as {"result": v} for clients before 2026-07-28.
//
// -eras restricts the protocol eras it serves: "legacy" (the initialize
// handshake only: server/discover is refused, and over HTTP only the versions
// before 2026-07-28 are advertised), "modern" (2026-07-28 only: initialize is
// refused) or "both" (the default).
//
// -on-discover injects a stdio fault for a server that predates
// server/discover: "exit" exits with status 3 when the request arrives,
// "ignore" drops it without an answer.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func main() {
	httpAddr := flag.String("http", "", "serve Streamable HTTP on this address instead of stdio")
	pageSize := flag.Int("page", 4, "tools per tools/list page")
	loopCursor := flag.Bool("loop-cursor", false, "answer every tools/list page with the first page's nextCursor")
	header := flag.String("require-header", "", "HTTP only: answer 401 unless the request has this header, as NAME:VALUE")
	sseAddr := flag.String("sse", "", "serve the legacy HTTP+SSE transport on this address instead of stdio")
	eras := flag.String("eras", "both", "protocol eras served: legacy, modern or both")
	onDiscover := flag.String("on-discover", "", "stdio fault on server/discover: exit or ignore")
	flag.Parse()

	fmt.Fprintln(os.Stderr, "testserver: starting")
	if *eras != "legacy" && *eras != "modern" && *eras != "both" {
		log.Fatalf("-eras %q: want legacy, modern or both", *eras)
	}
	s := newServer(*pageSize, *loopCursor, *eras)
	if *sseAddr != "" {
		ln, err := net.Listen("tcp", *sseAddr)
		if err != nil {
			log.Fatal(err)
		}
		sse := server.NewSSEServer(s)
		fmt.Printf("URL http://%s/sse\n", ln.Addr())
		log.Fatal(http.Serve(ln, sse))
	}
	if *httpAddr == "" {
		serveStdio(s, *onDiscover)
		return
	}
	ln, err := net.Listen("tcp", *httpAddr)
	if err != nil {
		log.Fatal(err)
	}
	var httpOpts []server.StreamableHTTPOption
	switch *eras {
	case "legacy":
		httpOpts = append(httpOpts, server.WithStreamableHTTPProtocolVersions(mcp.LegacyProtocolVersions()...))
	case "modern":
		httpOpts = append(httpOpts, server.WithStreamableHTTPProtocolVersions(mcp.ProtocolVersion20260728))
	}
	var h http.Handler = server.NewStreamableHTTPServer(s, httpOpts...)
	if *header != "" {
		name, value, _ := strings.Cut(*header, ":")
		next := h
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get(name) != value {
				http.Error(w, "missing or wrong "+name, http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	fmt.Printf("URL http://%s/mcp\n", ln.Addr())
	log.Fatal(http.Serve(ln, mux))
}

// serveStdio serves s over stdio, passing stdin through the fault that
// onDiscover names.
func serveStdio(s *server.MCPServer, onDiscover string) {
	if onDiscover == "" {
		if err := server.ServeStdio(s); err != nil {
			log.Fatal(err)
		}
		return
	}
	if onDiscover != "exit" && onDiscover != "ignore" {
		log.Fatalf("-on-discover %q: want exit or ignore", onDiscover)
	}
	pr, pw := io.Pipe()
	go func() {
		in := bufio.NewReader(os.Stdin)
		for {
			line, err := in.ReadBytes('\n')
			if len(line) > 0 {
				var msg struct {
					Method string `json:"method"`
				}
				if json.Unmarshal(line, &msg) == nil && msg.Method == string(mcp.MethodServerDiscover) {
					if onDiscover == "exit" {
						fmt.Fprintln(os.Stderr, "testserver: unknown method server/discover; exiting")
						os.Exit(3)
					}
					fmt.Fprintln(os.Stderr, "testserver: ignoring server/discover")
					continue
				}
				if _, werr := pw.Write(line); werr != nil {
					return
				}
			}
			if err != nil {
				_ = pw.CloseWithError(err)
				return
			}
		}
	}()
	if err := server.NewStdioServer(s).Listen(context.Background(), pr, os.Stdout); err != nil && !errors.Is(err, io.EOF) {
		log.Fatal(err)
	}
}

// eraHook refuses the requests of the era the server does not serve.
func eraHook(eras string) server.OnRequestInitializationFunc {
	return func(_ context.Context, _ any, message any) error {
		raw, _ := message.(json.RawMessage)
		var msg struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(raw, &msg)
		switch {
		case eras == "legacy" && msg.Method == string(mcp.MethodServerDiscover):
			return errors.New("method not found: server/discover (this server speaks only the initialize handshake)")
		case eras == "modern" && msg.Method == string(mcp.MethodInitialize):
			return errors.New("initialize is not supported: this server speaks only protocol version 2026-07-28")
		}
		return nil
	}
}

func newServer(pageSize int, loopCursor bool, eras string) *server.MCPServer {
	opts := []server.ServerOption{
		server.WithToolCapabilities(true),
		server.WithInstructions("Test server for mcpbind's composition package."),
		server.WithPaginationLimit(pageSize),
	}
	// bad_header has an x-mcp-header annotation on an object property, which
	// SEP-2243 forbids: AddTool rejects it, so it is slipped into the first
	// tools/list page (in name order) to show what a client does with it.
	badHeader := mcp.Tool{
		Name:           "bad_header",
		Description:    "Has an x-mcp-header annotation on an object property.",
		RawInputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"object","x-mcp-header":"Region"}}}`),
	}
	var mu sync.Mutex
	first := mcp.Cursor("")
	hooks := &server.Hooks{}
	hooks.AddAfterListTools(func(_ context.Context, _ any, req *mcp.ListToolsRequest, res *mcp.ListToolsResult) {
		if req.Params.Cursor == "" {
			res.Tools = append(res.Tools, badHeader)
			sort.Slice(res.Tools, func(i, j int) bool { return res.Tools[i].Name < res.Tools[j].Name })
		}
		if loopCursor {
			mu.Lock()
			defer mu.Unlock()
			if first == "" {
				first = res.NextCursor
			}
			if res.NextCursor != "" {
				res.NextCursor = first
			}
		}
	})
	if eras != "both" {
		hooks.AddOnRequestInitialization(eraHook(eras))
	}
	opts = append(opts, server.WithHooks(hooks))
	s := server.NewMCPServer("mcpbind-testserver", "1.0.0", opts...)

	noArgs := json.RawMessage(`{"type":"object","properties":{}}`)
	tool := func(name, desc string, input, output string) mcp.Tool {
		t := mcp.NewTool(name, mcp.WithDescription(desc))
		t.InputSchema = mcp.ToolInputSchema{}
		t.RawInputSchema = noArgs
		if input != "" {
			t.RawInputSchema = json.RawMessage(input)
		}
		if output != "" {
			t.RawOutputSchema = json.RawMessage(output)
		}
		return t
	}
	structured := func(v any) (*mcp.CallToolResult, error) {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{
			Content:              []mcp.Content{mcp.NewTextContent(string(b))},
			RawStructuredContent: b,
		}, nil
	}
	type Row struct {
		ID   int64  `json:"id"`
		Name string `json:"name"`
	}

	s.AddTool(tool("object", "Returns a plain object.", "",
		`{"type":"object","properties":{"name":{"type":"string"},"count":{"type":"integer"},"id":{"type":"integer"}}}`),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return structured(map[string]any{"name": "widget", "count": 3, "id": int64(9007199254740993)})
		})
	s.AddTool(tool("integer", "Returns an integer.", "", `{"type":"integer"}`),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return structured(42) })
	s.AddTool(tool("array", "Returns an array of strings.", "", `{"type":"array","items":{"type":"string"}}`),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return structured([]string{"a", "b", "c"})
		})
	s.AddTool(tool("null_value", "Returns null.", "", `{"type":"null"}`),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return structured(nil)
		})
	s.AddTool(tool("big_int", "Returns 2^53+1.", "", `{"type":"integer","format":"int64"}`),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return structured(int64(9007199254740993))
		})
	s.AddTool(tool("always_wrapped", "Returns an integer wrapped as {\"result\": v} in every version, like FastMCP.", "",
		`{"type":"object","properties":{"result":{"type":"integer"}},"required":["result"],"x-fastmcp-wrap-result":true}`),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return structured(map[string]any{"result": 7})
		})
	s.AddTool(tool("nullable_row", "Returns a row or null; wraps it like the TypeScript SDK v2 for clients before 2026-07-28.",
		`{"type":"object","properties":{"missing":{"type":"boolean"}}}`,
		`{"type":["object","null"],"properties":{"id":{"type":"integer"},"name":{"type":"string"}}}`),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var v any = Row{ID: 9007199254740993, Name: "row"}
			if missing, _ := req.GetArguments()["missing"].(bool); missing {
				v = nil
			}
			if server.RequestProtocolVersion(ctx) < mcp.ProtocolVersion20260728 {
				v = map[string]any{"result": v}
			}
			return structured(v)
		})
	s.AddTool(tool("fails", "Always answers isError.", "", ""),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError("kaboom: the widget is broken"), nil
		})
	s.AddTool(tool("text_json", "Returns JSON only in its second text block.", "", ""),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				mcp.NewTextContent("Here is the data:"),
				mcp.NewTextContent(`{"a":1,"big":9007199254740993}`),
			}}, nil
		})
	s.AddTool(tool("text_plain", "Returns plain text.", "", ""),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("just words"), nil
		})
	s.AddTool(tool("sleep", "Sleeps for ms milliseconds, or until cancelled; writes \"testserver: sleeping\" to stderr when it starts.",
		`{"type":"object","properties":{"ms":{"type":"integer"}}}`, ""),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ms, _ := req.GetArguments()["ms"].(float64)
			// The signal that the call has reached the server, for tests
			// that stop it during a call.
			fmt.Fprintln(os.Stderr, "testserver: sleeping")
			select {
			case <-time.After(time.Duration(ms) * time.Millisecond):
				return mcp.NewToolResultText("slept"), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		})
	s.AddTool(tool("echo", "Returns its arguments.", `{"type":"object","additionalProperties":true}`, ""),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			raw, _ := req.GetRawArguments().(json.RawMessage)
			if raw == nil {
				raw = json.RawMessage(`null`)
			}
			return &mcp.CallToolResult{
				Content:              []mcp.Content{mcp.NewTextContent(string(raw))},
				RawStructuredContent: raw,
			}, nil
		})
	s.AddTool(tool("exit", "Writes to stderr and exits with status 5 without answering.", "", ""),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, "testserver: exiting on request")
			os.Exit(5)
			return nil, nil
		})
	s.AddTool(tool("getenv", "Returns an environment variable.",
		`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`, ""),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			name, _ := req.GetArguments()["name"].(string)
			return mcp.NewToolResultText(os.Getenv(name)), nil
		})
	s.AddTool(tool("cwd", "Returns the working directory.", "", ""),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			dir, err := os.Getwd()
			if err != nil {
				return nil, err
			}
			return mcp.NewToolResultText(dir), nil
		})
	s.AddTool(tool("bool_schema", "Its inputSchema is the boolean schema true.", `true`, ""),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("ok"), nil
		})
	s.AddTool(tool("type_array_schema", "Its inputSchema root has a type array.",
		`{"type":["object","null"],"properties":{"q":{"type":"string","pattern":"^[a-z]+$"}},"$defs":{"unused":{"oneOf":[{"type":"string"},{"type":"integer"}]}}}`,
		`true`),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return structured(map[string]any{"k": "v"})
		})
	return s
}
