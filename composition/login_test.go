package composition

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	neturl "net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpbind/mcpbind/composition/bindimpl"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/internal/tokenstore"
)

// loginStore is a file token store in a temporary configuration folder.
func loginStore(t *testing.T) *tokenstore.Store {
	t.Helper()
	home := t.TempDir()
	t.Setenv(tokenstore.EnvStore, "file")
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("HOME", home)
	store, err := tokenstore.Open()
	if err != nil {
		t.Fatal(err)
	}
	return store
}

// keptLogin is a login of the test client at the protected server at url,
// as `mcpbind login` keeps it.
func keptLogin(as *authServer, url, access, refresh string, expiry time.Time) *tokenstore.Login {
	return &tokenstore.Login{
		Server: tokenstore.ServerKey(url), ClientKey: testClientID,
		Issuer: as.url, TokenEndpoint: as.url + "/token",
		ClientID: testClientID, ClientSecret: testClientSecret, AuthMethod: "client_secret_basic",
		Resource: url, AccessToken: access, TokenType: "Bearer", RefreshToken: refresh, Expiry: expiry,
	}
}

// TestOAuthLoginRefresh: a kept login's token is refreshed (with the RFC 8707
// resource, the refresh token rotated and kept) when it is about to expire
// and when the server refuses it; the next connection uses the kept token
// without a token request; a refused login with no browser is a
// *LoginRequiredError that names the command to run and shows no secret.
func TestOAuthLoginRefresh(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	as := newAuthServer(t)
	url := protectedServer(t, as) + "/mcp"
	store := loginStore(t)
	login := OAuthLogin{ClientID: testClientID, Store: store}

	connect := func() error {
		s, err := Connect(ctx, HTTP(url), WithOAuthLogin(login))
		if err != nil {
			return err
		}
		defer s.Close()
		return callInteger(ctx, s)
	}
	kept := func() *tokenstore.Login {
		t.Helper()
		l, err := store.Load(tokenstore.ServerKey(url), testClientID)
		if err != nil || l == nil {
			t.Fatalf("kept login: %v, %v", l, err)
		}
		return l
	}

	for _, tc := range []struct {
		name   string
		access string
		expiry time.Time
	}{
		{"expired", as.issue(), time.Now().Add(-time.Hour)},
		{"refused", "at-revoked", time.Now().Add(time.Hour)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt := as.issueRefresh()
			if err := store.Save(keptLogin(as, url, tc.access, rt, tc.expiry)); err != nil {
				t.Fatal(err)
			}
			before := len(as.seen())
			if err := connect(); err != nil {
				t.Fatalf("connect: %v", err)
			}
			reqs := as.seen()[before:]
			if len(reqs) != 1 || reqs[0].grantType != "refresh_token" || reqs[0].resource != url {
				t.Fatalf("token requests = %+v, want one refresh_token grant with resource %s", reqs, url)
			}
			l := kept()
			if !as.isValid(l.AccessToken) || l.RefreshToken == rt || l.RefreshToken == "" {
				t.Errorf("the kept login was not replaced by the refreshed one")
			}
			if err := connect(); err != nil {
				t.Fatalf("second connect: %v", err)
			}
			if n := len(as.seen()) - before; n != 1 {
				t.Errorf("the second connection made %d more token requests, want none (the kept token)", n-1)
			}
		})
	}

	t.Run("refused, no refresh, no browser", func(t *testing.T) {
		as.revokeAll()
		if err := store.Save(keptLogin(as, url, "at-revoked", "rt-unknown", time.Now().Add(time.Hour))); err != nil {
			t.Fatal(err)
		}
		err := connect()
		var le *LoginRequiredError
		if !errors.As(err, &le) {
			t.Fatalf("err = %v, want a *LoginRequiredError", err)
		}
		if want := "mcpbind login --oauth-client-id " + testClientID + " " + url; le.Command() != want {
			t.Errorf("Command() = %q, want %q", le.Command(), want)
		}
		checkNoSecrets(t, err.Error(), "rt-")
	})
}

// TestRegistryLoginStatus: a registry server that uses the kept OAuth login
// (WithOAuthLogin without a browser) while none is kept fails to connect,
// and Status says which command logs in.
func TestRegistryLoginStatus(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	as := newAuthServer(t)
	url := protectedServer(t, as) + "/mcp"
	// What a servers.yaml "auth: oauth" server is given
	// (composition/serverconfig): the kept login, no browser.
	r := NewRegistry()
	defer r.Close()
	if err := r.Add("hosted", HTTP(url), WithOAuthLogin(OAuthLogin{Store: loginStore(t)})); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Session(ctx, "hosted"); err == nil {
		t.Fatal("connected without a login")
	}
	st := r.Status()
	if len(st) != 1 || st[0].LoginCommand != "mcpbind login "+url {
		t.Fatalf("Status = %+v, want LoginCommand %q", st, "mcpbind login "+url)
	}
}

// TestRegistryLoginRefresh: a registry server with "auth: oauth" and a
// pre-registered client uses the kept login, refreshing its expired token
// and keeping the new one for the next connection.
func TestRegistryLoginRefresh(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	as := newAuthServer(t)
	url := protectedServer(t, as) + "/mcp"
	store := loginStore(t)
	rt := as.issueRefresh()
	if err := store.Save(keptLogin(as, url, "at-expired", rt, time.Now().Add(-time.Minute))); err != nil {
		t.Fatal(err)
	}
	// A servers.yaml "auth: {oauth: {clientId: …}}" server.
	r := NewRegistry()
	defer r.Close()
	if err := r.Add("hosted", HTTP(url), WithOAuthLogin(OAuthLogin{ClientID: testClientID, Store: store})); err != nil {
		t.Fatal(err)
	}
	s, err := r.Session(ctx, "hosted")
	if err != nil {
		t.Fatalf("session: %v", err)
	}
	if err := callInteger(ctx, s); err != nil {
		t.Fatal(err)
	}
	l, err := store.Load(tokenstore.ServerKey(url), testClientID)
	if err != nil || l == nil || !as.isValid(l.AccessToken) || l.RefreshToken == rt {
		t.Errorf("the kept login was not refreshed")
	}
	if st := r.Status(); len(st) != 1 || st[0].LoginCommand != "" {
		t.Errorf("Status = %+v, want no LoginCommand", st)
	}
}

// TestOAuthLoginFlow drives the authorization-code flow through Authorize
// (in place of a browser): the authorization URL carries the client, PKCE
// with S256, a state and the RFC 8707 resource, and redirects to 127.0.0.1;
// a redirect with a forged state is refused (HTTP 400 to the browser, an
// error naming the state to Connect) and the login is not kept; the real
// redirect completes the login, which is kept.
func TestOAuthLoginFlow(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	as := newAuthServer(t)
	url := protectedServer(t, as) + "/mcp"
	store := loginStore(t)

	// redirect plays the browser: it checks the authorization URL, then
	// sends the redirect with the given state ("" for the right one).
	redirect := func(state string) func(context.Context, string) error {
		return func(ctx context.Context, authURL string) error {
			u, err := neturl.Parse(authURL)
			if err != nil {
				return err
			}
			q := u.Query()
			for k, want := range map[string]string{
				"response_type": "code", "client_id": testClientID, "code_challenge_method": "S256", "resource": url,
			} {
				if q.Get(k) != want {
					t.Errorf("authorization URL: %s = %q, want %q", k, q.Get(k), want)
				}
			}
			if !strings.HasPrefix(authURL, as.url+"/authorize?") || q.Get("code_challenge") == "" || q.Get("state") == "" {
				t.Errorf("authorization URL %s: want the authorization endpoint with a code_challenge and a state", authURL)
			}
			back, err := neturl.Parse(q.Get("redirect_uri"))
			if err != nil || back.Hostname() != "127.0.0.1" || back.Port() == "" {
				t.Fatalf("redirect_uri %q: want http://127.0.0.1:PORT/…", q.Get("redirect_uri"))
			}
			if state == "" {
				state = q.Get("state")
			}
			bq := back.Query()
			bq.Set("code", testAuthCode)
			bq.Set("state", state)
			back.RawQuery = bq.Encode()
			resp, err := http.Get(back.String())
			if err != nil {
				return err
			}
			resp.Body.Close()
			if forged := state != q.Get("state"); forged != (resp.StatusCode == http.StatusBadRequest) {
				t.Errorf("the callback answered %s to a redirect with forged state %v", resp.Status, forged)
			}
			return nil
		}
	}
	connect := func(authorize func(context.Context, string) error) error {
		s, err := Connect(ctx, HTTP(url), WithOAuthLogin(OAuthLogin{ClientID: testClientID, ClientSecret: testClientSecret, Store: store, Authorize: authorize}))
		if err != nil {
			return err
		}
		defer s.Close()
		return callInteger(ctx, s)
	}

	err := connect(redirect("forged-state"))
	if err == nil || !strings.Contains(err.Error(), "state does not match") {
		t.Fatalf("forged state: err = %v, want the state refused", err)
	}
	checkNoSecrets(t, err.Error(), testAuthCode)
	if l, _ := store.Load(tokenstore.ServerKey(url), testClientID); l != nil {
		t.Errorf("a login was kept after a forged redirect")
	}

	if err := connect(redirect("")); err != nil {
		t.Fatalf("login: %v", err)
	}
	l, err := store.Load(tokenstore.ServerKey(url), testClientID)
	if err != nil || l == nil || !as.isValid(l.AccessToken) || l.Resource != url {
		t.Fatalf("kept login: %+v, %v; want the issued token for %s", l != nil, err, url)
	}
}

// TestOAuthLoginNotBearer: a 401 without a Bearer challenge (a server that
// wants an API key) is reported as it is: no flow runs and no login is asked
// for, and nothing but the MCP endpoint is asked (no discovery, no
// registration).
func TestOAuthLoginNotBearer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var mu sync.Mutex
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		w.Header().Set("WWW-Authenticate", `Basic realm="api keys"`)
		http.Error(w, "an API key is required", http.StatusUnauthorized)
	}))
	defer srv.Close()
	store := loginStore(t)
	_, err := Connect(ctx, HTTP(srv.URL+"/mcp"), WithOAuthLogin(OAuthLogin{Store: store, Authorize: func(context.Context, string) error {
		t.Error("the login flow ran for a 401 without a Bearer challenge")
		return errors.New("no")
	}}))
	var le *LoginRequiredError
	if err == nil || errors.As(err, &le) || !strings.Contains(err.Error(), "401") {
		t.Fatalf("err = %v, want the server's 401", err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range paths {
		if p != "/mcp" {
			t.Errorf("the client asked for %s; want only /mcp", p)
		}
	}
}

// TestComposingServerKeepsClientTokens: a composing server (Serve over
// Streamable HTTP) whose tool calls a downstream HTTP server sends the
// downstream only the credential configured for that connection, never the
// token its own client sent.
func TestComposingServerKeepsClientTokens(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const clientToken, downToken = "client-t0ken-for-the-composer", "downstream-t0ken"

	// guard answers 401 without the token and records every Authorization
	// header it sees.
	var mu sync.Mutex
	var seen []string
	guard := func(token string, record bool, h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if record {
				mu.Lock()
				seen = append(seen, r.Header.Get("Authorization"))
				mu.Unlock()
			}
			if r.Header.Get("Authorization") != "Bearer "+token {
				w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
				http.Error(w, "bad token", http.StatusUnauthorized)
				return
			}
			h.ServeHTTP(w, r)
		})
	}
	downMCP := server.NewMCPServer("down", "1.0.0", server.WithToolCapabilities(false))
	downMCP.AddTool(mcp.NewTool("integer"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("42"), nil
	})
	down := httptest.NewServer(guard(downToken, true, server.NewStreamableHTTPServer(downMCP)))
	defer down.Close()
	downSess, err := Connect(ctx, HTTP(down.URL+"/mcp"), WithBearerToken(downToken))
	if err != nil {
		t.Fatal(err)
	}
	defer downSess.Close()

	upMCP := server.NewMCPServer("composer", "1.0.0", server.WithToolCapabilities(false))
	relay := bindimpl.HandleNoArgs(bindimpl.Tool{Name: "relay"}, `{"name":"relay","inputSchema":{"type":"object"}}`,
		func(ctx context.Context) (*Result, error) { return downSess.CallResult(ctx, "integer", nil) })
	if err := Serve(upMCP, []ServedTool{relay}); err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(guard(clientToken, false, server.NewStreamableHTTPServer(upMCP)))
	defer up.Close()
	client, err := Connect(ctx, HTTP(up.URL+"/mcp"), WithBearerToken(clientToken))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	res, err := client.CallResult(ctx, "relay", nil)
	if err != nil || res.Text() != "42" {
		t.Fatalf("relay = %v, %v", res, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 {
		t.Fatal("the downstream server saw no request")
	}
	for _, h := range seen {
		if h != "Bearer "+downToken {
			t.Errorf("the downstream server got Authorization %q; want only its own token", h)
		}
	}
}
