package tokenstore

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/zalando/go-keyring"
)

// login is a login with every field set.
func login(server, client string) *Login {
	return &Login{
		Server: server, ClientKey: client, Issuer: "https://as.example.com",
		AuthorizationEndpoint: "https://as.example.com/authorize", TokenEndpoint: "https://as.example.com/token",
		ClientID: "registered", ClientSecret: "client-s3cret", AuthMethod: "client_secret_basic",
		Resource: server, Scopes: []string{"read", "write"},
		AccessToken: "at-s3cret", TokenType: "Bearer", RefreshToken: "rt-s3cret",
		Expiry: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC),
	}
}

// TestStore keeps, reads and forgets logins per server and client: in the
// keyring when there is one (go-keyring's in-memory mock here: CI has no
// Secret Service), else, and when the keyring fails, in 0600 files.
func TestStore(t *testing.T) {
	const server = "https://mcp.example.com/mcp"
	for _, tc := range []struct {
		name     string
		keyring  bool
		setup    func()
		wantFile bool
	}{
		{"file", false, func() {}, true},
		{"keyring", true, keyring.MockInit, false},
		{"keyring fails", true, func() { keyring.MockInitWithError(errors.New("no Secret Service")) }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.setup()
			s := &Store{dir: filepath.Join(t.TempDir(), "logins"), keyring: tc.keyring}
			if l, err := s.Load(server, ""); l != nil || err != nil {
				t.Fatalf("Load before Save = %v, %v", l, err)
			}
			want := login(server, "")
			if err := s.Save(want); err != nil {
				t.Fatal(err)
			}
			if err := s.Save(login(server, "pre-registered")); err != nil {
				t.Fatal(err)
			}
			got, err := s.Load(server, "")
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("Load = %+v, %v; want %+v", got, err, want)
			}
			files, _ := filepath.Glob(filepath.Join(s.dir, "*.json"))
			if (len(files) == 2) != tc.wantFile || (!tc.wantFile && len(files) != 0) {
				t.Errorf("files %v; want files: %v", files, tc.wantFile)
			}
			for _, f := range files {
				if fi, err := os.Stat(f); err != nil || fi.Mode().Perm() != 0o600 {
					t.Errorf("%s: mode %v, %v; want 0600", f, fi.Mode().Perm(), err)
				}
			}
			if fi, err := os.Stat(s.dir); tc.wantFile && (err != nil || fi.Mode().Perm() != 0o700) {
				t.Errorf("folder mode %v, %v; want 0700", fi.Mode().Perm(), err)
			}
			if found, err := s.Delete(server, ""); !found || err != nil {
				t.Errorf("Delete = %v, %v", found, err)
			}
			if l, _ := s.Load(server, ""); l != nil {
				t.Errorf("the login is still there after Delete")
			}
			if l, _ := s.Load(server, "pre-registered"); l == nil {
				t.Errorf("Delete removed another client's login")
			}
			if found, err := s.Delete(server, ""); found || err != nil {
				t.Errorf("second Delete = %v, %v; want false, nil", found, err)
			}
		})
	}
}

// TestServerKey: spellings of one URL share a key; user information, query
// and fragment are not part of it.
func TestServerKey(t *testing.T) {
	for in, want := range map[string]string{
		"HTTPS://MCP.Example.com/mcp":                 "https://mcp.example.com/mcp",
		"https://user:pw@mcp.example.com/mcp?x=1#top": "https://mcp.example.com/mcp",
		"http://127.0.0.1:8080/a/b":                   "http://127.0.0.1:8080/a/b",
	} {
		if got := ServerKey(in); got != want {
			t.Errorf("ServerKey(%q) = %q, want %q", in, got, want)
		}
	}
}
