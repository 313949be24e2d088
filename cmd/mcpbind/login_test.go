package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/internal/tokenstore"
)

// TestLogout: `mcpbind logout URL` deletes the login kept for the server (in
// any spelling of its URL's scheme and host) and the client, leaves the
// others, and says when there was none; nothing it prints holds a token.
func TestLogout(t *testing.T) {
	home := t.TempDir()
	t.Setenv(tokenstore.EnvStore, "file")
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("HOME", home)
	store, err := tokenstore.Open()
	if err != nil {
		t.Fatal(err)
	}
	const url = "https://mcp.example.com/mcp"
	for _, client := range []string{"", "my-client"} {
		if err := store.Save(&tokenstore.Login{Server: url, ClientKey: client, ClientID: "c", AccessToken: "at-secret-" + client, TokenEndpoint: "https://as.example.com/token"}); err != nil {
			t.Fatal(err)
		}
	}

	_, stderr, code := runInProcess([]string{"logout", "HTTPS://MCP.example.com/mcp"}, nil)
	if code != 0 || !strings.Contains(stderr, "forgot the login of "+url) || strings.Contains(stderr, "at-secret") {
		t.Fatalf("logout: exit %d, stderr %q", code, stderr)
	}
	if l, _ := store.Load(url, ""); l != nil {
		t.Errorf("the login is still kept")
	}
	if l, _ := store.Load(url, "my-client"); l == nil {
		t.Errorf("the login of another client was deleted")
	}
	_, stderr, code = runInProcess([]string{"logout", url}, nil)
	if code != 0 || !strings.Contains(stderr, "no login kept for "+url) {
		t.Errorf("second logout: exit %d, stderr %q", code, stderr)
	}
	_, _, code = runInProcess([]string{"logout", "--oauth-client-id", "my-client", url}, nil)
	if l, _ := store.Load(url, "my-client"); code != 0 || l != nil {
		t.Errorf("logout --oauth-client-id: exit %d, login kept %v", code, l != nil)
	}
}
