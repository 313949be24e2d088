package composition

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// serverEverything returns the command line of @modelcontextprotocol/server-everything
// over stdio, installed by `npm ci --prefix testservers`.
func serverEverything(t *testing.T) (string, []string) {
	t.Helper()
	const hint = "run npm ci --prefix testservers"
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not installed (%v): install Node.js and %s", err, hint)
	}
	script := filepath.Join(moduleRoot(t), "testservers", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("@modelcontextprotocol/server-everything is missing (%v): %s", err, hint)
	}
	return node, []string{script, "stdio"}
}

// TestServerEverythingRawTools checks ListToolsRaw against a reference
// capture: the tools/list pages read straight off the server's stdout.
func TestServerEverythingRawTools(t *testing.T) {
	t.Parallel()
	node, args := serverEverything(t)
	ctx, cancel := context.WithTimeout(t.Context(), 40*time.Second)
	defer cancel()

	s, err := Connect(ctx, Stdio(node, args...))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var info struct{ Name string }
	if err := json.Unmarshal(s.ServerInfo(), &info); err != nil || info.Name == "" {
		t.Errorf("ServerInfo() = %s", s.ServerInfo())
	}
	got, err := s.ListToolsRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}

	want := captureToolsList(ctx, t, node, args, s.ProtocolVersion())
	t.Logf("%s at %s: %d tools", info.Name, s.ProtocolVersion(), len(got))
	if len(got) != len(want) || len(got) == 0 {
		t.Fatalf("ListToolsRaw gave %d tools, the raw capture %d", len(got), len(want))
	}
	for i := range want {
		var g, w any
		if err := json.Unmarshal(got[i], &g); err != nil {
			t.Fatalf("tool %d: %v", i, err)
		}
		if err := json.Unmarshal(want[i], &w); err != nil {
			t.Fatalf("captured tool %d: %v", i, err)
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("tool %d differs:\n got  %s\n want %s", i, got[i], want[i])
		} else if string(got[i]) != string(want[i]) {
			t.Errorf("tool %d: same JSON value, different bytes:\n got  %s\n want %s", i, got[i], want[i])
		}
	}
}

// captureToolsList runs the server and speaks just enough JSON-RPC over its
// stdio to list its tools as a legacy client at version (initialize,
// notifications/initialized, tools/list following nextCursor), with the same
// empty client capabilities mcp-go declares, and returns each tool's bytes.
func captureToolsList(ctx context.Context, t *testing.T, command string, args []string, version string) []json.RawMessage {
	t.Helper()
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
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()

	lines := bufio.NewReaderSize(stdout, 1<<20)
	send := func(msg string) {
		if _, err := io.WriteString(stdin, msg+"\n"); err != nil {
			t.Fatalf("writing %s: %v", msg, err)
		}
	}
	// await reads messages until the response with the given id.
	await := func(id int) json.RawMessage {
		for {
			line, err := lines.ReadBytes('\n')
			if err != nil {
				t.Fatalf("reading the answer to request %d: %v", id, err)
			}
			var msg struct {
				ID     *int            `json:"id"`
				Method string          `json:"method"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal(line, &msg); err != nil {
				t.Fatalf("server wrote %q: %v", line, err)
			}
			if msg.Method != "" || msg.ID == nil || *msg.ID != id {
				continue // a notification or a request from the server
			}
			if msg.Error != nil {
				t.Fatalf("request %d failed: %s", id, msg.Error)
			}
			return msg.Result
		}
	}

	send(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"composition-capture","version":"0"}}}`, version))
	await(1)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	var tools []json.RawMessage
	cursor := ""
	for id := 2; id < 100; id++ {
		params := `{}`
		if cursor != "" {
			params = fmt.Sprintf(`{"cursor":%q}`, cursor)
		}
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":%s}`, id, params))
		var page struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(await(id), &page); err != nil {
			t.Fatal(err)
		}
		tools = append(tools, page.Tools...)
		if page.NextCursor == "" {
			return tools
		}
		cursor = page.NextCursor
	}
	t.Fatal("tools/list did not end")
	return nil
}
