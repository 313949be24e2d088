// Package testenv holds helpers for tests that run real MCP servers: it
// builds this module's commands and starts the example servers and the npm
// test servers that tests connect to over real transports.
//
// The helpers never skip: a missing tool or package fails the test with a
// message saying how to install it, so that CI cannot pass by testing less.
package testenv

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// ListeningPrefix starts the line that sqlite-explorer writes to stderr,
// followed by the endpoint URL, once its HTTP listener is bound.
const ListeningPrefix = "listening on "

// ModuleRoot returns the root folder of this module: the nearest folder,
// from the working directory up, that holds a go.mod. It fails the test when
// there is none.
func ModuleRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatalf("testenv: working directory: %v", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatalf("testenv: no go.mod in the working directory or above it")
		}
		dir = parent
	}
}

// Build compiles the main package pkg of this module, given as a path
// relative to the module root (e.g. "./examples/sqlite-explorer" or
// "./cmd/mcpbind"), with `go build -o` into a folder of t.TempDir(), and
// returns the binary's path. It fails the test with the build output when
// the build fails. Each call builds anew; Go's build cache keeps that cheap.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	root := ModuleRoot(t)
	goTool, err := exec.LookPath("go") // go test puts its own GOROOT/bin first in PATH
	if err != nil {
		t.Fatalf("testenv: the go command is not on PATH: %v", err)
	}
	name := filepath.Base(filepath.FromSlash(strings.TrimSuffix(pkg, "/")))
	if name == "." || name == string(filepath.Separator) {
		name = filepath.Base(root)
	}
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	out := filepath.Join(t.TempDir(), name)
	if !strings.HasPrefix(pkg, ".") {
		pkg = "./" + pkg
	}
	cmd := exec.Command(goTool, "build", "-o", out, pkg)
	cmd.Dir = root
	if output, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("testenv: go build -o %s %s: %v\n%s", out, pkg, err, output)
	}
	return out
}

// SQLiteExplorerStdio builds examples/sqlite-explorer and returns the command
// line that serves it over stdio, on a fresh database in a folder of
// t.TempDir(): the binary and the arguments ["--dir", folder]. The caller
// starts it (e.g. with mcp-go's client.NewStdioMCPClient).
func SQLiteExplorerStdio(t testing.TB) (command string, args []string) {
	t.Helper()
	return Build(t, "./examples/sqlite-explorer"), []string{"--dir", t.TempDir()}
}

// SQLiteExplorerHTTP builds examples/sqlite-explorer, starts it serving
// streamable HTTP on 127.0.0.1 with a free port and a fresh database, waits
// for the "listening on URL" line it writes to stderr, and returns that URL
// (http://127.0.0.1:PORT/mcp). The server is stopped in t.Cleanup: SIGINT
// first, then killed if it has not exited within five seconds. Its stderr is
// logged with t.Log if the test fails.
func SQLiteExplorerHTTP(t testing.TB) (url string) {
	t.Helper()
	return StartHTTP(t, Build(t, "./examples/sqlite-explorer"), "--dir", t.TempDir(), "--http", "127.0.0.1:0")
}

// StartHTTP starts the HTTP server binary with args, waits up to 30 seconds
// for a line "listening on URL" on its stderr, and returns URL. The process
// is stopped in t.Cleanup as SQLiteExplorerHTTP describes.
func StartHTTP(t testing.TB, binary string, args ...string) (url string) {
	t.Helper()
	return startHTTP(t, nil, binary, args...)
}

// startHTTP is StartHTTP with env (KEY=VALUE entries) added to the
// process's environment.
func startHTTP(t testing.TB, env []string, binary string, args ...string) (url string) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("testenv: start %s: %v", binary, err)
	}
	log := &lockedBuffer{}
	found := make(chan string, 1)
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			log.WriteLine(line)
			if u, ok := strings.CutPrefix(line, ListeningPrefix); ok && !sent {
				found <- strings.TrimSpace(u)
				sent = true
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	exited := make(chan error, 1)
	go func() {
		<-copied // Wait must not run before the stderr pipe is drained
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		select {
		case err := <-exited:
			if !t.Failed() {
				t.Errorf("testenv: %s exited while the test was using it: %v", binary, err)
			}
		default:
			_ = cmd.Process.Signal(os.Interrupt)
			select {
			case <-exited:
			case <-time.After(5 * time.Second):
				_ = cmd.Process.Kill()
				<-exited
			}
		}
		if t.Failed() {
			t.Logf("testenv: stderr of %s:\n%s", filepath.Base(binary), log.String())
		}
	})
	select {
	case u := <-found:
		return u
	case err := <-exited:
		exited <- err // for the cleanup
		t.Fatalf("testenv: %s exited before listening: %v\nstderr:\n%s", binary, err, log.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("testenv: %s did not print %q within 30s\nstderr:\n%s", binary, ListeningPrefix+"URL", log.String())
	}
	return ""
}

// ServerEverything returns the command line of the npm package
// @modelcontextprotocol/server-everything served over stdio: node and
// [<root>/testservers/node_modules/@modelcontextprotocol/server-everything/dist/index.js, "stdio"].
// It fails the test (never skips) when node is not on PATH or the package is
// not installed.
func ServerEverything(t testing.TB) (command string, args []string) {
	t.Helper()
	node, script := everythingScript(t)
	return node, []string{script, "stdio"}
}

// ServerEverythingHTTP starts @modelcontextprotocol/server-everything over
// HTTP on 127.0.0.1 and a free port, and returns its endpoint URL. mode is
// "sse" (the legacy HTTP+SSE transport of 2024-11-05; the URL is that of the
// event stream, http://127.0.0.1:PORT/sse) or "streamableHttp" (the URL is
// http://127.0.0.1:PORT/mcp). The server runs with PORT=0 and
// testservers/listen-loopback.js preloaded, which binds it to 127.0.0.1 and
// announces the port; it is stopped as [StartHTTP] describes. It fails the
// test (never skips) when node or the package is missing.
func ServerEverythingHTTP(t testing.TB, mode string) (url string) {
	t.Helper()
	path := map[string]string{"sse": "/sse", "streamableHttp": "/mcp"}[mode]
	if path == "" {
		t.Fatalf("testenv: ServerEverythingHTTP: mode %q: want sse or streamableHttp", mode)
	}
	node, script := everythingScript(t)
	preload := filepath.Join(ModuleRoot(t), "testservers", "listen-loopback.js")
	return startHTTP(t, []string{"PORT=0"}, node, "--require", preload, script, mode) + path
}

// everythingScript returns node and the entry script of
// @modelcontextprotocol/server-everything, failing the test when either is
// missing.
func everythingScript(t testing.TB) (node, script string) {
	t.Helper()
	node = nodeCommand(t, "@modelcontextprotocol/server-everything")
	script = filepath.Join(ModuleRoot(t), "testservers", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("testenv: @modelcontextprotocol/server-everything is missing (%v): %s", err, npmInstall)
	}
	return node, script
}

// npmInstall says how to install the npm test servers.
const npmInstall = "run `npm ci --prefix testservers` (.ci/run does it)"

// nodeCommand returns the path of node, failing the test when it is not on
// PATH; what names the package that needs it.
func nodeCommand(t testing.TB, what string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("testenv: %s needs node, which is missing from PATH: install Node.js 20 or later, then %s", what, npmInstall)
	}
	return node
}

// TSSDKv2Server returns the command line of testservers/ts-sdk-v2-server.mjs,
// a stdio server written with the TypeScript SDK v2
// (@modelcontextprotocol/server), whose tools list_tags (array), count
// (integer), find_row (nullable object) and stats (plain object) have output
// schemas that the SDK wraps as {"result": …} for clients before 2026-07-28;
// fail answers a JSON-RPC error (-32001) and echo_args echoes its arguments
// as received.
// mode "" serves both protocol eras through the SDK's serveStdio(factory);
// mode "legacy" connects McpServer to a StdioServerTransport, which speaks
// only the initialize handshake. It fails the test (never skips) when node
// or the package is missing.
func TSSDKv2Server(t testing.TB, mode string) (command string, args []string) {
	t.Helper()
	node := nodeCommand(t, "testservers/ts-sdk-v2-server.mjs")
	root := ModuleRoot(t)
	pkg := filepath.Join(root, "testservers", "node_modules", "@modelcontextprotocol", "server", "package.json")
	if _, err := os.Stat(pkg); err != nil {
		t.Fatalf("testenv: @modelcontextprotocol/server is missing (%v): %s", err, npmInstall)
	}
	args = []string{filepath.Join(root, "testservers", "ts-sdk-v2-server.mjs")}
	if mode != "" {
		args = append(args, mode)
	}
	return node, args
}

// lockedBuffer collects a process's stderr lines for error messages.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// WriteLine appends line and a newline.
func (b *lockedBuffer) WriteLine(line string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.WriteString(line)
	b.buf.WriteByte('\n')
}

// String returns what was written so far.
func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
