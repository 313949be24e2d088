package testenv_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpbind/mcpbind/testservers/testenv"
)

func TestModuleRoot(t *testing.T) {
	root := testenv.ModuleRoot(t)
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "module github.com/mcpbind/mcpbind\n"; string(data[:len(want)]) != want {
		t.Errorf("%s/go.mod starts %q, want %q", root, data[:len(want)], want)
	}
}

// connect initializes an mcp-go client (default protocol version) and
// checks that the server answers.
func connect(t *testing.T, c *client.Client) *mcp.InitializeResult {
	t.Helper()
	t.Cleanup(func() { c.Close() })
	if err := c.Start(t.Context()); err != nil {
		t.Fatalf("start: %v", err)
	}
	init, err := c.Initialize(t.Context(), mcp.InitializeRequest{Params: mcp.InitializeParams{
		ClientInfo: mcp.Implementation{Name: "testenv-test", Version: "1"},
	}})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if err := c.Ping(t.Context()); err != nil {
		t.Fatalf("ping: %v", err)
	}
	return init
}

func TestSQLiteExplorerStdio(t *testing.T) {
	command, args := testenv.SQLiteExplorerStdio(t)
	init := connect(t, client.NewClient(transport.NewStdio(command, nil, args...)))
	if init.ServerInfo.Name != "sqlite-explorer" {
		t.Errorf("serverInfo.name = %q", init.ServerInfo.Name)
	}
}

func TestSQLiteExplorerHTTP(t *testing.T) {
	url := testenv.SQLiteExplorerHTTP(t)
	tr, err := transport.NewStreamableHTTP(url)
	if err != nil {
		t.Fatal(err)
	}
	init := connect(t, client.NewClient(tr))
	if init.ServerInfo.Name != "sqlite-explorer" {
		t.Errorf("serverInfo.name = %q", init.ServerInfo.Name)
	}
}

func TestServerEverything(t *testing.T) {
	command, args := testenv.ServerEverything(t)
	init := connect(t, client.NewClient(transport.NewStdio(command, nil, args...)))
	if init.ServerInfo.Name == "" || init.Capabilities.Tools == nil {
		t.Errorf("server-everything: serverInfo %+v, tools capability %v", init.ServerInfo, init.Capabilities.Tools)
	}
}

func TestServerEverythingHTTP(t *testing.T) {
	t.Parallel()
	url := testenv.ServerEverythingHTTP(t, "sse")
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/sse") {
		t.Fatalf("URL = %q, want http://127.0.0.1:PORT/sse", url)
	}
	tr, err := transport.NewSSE(url)
	if err != nil {
		t.Fatal(err)
	}
	init := connect(t, client.NewClient(tr, client.WithLegacyProtocolOnly()))
	if init.ServerInfo.Name == "" {
		t.Errorf("server-everything over SSE: serverInfo %+v", init.ServerInfo)
	}
}

func TestTSSDKv2Server(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"", "legacy"} {
		command, args := testenv.TSSDKv2Server(t, mode)
		init := connect(t, client.NewClient(transport.NewStdio(command, nil, args...)))
		if init.ServerInfo.Name != "mcpbind-ts-sdk-v2" {
			t.Errorf("mode %q: serverInfo %+v", mode, init.ServerInfo)
		}
		modern := mcp.IsModernProtocol(init.ProtocolVersion)
		if modern != (mode == "") {
			t.Errorf("mode %q: protocol version %s", mode, init.ProtocolVersion)
		}
	}
}
