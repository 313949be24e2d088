package export

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestResolve(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "work"), 0o755); err != nil {
		t.Fatal(err)
	}
	const src = `servers:
  local:
    command: ["${BIN_DIR}/server", --name, "a$$b", "$HOME-literal"]
    env: {TOKEN: "${SECRET_TOKEN}", PLAIN: plain-value-1}
    cwd: work
  remote:
    url: http://${HOST}/mcp
    headers: {Authorization: "Bearer ${SECRET_TOKEN}"}
    timeout: 2s
  unset:
    url: http://127.0.0.1/mcp
    headers: {X-Key: "${NOT_SET_ANYWHERE}"}
`
	cfg, err := ParseConfig([]byte(src), filepath.Join(dir, "servers.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"BIN_DIR": "/opt/bin", "SECRET_TOKEN": "tok-123456789", "HOST": "127.0.0.1:9"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	sel, err := cfg.Select("local", "remote")
	if err != nil {
		t.Fatal(err)
	}
	local, err := sel[0].Resolve(lookup)
	if err != nil {
		t.Fatal(err)
	}
	if got := local.Transport.String(); got != "/opt/bin/server" {
		t.Errorf("command %q", got)
	}
	if local.ID != "local" || len(local.Options) != 2 { // env, dir
		t.Errorf("%+v", local)
	}
	for _, s := range []string{"tok-123456789", "plain-value-1"} {
		if !contains(local.Secrets, s) {
			t.Errorf("secrets %q lack %q", local.Secrets, s)
		}
	}
	remote, err := sel[1].Resolve(lookup)
	if err != nil {
		t.Fatal(err)
	}
	if remote.Transport.String() != "http://127.0.0.1:9/mcp" || remote.Timeout != 2*time.Second {
		t.Errorf("%s %s", remote.Transport, remote.Timeout)
	}
	if !contains(remote.Secrets, "Bearer tok-123456789") || !contains(remote.Secrets, "tok-123456789") {
		t.Errorf("secrets %q", remote.Secrets)
	}

	unset, err := cfg.Select("unset")
	if err != nil {
		t.Fatal(err)
	}
	_, err = unset[0].Resolve(lookup)
	var uv *UnsetVariableError
	if !errors.As(err, &uv) || uv.Name != "NOT_SET_ANYWHERE" {
		t.Fatalf("got %v, want an *UnsetVariableError", err)
	}
	want := `servers.yaml:12:22: server "unset": headers.X-Key: environment variable NOT_SET_ANYWHERE is not set`
	if !strings.HasSuffix(err.Error(), want) {
		t.Errorf("got  %s\nwant …%s", err, want)
	}

	if _, err := cfg.Select("local", "nope"); err == nil || !strings.Contains(err.Error(), `no server "nope" is configured (configured: local, remote, unset)`) {
		t.Errorf("Select: %v", err)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
