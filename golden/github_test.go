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
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/gosdk"
	"github.com/mcpbind/mcpbind/composition/pinning"
	"github.com/mcpbind/mcpbind/golden/github/githubmcpserver"
	"github.com/mcpbind/mcpbind/testservers/testenv"
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
	for _, via := range githubSessions() {
		t.Run("typed/"+via.name, func(t *testing.T) { githubTyped(t, via, command, args, env) })
	}
}

// githubSession is one way of getting a *composition.Session to the server:
// start starts the process as command args (environment env) and returns
// the session, closed in t.Cleanup, with opts applied; sent reports whether
// any tools/call request went to the server since the session started
// (nil when this way cannot observe it).
type githubSession struct {
	name string
	// unwatched: a go-sdk session not connected over gosdk.Transport, which
	// cannot see notifications/tools/list_changed and warns so when pins
	// are checked.
	unwatched bool
	start     func(ctx context.Context, t *testing.T, command string, args, env []string, opts ...composition.Option) (s *composition.Session, sent func() bool)
}

// githubSessions are the ways the typed test reaches the server: mcpbind's
// own stdio transport (composition.Connect, on mcp-go), and a go-sdk client
// session (mcp.CommandTransport) made a Session by gosdk.NewSession: wrapped
// in gosdk.Transport at go-sdk's newest protocol version and at 2025-06-18,
// and bare (go-sdk's decoded values). The go-sdk ones observe the messages
// written to the server through mcp.LoggingTransport.
func githubSessions() []githubSession {
	gosdkSession := func(wrap bool, version string) func(ctx context.Context, t *testing.T, command string, args, env []string, opts ...composition.Option) (*composition.Session, func() bool) {
		return func(ctx context.Context, t *testing.T, command string, args, env []string, opts ...composition.Option) (*composition.Session, func() bool) {
			t.Helper()
			cmd := exec.Command(command, args...)
			cmd.Env = env
			written := &lockedLog{}
			var transport mcp.Transport = &mcp.LoggingTransport{Transport: &mcp.CommandTransport{Command: cmd}, Writer: written}
			if wrap {
				transport = gosdk.Transport(transport)
			}
			client := mcp.NewClient(&mcp.Implementation{Name: "mcpbind-golden-test", Version: "0"}, nil)
			cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatalf("go-sdk Connect to github-mcp-server: %v", err)
			}
			s, err := gosdk.NewSession(ctx, cs, opts...)
			if err != nil {
				_ = cs.Close()
				t.Fatalf("gosdk.NewSession: %v", err)
			}
			t.Cleanup(func() { _ = s.Close() })
			if version != "" && s.ProtocolVersion() != version {
				t.Fatalf("session protocol version %q, want %q", s.ProtocolVersion(), version)
			}
			return s, func() bool { return written.wrote(`"method":"tools/call"`) }
		}
	}
	return []githubSession{{
		name: "connect",
		start: func(ctx context.Context, t *testing.T, command string, args, env []string, opts ...composition.Option) (*composition.Session, func() bool) {
			t.Helper()
			s, err := composition.Connect(ctx, composition.Stdio(command, args...),
				append([]composition.Option{composition.WithEnv(replacing(env)...)}, opts...)...)
			if err != nil {
				t.Fatalf("composition.Connect to github-mcp-server: %v", err)
			}
			t.Cleanup(func() { _ = s.Close() })
			return s, nil
		},
	}, {
		name:  "gosdk",
		start: gosdkSession(true, ""),
	}, {
		name:  "gosdk-2025-06-18",
		start: gosdkSession(true, "2025-06-18"),
	}, {
		name:      "gosdk-unwrapped",
		unwatched: true,
		start:     gosdkSession(false, ""),
	}}
}

// replacing turns env, a process's whole environment, into WithEnv's
// additions to this process's: env plus KEY= for each variable of this
// process that env leaves out (github-mcp-server, like viper, treats an
// empty variable as unset).
func replacing(env []string) []string {
	keep := map[string]bool{}
	for _, kv := range env {
		key, _, _ := strings.Cut(kv, "=")
		keep[key] = true
	}
	out := slices.Clone(env)
	for _, kv := range os.Environ() {
		if key, _, _ := strings.Cut(kv, "="); !keep[key] {
			out = append(out, key+"=")
		}
	}
	return out
}

// lockedLog is the Writer of an mcp.LoggingTransport: it keeps the lines
// go-sdk logs ("write: MESSAGE" for each message sent, "read: MESSAGE" for
// each one received), safe for the test to read while go-sdk writes.
type lockedLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// wrote reports whether a message sent to the server contains s.
func (l *lockedLog) wrote(s string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range strings.Split(l.buf.String(), "\n") {
		if msg, ok := strings.CutPrefix(line, "write: "); ok && strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// githubTyped calls the server through the generated client
// golden/github/githubmcpserver, over a session from via:
//   - arguments the server refuses give a *composition.ToolError whose Text
//     is the server's text as sent and whose Error() escapes its control
//     and bidirectional characters;
//   - get_me, which needs the GitHub API (unreachable here), is a tool error;
//   - the recorded bundle's pins match the server run with every toolset
//     (DigestFail: no warning, calls go through); run with its default
//     toolsets the pins report what differs (DigestWarn: warnings) and, under
//     DigestFail, block the changed get_label with a *ToolChangedError;
//   - under WithArgsValidation a call whose arguments break the tool's
//     inputSchema is refused before it is sent.
func githubTyped(t *testing.T, via githubSession, command string, args, env []string) {
	// evil is a method name no enum allows, holding an ANSI escape and a
	// right-to-left override: the server echoes it in its error text.
	const evil = "\x1b[31mno_such_method\u202e"
	actionsGet := githubmcpserver.ActionsGetArgs{Method: evil, Owner: "o", Repo: "r", ResourceID: "1"}

	t.Run("tool-errors", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), githubTimeout)
		defer cancel()
		s, _ := via.start(ctx, t, command, args, env)
		t.Logf("protocol version %s", s.ProtocolVersion())
		c := githubmcpserver.NewClient(s)

		_, err := c.ActionsGet(ctx, actionsGet)
		var te *composition.ToolError
		if !errors.As(err, &te) {
			t.Fatalf("ActionsGet with method %q: %v (%T), want a *composition.ToolError", evil, err, err)
		}
		if want := "unknown method: " + evil; te.Tool != "actions_get" || te.Text != want {
			t.Errorf("ToolError{Tool: %q, Text: %q}, want actions_get and the server's text %q", te.Tool, te.Text, want)
		}
		if msg := err.Error(); strings.ContainsAny(msg, "\x1b\u202e") ||
			!strings.Contains(msg, `\u001b[31mno_such_method\u202e`) {
			t.Errorf("ToolError.Error() = %q: want the server's escape and override characters escaped", msg)
		}

		_, err = c.GetLabel(ctx, githubmcpserver.GetLabelArgs{Name: "bug", Repo: "r"})
		if !errors.As(err, &te) || te.Text != "missing required parameter: owner" {
			t.Errorf("GetLabel without owner: %v, want the tool error %q", err, "missing required parameter: owner")
		}

		_, err = c.GetMe(ctx)
		if !errors.As(err, &te) || te.Tool != "get_me" || !strings.Contains(te.Text, "Forbidden") {
			t.Errorf("GetMe: %v, want a tool error from get_me saying the (test's) proxy refused the GitHub API (Forbidden)", err)
		}
	})

	t.Run("pins-match", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), githubTimeout)
		defer cancel()
		s, _ := via.start(ctx, t, command, args, env, pinning.DigestCheck(githubmcpserver.Pins, composition.DigestFail))
		w := s.Warnings()
		if via.unwatched {
			// The one warning such a session gives: nothing to do with
			// the pins, which match.
			const unwatched = "was not connected over gosdk.Transport"
			if len(w) != 1 || !strings.Contains(w[0], unwatched) {
				t.Errorf("DigestFail against the server with every toolset: warnings %q, want only the one saying the session %s", w, unwatched)
			}
			w = nil
		}
		if len(w) != 0 {
			t.Errorf("DigestFail against the server with every toolset: warnings %q, want none", w)
		}
		_, err := githubmcpserver.NewClient(s).GetLabel(ctx, githubmcpserver.GetLabelArgs{Name: "bug", Repo: "r"})
		var te *composition.ToolError
		if !errors.As(err, &te) {
			t.Errorf("GetLabel under DigestFail: %v, want the server's tool error (the call went through)", err)
		}
	})

	// The server's default toolsets list 44 of the bundle's 85 tools, and
	// get_label among them with other icons.
	defaults := slices.DeleteFunc(slices.Clone(args), func(a string) bool { return strings.HasPrefix(a, "--toolsets=") })

	t.Run("pins-warn-default-toolsets", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), githubTimeout)
		defer cancel()
		s, _ := via.start(ctx, t, command, defaults, env, pinning.DigestCheck(githubmcpserver.Pins, composition.DigestWarn))
		warnings := s.Warnings()
		var removed, changed []string
		for _, w := range warnings {
			switch {
			case strings.Contains(w, "was removed"):
				removed = append(removed, w)
			case strings.Contains(w, "changed since the bundle was exported"):
				changed = append(changed, w)
			}
		}
		t.Logf("DigestWarn against the default toolsets: %d warnings, %d tools removed, %d changed: %q", len(warnings), len(removed), len(changed), changed)
		if len(removed) != 41 || len(changed) != 1 || !strings.Contains(changed[0], `tool "get_label"`) {
			t.Errorf("DigestWarn against the default toolsets: %d removed, changed %q; want 41 removed and get_label changed:\n%s",
				len(removed), changed, strings.Join(warnings, "\n"))
		}
		_, err := githubmcpserver.NewClient(s).GetLabel(ctx, githubmcpserver.GetLabelArgs{Name: "bug", Repo: "r"})
		var te *composition.ToolError
		if !errors.As(err, &te) {
			t.Errorf("GetLabel under DigestWarn: %v, want the server's tool error (warn lets the call go)", err)
		}
	})

	t.Run("pins-fail-default-toolsets", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), githubTimeout)
		defer cancel()
		s, _ := via.start(ctx, t, command, defaults, env, pinning.DigestCheck(githubmcpserver.Pins, composition.DigestFail))
		c := githubmcpserver.NewClient(s)
		_, err := c.GetLabel(ctx, githubmcpserver.GetLabelArgs{Name: "bug", Repo: "r"})
		var changed *composition.ToolChangedError
		if !errors.As(err, &changed) || changed.Tool != "get_label" || changed.Removed {
			t.Errorf("GetLabel under DigestFail: %v, want a *composition.ToolChangedError for get_label", err)
		}
		_, err = c.ActionsGet(ctx, actionsGet)
		if !errors.As(err, &changed) || changed.Tool != "actions_get" || !changed.Removed {
			t.Errorf("ActionsGet under DigestFail: %v, want a *composition.ToolChangedError (removed)", err)
		}
		_, err = c.GetMe(ctx) // unchanged: goes through
		var te *composition.ToolError
		if !errors.As(err, &te) {
			t.Errorf("GetMe under DigestFail: %v, want the server's tool error (get_me is unchanged)", err)
		}
	})

	t.Run("args-validation", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), githubTimeout)
		defer cancel()
		s, sent := via.start(ctx, t, command, args, env, composition.WithArgsValidation())
		_, err := githubmcpserver.NewClient(s).ActionsGet(ctx, actionsGet)
		if sent != nil && sent() {
			t.Errorf("ActionsGet under WithArgsValidation: a tools/call request reached the server")
		}
		var te *composition.ToolError
		var ve *composition.ValidationError
		if errors.As(err, &te) || !errors.As(err, &ve) {
			t.Fatalf("ActionsGet with method %q under WithArgsValidation: %v, want a *composition.ValidationError before sending", evil, err)
		}
		if strings.ContainsAny(err.Error(), "\x1b\u202e") {
			t.Errorf("the validation error %q holds the argument's control characters unescaped", err)
		}
	})
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
	for _, version := range []string{"2026-07-28", "2025-06-18"} {
		t.Run(version, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "bundle.json")
			cmd := exec.Command(mcpbind, append(append(flags, "-o", out, "--protocol-version", version, "--", command), args...)...)
			cmd.Env = env // mcpbind passes its environment on to the server
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
