package serverconfig_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/serverconfig"
	"github.com/mcpbind/mcpbind/internal/tokenstore"
)

// TestLoadRegistryErrors: a config error names the file and line; an unset
// variable names it and never a value; a variable's value is masked in
// connect errors and Status even where the session would show it (the
// command).
func TestLoadRegistryErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "servers.yaml")
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("servers:\n  a:\n    url: ftp://x\n")
	if _, err := serverconfig.LoadRegistry(path); err == nil || !strings.Contains(err.Error(), path+`:3:10: server "a": url: not an http or https URL`) {
		t.Errorf("bad url: %v", err)
	}
	write("servers:\n  a:\n    url: http://127.0.0.1:1/mcp\n    headers: {X-Key: \"${REGISTRY_TEST_UNSET_VAR}\"}\n")
	if _, err := serverconfig.LoadRegistry(path); err == nil || !strings.Contains(err.Error(), "environment variable REGISTRY_TEST_UNSET_VAR is not set") {
		t.Errorf("unset variable: %v", err)
	}
	const secret = "hdr-secret-7741"
	t.Setenv("REGISTRY_TEST_HOST_PART", secret)
	write("servers:\n  a:\n    command: \"/nonexistent/${REGISTRY_TEST_HOST_PART}/server\"\n")
	r, ctx := load(t, path)
	if _, err := r.Session(ctx, "a"); err == nil || strings.Contains(err.Error(), secret) {
		t.Errorf("connect error %v", err)
	}
	if st := r.Status(); len(st) != 1 || st[0].LastError == "" || strings.Contains(st[0].LastError, secret) || strings.Contains(st[0].Server, secret) {
		t.Errorf("status %+v", st)
	}
}

// TestLoadRegistryLogin: an "auth: oauth" server of the file is reached
// with the kept login and never a browser: with none kept, its connect
// fails with a *composition.LoginRequiredError and Status gives the command
// that logs in, with the clientId of "auth: {oauth: {clientId: …}}".
func TestLoadRegistryLogin(t *testing.T) {
	home := t.TempDir()
	t.Setenv(tokenstore.EnvStore, "file")
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("HOME", home)
	url := protectedServer(t) + "/mcp"
	path := filepath.Join(t.TempDir(), "servers.yaml")
	yaml := "servers:\n  hosted:\n    url: " + url + "\n    auth: oauth\n" +
		"  preregistered:\n    url: " + url + "\n    auth: {oauth: {clientId: my-client}}\n"
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	r, ctx := load(t, path)
	want := map[string]string{"hosted": "mcpbind login " + url, "preregistered": "mcpbind login --oauth-client-id my-client " + url}
	for id := range want {
		var le *composition.LoginRequiredError
		if _, err := r.Session(ctx, id); !errors.As(err, &le) {
			t.Errorf("%s: got %v, want a *composition.LoginRequiredError", id, err)
		}
	}
	for _, st := range r.Status() {
		if st.LoginCommand != want[st.ID] {
			t.Errorf("%s: LoginCommand %q, want %q", st.ID, st.LoginCommand, want[st.ID])
		}
	}
}

// TestLoadRegistryTimeout: a server's "timeout" bounds each of its connect
// attempts in place of composition.DefaultConnectTimeout (30 s): a server
// that never answers fails its connect (a *composition.ConnectError that
// wraps context.DeadlineExceeded) well before the caller's own bound, which
// DefaultConnectTimeout would outlast.
func TestLoadRegistryTimeout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "servers.yaml")
	yaml := "servers:\n  silent:\n    command: [sh, -c, \"exec sleep 600\"]\n    timeout: 200ms\n"
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	r, _ := load(t, path)
	ctx, cancel := context.WithTimeout(t.Context(), composition.DefaultConnectTimeout/2)
	defer cancel()
	_, err := r.Session(ctx, "silent")
	var ce *composition.ConnectError
	if !errors.As(err, &ce) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want a *composition.ConnectError for the server's own timeout", err)
	}
}

// load loads the registry of the servers config at path, closed when the
// test ends, and a context that bounds the test's connects.
func load(t *testing.T, path string) (*composition.Registry, context.Context) {
	t.Helper()
	r, err := serverconfig.LoadRegistry(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return r, ctx
}

// protectedServer is an mcp-go server over streamable HTTP (/mcp) on
// 127.0.0.1 that answers a request without a Bearer token with 401 and a
// Bearer challenge (RFC 6750): a server that needs a login nobody has made.
func protectedServer(t *testing.T) (base string) {
	t.Helper()
	streamable := server.NewStreamableHTTPServer(server.NewMCPServer("protected", "1.0.0"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcp"`)
			http.Error(w, "missing access token", http.StatusUnauthorized)
			return
		}
		streamable.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
