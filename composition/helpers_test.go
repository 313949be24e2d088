package composition

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// moduleRoot returns the directory holding go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatalf("module root: %v", err)
	}
	return dir
}

// goTool returns the go command of the toolchain running the tests.
func goTool() string {
	p := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	return "go"
}

// buildTestServer builds testservers/testserver into a temporary
// directory.
func buildTestServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "testserver")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	cmd := exec.Command(goTool(), "build", "-o", bin, "./testservers/testserver")
	cmd.Dir = moduleRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the test server: %v\n%s", err, out)
	}
	return bin
}

// startHTTPServer runs the test server on a loopback port and returns its
// MCP endpoint URL. It is killed when the test ends.
func startHTTPServer(t *testing.T, bin string, args ...string) string {
	t.Helper()
	url, _ := startHTTPServerCmd(t, bin, args...)
	return url
}

// startHTTPServerCmd is startHTTPServer that also returns the process, for
// tests that stop it early.
func startHTTPServerCmd(t *testing.T, bin string, args ...string) (string, *exec.Cmd) {
	t.Helper()
	url, cmd, _ := startServerProcess(t, bin, append([]string{"-http", "127.0.0.1:0"}, args...)...)
	return url, cmd
}

// startServerProcess runs the test server with args (which must make it
// listen and print "URL …" on stdout) and returns the URL, the process,
// which is killed when the test ends, and its stderr.
func startServerProcess(t *testing.T, bin string, args ...string) (string, *exec.Cmd, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := new(syncBuffer)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	select {
	case line, ok := <-lines:
		if url, found := strings.CutPrefix(line, "URL "); ok && found {
			return url, cmd, stderr
		}
		t.Fatalf("test server did not print its URL (got %q); stderr:\n%s", line, stderr.String())
	case <-time.After(hangBound):
		t.Fatalf("test server did not start within %v; stderr:\n%s", hangBound, stderr.String())
	}
	return "", nil, nil
}

// hangBound is how long a test waits for something that must happen before
// it reports a hang: generous, so that it fails only on a genuine hang and
// never on a slow or loaded machine. Tests wait for signals, never for time;
// hangBound is the guard when the signal never comes.
const hangBound = time.Minute

// returnsOnceDone runs f, which must return once ctx is done, and fails the
// test if f still runs hangBound after that. It asserts no duration: f may
// return before ctx is done, or any time within the bound after.
func returnsOnceDone(t *testing.T, ctx context.Context, what string, f func()) {
	t.Helper()
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		f()
	}()
	select {
	case <-returned:
		return
	case <-ctx.Done():
	}
	select {
	case <-returned:
	case <-time.After(hangBound):
		t.Fatalf("%s still waits %v after its context ended (%v)", what, hangBound, context.Cause(ctx))
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent use, which signals when
// a text has been written to it (seen).
type syncBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	waiters []bufferWaiter
}

// bufferWaiter is a pending seen: c is closed once text is in the buffer.
type bufferWaiter struct {
	text string
	c    chan struct{}
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, err := b.b.Write(p)
	pending := b.waiters[:0]
	for _, w := range b.waiters {
		if strings.Contains(b.b.String(), w.text) {
			close(w.c)
		} else {
			pending = append(pending, w)
		}
	}
	b.waiters = pending
	return n, err
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// seen returns a channel that is closed once text has been written to b.
func (b *syncBuffer) seen(text string) <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := make(chan struct{})
	if strings.Contains(b.b.String(), text) {
		close(c)
	} else {
		b.waiters = append(b.waiters, bufferWaiter{text, c})
	}
	return c
}

// errExecNotFound is what a missing stdio command unwraps to.
var errExecNotFound = exec.ErrNotFound

// httpServer serves h on a loopback port for the test and returns its base URL.
func httpServer(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

func http404(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }

func http500(w http.ResponseWriter, _ *http.Request) {
	http.Error(w, "database exploded", http.StatusInternalServerError)
}

// httpHang never answers; it returns when the client gives up. (It reads
// the body first: only then does net/http notice a client that hangs up.)
func httpHang(_ http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	<-r.Context().Done()
}

func httpHTML(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html")
	_, _ = w.Write([]byte("<html><body>hello</body></html>"))
}

// closedPort returns a loopback address on which nothing listens (one that
// was just free).
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

func httpGarbage(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte("\x00\xffgarbage{"))
}
