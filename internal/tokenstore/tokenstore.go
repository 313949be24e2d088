// Package tokenstore keeps the OAuth logins of mcpbind (MCP authorization,
// 2025-11-25: the authorization-code flow) per MCP server URL and client: in
// the OS keyring (github.com/zalando/go-keyring: the macOS Keychain, the
// Windows Credential Manager, the Secret Service on Linux and the BSDs), or,
// when there is none, in a file readable by the user only (mode 0600, in a
// 0700 directory) under os.UserConfigDir()/mcpbind/logins.
//
// A login holds secrets (access and refresh tokens, a registered client's
// secret). Nothing in this package prints, logs or returns them in errors.
package tokenstore

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/zalando/go-keyring"
)

// keyringService is the service name of mcpbind's keyring entries.
const keyringService = "mcpbind"

// EnvStore names the environment variable that chooses the storage: "file"
// uses the file even where a keyring exists (tests, and machines whose
// keyring prompts); anything else, or unset, prefers the keyring.
const EnvStore = "MCPBIND_TOKEN_STORE"

// Login is what one login keeps for one MCP server and client.
type Login struct {
	// Server is the MCP server's URL as an RFC 8707 resource (lower-case
	// scheme and host, no user information, query or fragment).
	Server string `json:"server"`
	// ClientKey is the client the login was made for as the user named it:
	// the pre-registered client ID given, or "" for a client that mcpbind
	// registered itself (dynamic registration or a client ID metadata
	// document).
	ClientKey string `json:"client_key,omitempty"`
	// Issuer, AuthorizationEndpoint and TokenEndpoint are the authorization
	// server's, as discovered.
	Issuer                string `json:"issuer,omitempty"`
	AuthorizationEndpoint string `json:"authorization_endpoint,omitempty"`
	TokenEndpoint         string `json:"token_endpoint"`
	// ClientID, ClientSecret and AuthMethod are the client's credentials
	// and how it authenticates at the token endpoint (client_secret_basic,
	// client_secret_post or none).
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret,omitempty"`
	AuthMethod   string `json:"auth_method,omitempty"`
	// Resource is the RFC 8707 resource the tokens are for.
	Resource string `json:"resource,omitempty"`
	// Scopes are the scopes granted (or asked for, when the answer named
	// none).
	Scopes []string `json:"scopes,omitempty"`
	// AccessToken, TokenType, RefreshToken and Expiry are the tokens; a
	// zero Expiry means unknown.
	AccessToken  string    `json:"access_token"`
	TokenType    string    `json:"token_type,omitempty"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
}

// Secrets lists the secret values of l (for redaction).
func (l *Login) Secrets() []string {
	if l == nil {
		return nil
	}
	return []string{l.AccessToken, l.RefreshToken, l.ClientSecret}
}

// Store reads and writes logins. The zero value is not usable: use Open.
type Store struct {
	dir     string // the file fallback's directory
	keyring bool   // try the OS keyring first
}

// Open returns the store of the current user. It fails only when neither a
// keyring nor a user configuration directory exists.
func Open() (*Store, error) {
	cfg, err := os.UserConfigDir()
	if err != nil {
		return nil, fmt.Errorf("no place to keep OAuth logins: %w", err)
	}
	return &Store{dir: filepath.Join(cfg, "mcpbind", "logins"), keyring: useKeyring()}, nil
}

// useKeyring reports whether the OS keyring is worth trying: not when
// MCPBIND_TOKEN_STORE=file, and on Linux and the BSDs only with a D-Bus
// session (the Secret Service is reached over it; without one, go-keyring
// would fail or start a bus).
func useKeyring() bool {
	if os.Getenv(EnvStore) == "file" {
		return false
	}
	switch runtime.GOOS {
	case "darwin", "windows":
		return true
	}
	return os.Getenv("DBUS_SESSION_BUS_ADDRESS") != ""
}

// ServerKey is the URL of an MCP server as logins are keyed: an RFC 8707
// resource (lower-case scheme and host, no user information, query or
// fragment). A URL that does not parse is its own key.
func ServerKey(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return rawURL
	}
	return (&url.URL{Scheme: strings.ToLower(u.Scheme), Host: strings.ToLower(u.Host), Path: u.Path, RawPath: u.RawPath}).String()
}

// key names the login of server and client.
func key(server, clientKey string) string { return server + " " + clientKey }

// path is the fallback file of key.
func (s *Store) path(k string) string {
	sum := sha256.Sum256([]byte(k))
	return filepath.Join(s.dir, hex.EncodeToString(sum[:16])+".json")
}

// Where says where logins are kept, for messages.
func (s *Store) Where() string {
	if s.keyring {
		return "the OS keyring (service \"" + keyringService + "\"), else " + s.dir
	}
	return s.dir
}

// Load returns the login of server and clientKey, or nil when there is
// none.
func (s *Store) Load(server, clientKey string) (*Login, error) {
	k := key(server, clientKey)
	var data []byte
	if s.keyring {
		if v, err := keyring.Get(keyringService, k); err == nil {
			data = []byte(v)
		}
	}
	if data == nil {
		b, err := os.ReadFile(s.path(k))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, nil
		case err != nil:
			return nil, fmt.Errorf("reading the stored login: %w", err)
		}
		data = b
	}
	var l Login
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, errors.New("the stored login is not valid JSON; run mcpbind logout and log in again")
	}
	if l.Server != server || l.ClientKey != clientKey {
		return nil, nil
	}
	return &l, nil
}

// Save keeps l (in the keyring when it can, else in the file), replacing
// the login of the same server and client.
func (s *Store) Save(l *Login) error {
	data, err := json.Marshal(l)
	if err != nil {
		return err
	}
	k := key(l.Server, l.ClientKey)
	if s.keyring {
		if err := keyring.Set(keyringService, k, string(data)); err == nil {
			_ = os.Remove(s.path(k)) // an older copy in the file
			return nil
		}
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("keeping the login: %w", err)
	}
	tmp, err := os.CreateTemp(s.dir, ".login-*")
	if err != nil {
		return fmt.Errorf("keeping the login: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("keeping the login: %w", err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("keeping the login: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("keeping the login: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.path(k)); err != nil {
		return fmt.Errorf("keeping the login: %w", err)
	}
	return nil
}

// Delete forgets the login of server and clientKey, from the keyring and
// the file. It reports whether there was one.
func (s *Store) Delete(server, clientKey string) (bool, error) {
	k := key(server, clientKey)
	found := false
	if s.keyring {
		if err := keyring.Delete(keyringService, k); err == nil {
			found = true
		}
	}
	err := os.Remove(s.path(k))
	switch {
	case err == nil:
		found = true
	case !errors.Is(err, fs.ErrNotExist):
		return found, fmt.Errorf("forgetting the login: %w", err)
	}
	return found, nil
}
