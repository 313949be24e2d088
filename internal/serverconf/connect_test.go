package serverconf

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/composition"
)

// TestConnection: a resolved stdio server becomes Stdio with its env and
// working directory, an HTTP server HTTP with a header option each, a
// pinned protocol version one more option; login is asked only for an
// "auth: oauth" server, and its error is returned. An unset variable is an
// *UnsetVariableError, an unknown id a Select error listing the configured
// ones.
func TestConnection(t *testing.T) {
	const src = `servers:
  local:
    command: ["${BIN_DIR}/server", --name, "a$$b"]
    env: {TOKEN: "${SECRET_TOKEN}"}
  remote:
    url: http://${HOST}/mcp
    headers: {Authorization: "Bearer ${SECRET_TOKEN}", X-Other: other}
    protocolVersion: "2025-06-18"
  hosted:
    url: https://mcp.example.com/mcp
    auth: {oauth: {clientId: my-client}}
  unset:
    url: http://127.0.0.1/mcp
    headers: {X-Key: "${NOT_SET_ANYWHERE}"}
`
	cfg, err := Parse([]byte(src), filepath.Join(t.TempDir(), "servers.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"BIN_DIR": "/opt/bin", "SECRET_TOKEN": "tok-123456789", "HOST": "127.0.0.1:9"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	var asked []string
	login := func(o *OAuth) (composition.Option, error) {
		asked = append(asked, o.ClientID)
		return composition.WithOAuthLogin(composition.OAuthLogin{ClientID: o.ClientID}), nil
	}
	for _, tc := range []struct {
		id, transport string
		options       int
	}{
		{"local", "/opt/bin/server", 2},              // env, dir
		{"remote", "http://127.0.0.1:9/mcp", 3},      // two headers, protocol version
		{"hosted", "https://mcp.example.com/mcp", 1}, // login
	} {
		sel, err := cfg.Select(tc.id)
		if err != nil {
			t.Fatal(err)
		}
		r, err := sel[0].Resolve(lookup)
		if err != nil {
			t.Fatal(err)
		}
		tr, opts, err := r.Connection(login)
		if err != nil || tr.String() != tc.transport || len(opts) != tc.options {
			t.Errorf("%s: %s with %d options (%v), want %s with %d", tc.id, tr, len(opts), err, tc.transport, tc.options)
		}
	}
	if len(asked) != 1 || asked[0] != "my-client" {
		t.Errorf("login asked for %q, want the hosted server's my-client only", asked)
	}
	sel, _ := cfg.Select("hosted")
	r, _ := sel[0].Resolve(lookup)
	refused := errors.New("no login here")
	if _, _, err := r.Connection(func(*OAuth) (composition.Option, error) { return composition.Option{}, refused }); !errors.Is(err, refused) {
		t.Errorf("a failing login: %v", err)
	}

	sel, _ = cfg.Select("unset")
	_, err = sel[0].Resolve(lookup)
	var uv *UnsetVariableError
	if !errors.As(err, &uv) || uv.Name != "NOT_SET_ANYWHERE" {
		t.Fatalf("got %v, want an *UnsetVariableError", err)
	}
	if want := `servers.yaml:14:22: server "unset": headers.X-Key: environment variable NOT_SET_ANYWHERE is not set`; !strings.HasSuffix(err.Error(), want) {
		t.Errorf("got  %s\nwant …%s", err, want)
	}
	if _, err := cfg.Select("local", "nope"); err == nil || !strings.Contains(err.Error(), `no server "nope" is configured (configured: hosted, local, remote, unset)`) {
		t.Errorf("Select: %v", err)
	}
}
