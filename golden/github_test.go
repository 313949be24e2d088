package golden

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbind/mcpbind/internal/testenv"
)

// githubTimeout bounds each subtest's calls to github-mcp-server, so that a
// hung server fails the test instead of stalling the suite.
const githubTimeout = time.Minute

// TestGitHubMCPServer runs the real github-mcp-server v1.9.0 (built from the
// module proxy in testservers/github-mcp-server, a server written on the
// official Go SDK) over stdio, offline (see testenv.GitHubMCPServer), with
// every toolset, the set golden/github/bundle.json was exported with. One
// build serves every subtest.
func TestGitHubMCPServer(t *testing.T) {
	command, args, env := testenv.GitHubMCPServer(t, "all")

	t.Run("export", func(t *testing.T) { githubExport(t, command, args, env) })
	t.Run("gosdk-raw", func(t *testing.T) { githubRaw(t, command, args, env) })
}

// githubExport exports the server with the mcpbind binary at both protocol
// eras and compares with golden/github/bundle.json: at 2026-07-28 byte for
// byte; at 2025-06-18 the bundle differs only in its protocolVersion line,
// since the server declares no outputSchema (nothing era-dependent).
func githubExport(t *testing.T, command string, args, env []string) {
	want, err := os.ReadFile(filepath.Join("github", "bundle.json"))
	if err != nil {
		t.Fatal(err)
	}
	mcpbind := testenv.Build(t, "./cmd/mcpbind")
	flags := []string{"export", "-q"}
	for _, kv := range env {
		if strings.HasPrefix(kv, "GITHUB_") || strings.Contains(strings.ToUpper(kv), "PROXY=") {
			flags = append(flags, "--env", kv)
		}
	}
	for _, version := range []string{"2026-07-28", "2025-06-18"} {
		t.Run(version, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "bundle.json")
			cmd := exec.Command(mcpbind, append(append(flags, "-o", out, "--protocol-version", version, "--", command), args...)...)
			if msg, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("mcpbind export: %v\n%s", err, msg)
			}
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			const recorded = `"protocolVersion": "2026-07-28",`
			if line := `"protocolVersion": "` + version + `",`; line != recorded {
				if n := bytes.Count(got, []byte(line)); n != 1 {
					t.Fatalf("the export at %s holds %q %d times, want once", version, line, n)
				}
				got = bytes.Replace(got, []byte(line), []byte(recorded), 1)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("golden/github/bundle.json is not what github-mcp-server exports at %s (protocolVersion aside):\n%s",
					version, firstDiff(want, got))
			}
		})
	}
}

// githubRaw is the smoke test under the typed ones: a plain go-sdk client
// (mcp.NewClient over mcp.CommandTransport) lists the tools the bundle
// records, gets the server's own tool error for arguments it refuses, and a
// JSON-RPC error -32602 for a tool it does not have.
func githubRaw(t *testing.T, command string, args, env []string) {
	var bundle struct {
		Servers []struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		} `json:"servers"`
	}
	raw, err := os.ReadFile(filepath.Join("github", "bundle.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &bundle); err != nil || len(bundle.Servers) != 1 {
		t.Fatalf("golden/github/bundle.json: %v (%d servers)", err, len(bundle.Servers))
	}
	var want []string
	for _, tool := range bundle.Servers[0].Tools {
		want = append(want, tool.Name)
	}

	for _, version := range []string{"2025-06-18", ""} {
		t.Run("version="+version, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), githubTimeout)
			defer cancel()
			cs := githubGoSDKSession(ctx, t, command, args, env, version)

			var got []string
			for tool, err := range cs.Tools(ctx, nil) {
				if err != nil {
					t.Fatalf("tools/list: %v", err)
				}
				got = append(got, tool.Name)
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("tools/list: %d tools %v\nwant the bundle's %d: %v", len(got), got, len(want), want)
			}

			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_label", Arguments: json.RawMessage(`{}`)})
			if err != nil {
				t.Fatalf("get_label {}: %v", err)
			}
			if !res.IsError || len(res.Content) != 1 {
				t.Fatalf("get_label {}: isError %v, %d content blocks; want the server's tool error", res.IsError, len(res.Content))
			}
			if text, ok := res.Content[0].(*mcp.TextContent); !ok || text.Text != "missing required parameter: owner" {
				t.Errorf("get_label {}: content %#v, want the text %q", res.Content[0], "missing required parameter: owner")
			}

			_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "no_such_tool"})
			var wire *jsonrpc.Error
			if !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInvalidParams {
				t.Errorf("no_such_tool: %v, want a JSON-RPC error %d", err, jsonrpc.CodeInvalidParams)
			}
		})
	}
}

// githubGoSDKSession starts the server with a go-sdk client over
// mcp.CommandTransport, asking for protocol version ("" = go-sdk's newest),
// and closes the session (ending the process) in t.Cleanup.
func githubGoSDKSession(ctx context.Context, t *testing.T, command string, args, env []string, version string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(command, args...)
	cmd.Env = env
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpbind-golden-test", Version: "0"}, nil)
	var opts *mcp.ClientSessionOptions
	if version != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, opts)
	if err != nil {
		t.Fatalf("go-sdk Connect to github-mcp-server: %v", err)
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Logf("closing the go-sdk session: %v", err)
		}
	})
	if version != "" {
		if got := cs.InitializeResult().ProtocolVersion; got != version {
			t.Fatalf("negotiated protocol version %q, want %q", got, version)
		}
	}
	return cs
}
