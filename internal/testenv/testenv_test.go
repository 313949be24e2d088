package testenv_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpbind/mcpbind/internal/testenv"
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
