package composition

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

const (
	testClientID     = "mcpbind-test-client"
	testClientSecret = "s3cret-client-Pa55word"
	testAuthCode     = "auth-code-4-test"
)

// authServer is an OAuth 2.0 authorization server for the tests: RFC 8414
// metadata and a token endpoint for the client-credentials grant and the
// refresh-token grant (with rotation), on 127.0.0.1.
type authServer struct {
	url string

	mu       sync.Mutex
	valid    map[string]bool // access tokens it issued and has not revoked
	refresh  map[string]bool // refresh tokens it issued and has not used
	requests []tokenRequest
	n        int
}

// tokenRequest is what the token endpoint saw (never the secret).
type tokenRequest struct {
	grantType, scope, resource, authMethod string
}

// issueRefresh makes a new refresh token.
func (as *authServer) issueRefresh() string {
	as.mu.Lock()
	defer as.mu.Unlock()
	as.n++
	tok := fmt.Sprintf("rt-%d-%d", as.n, time.Now().UnixNano())
	as.refresh[tok] = true
	return tok
}

// useRefresh reports whether tok is an unused refresh token, using it up.
func (as *authServer) useRefresh(tok string) bool {
	as.mu.Lock()
	defer as.mu.Unlock()
	ok := as.refresh[tok]
	delete(as.refresh, tok)
	return ok
}

func newAuthServer(t *testing.T) *authServer {
	t.Helper()
	as := &authServer{valid: map[string]bool{}, refresh: map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{
			"issuer":                                as.url,
			"token_endpoint":                        as.url + "/token",
			"authorization_endpoint":                as.url + "/authorize",
			"token_endpoint_auth_methods_supported": []string{"client_secret_basic"},
			"grant_types_supported":                 []string{"client_credentials"},
			"response_types_supported":              []string{"token"},
		})
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
			return
		}
		req := tokenRequest{grantType: r.PostForm.Get("grant_type"), scope: r.PostForm.Get("scope"), resource: r.PostForm.Get("resource")}
		id, secret, basic := r.BasicAuth()
		req.authMethod = "client_secret_basic"
		if !basic {
			id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
			req.authMethod = "client_secret_post"
		}
		as.mu.Lock()
		as.requests = append(as.requests, req)
		as.mu.Unlock()
		switch {
		case id != testClientID || secret != testClientSecret:
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client", "error_description": "client authentication failed"})
		case req.grantType == "authorization_code":
			// The code testAuthCode, redeemed with a PKCE verifier.
			if r.PostForm.Get("code") != testAuthCode || r.PostForm.Get("code_verifier") == "" {
				writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
				return
			}
			writeJSON(w, http.StatusOK, map[string]any{"access_token": as.issue(), "token_type": "bearer", "expires_in": 3600, "refresh_token": as.issueRefresh()})
		case req.grantType == "refresh_token":
			if !as.useRefresh(r.PostForm.Get("refresh_token")) {
				writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
				return
			}
			writeJSON(w, http.StatusOK, map[string]any{"access_token": as.issue(), "token_type": "bearer", "expires_in": 3600, "refresh_token": as.issueRefresh()})
		case req.grantType != "client_credentials":
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		default:
			writeJSON(w, http.StatusOK, map[string]any{"access_token": as.issue(), "token_type": "bearer", "expires_in": 3600, "scope": req.scope})
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	as.url = srv.URL
	return as
}

// issue makes a new valid access token.
func (as *authServer) issue() string {
	as.mu.Lock()
	defer as.mu.Unlock()
	as.n++
	tok := fmt.Sprintf("at-%d-%d", as.n, time.Now().UnixNano())
	as.valid[tok] = true
	return tok
}

// revokeAll makes every token issued so far invalid.
func (as *authServer) revokeAll() {
	as.mu.Lock()
	defer as.mu.Unlock()
	clear(as.valid)
}

func (as *authServer) isValid(tok string) bool {
	as.mu.Lock()
	defer as.mu.Unlock()
	return as.valid[tok]
}

func (as *authServer) seen() []tokenRequest {
	as.mu.Lock()
	defer as.mu.Unlock()
	return slices.Clone(as.requests)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// protectedServer is an mcp-go server over Streamable HTTP (/mcp) and
// HTTP+SSE (/sse, /message) on 127.0.0.1 that answers 401 without a token
// the authorization server issued, and publishes protected resource metadata
// (RFC 9728) naming it.
func protectedServer(t *testing.T, as *authServer) (base string) {
	t.Helper()
	mcpServer := server.NewMCPServer("protected", "1.0.0", server.WithToolCapabilities(false))
	mcpServer.AddTool(mcp.NewTool("integer", mcp.WithDescription("Returns 42.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("42"), nil
		})
	var srv *httptest.Server
	streamable := server.NewStreamableHTTPServer(mcpServer)
	sse := server.NewSSEServer(mcpServer)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"resource": srv.URL + "/mcp", "authorization_servers": []string{as.url}})
	})
	protect := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || !as.isValid(tok) {
				w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+srv.URL+`/.well-known/oauth-protected-resource/mcp"`)
				http.Error(w, "invalid or missing access token", http.StatusUnauthorized)
				return
			}
			h.ServeHTTP(w, r)
		})
	}
	mux.Handle("/mcp", protect(streamable))
	mux.Handle("/sse", protect(sse))
	mux.Handle("/message", protect(sse))
	srv = httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// checkNoSecrets fails the test when msg holds the client secret or a token
// the authorization server issued.
func checkNoSecrets(t *testing.T, msg string, extra ...string) {
	t.Helper()
	for _, s := range append([]string{testClientSecret, "at-"}, extra...) {
		if strings.Contains(msg, s) {
			t.Errorf("message shows a secret (%q): %s", s, msg)
		}
	}
}

func callInteger(ctx context.Context, s *Session) error {
	res, err := s.CallResult(ctx, "integer", nil)
	if err != nil {
		return err
	}
	if res.Text() != "42" {
		return fmt.Errorf("integer = %q", res.Text())
	}
	return nil
}

func TestBearerToken(t *testing.T) {
	t.Parallel()
	as := newAuthServer(t)
	base := protectedServer(t, as)
	good := as.issue()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()

	for _, tr := range []Transport{HTTP(base + "/mcp"), SSE(base + "/sse")} {
		// WithBearerToken replaces an Authorization header.
		s, err := Connect(ctx, tr, WithHeader("Authorization", "Bearer wrong-token-1"), WithBearerToken(good))
		if err != nil {
			t.Fatalf("%s: %v", tr, err)
		}
		if err := callInteger(ctx, s); err != nil {
			t.Errorf("%s: %v", tr, err)
		}
		s.Close()
	}

	_, err := Connect(ctx, HTTP(base+"/mcp"))
	var ce *ConnectError
	if !errors.As(err, &ce) || ce.Stage != "initialize" || !strings.Contains(err.Error(), "401") {
		t.Errorf("no token: err = %v, want a 401 at initialize", err)
	}
	_, err = Connect(ctx, HTTP(base+"/mcp"), WithBearerToken("at-revoked-token"))
	t.Logf("wrong token: %v", err)
	if !errors.As(err, &ce) || ce.Stage != "initialize" || !strings.Contains(err.Error(), "401") {
		t.Errorf("wrong token: err = %v, want a 401 at initialize", err)
	}
	checkNoSecrets(t, err.Error())

	for _, bad := range []Option{WithBearerToken(""), WithBearerToken("a\nb")} {
		if _, err := Connect(ctx, HTTP(base+"/mcp"), bad); !errors.As(err, &ce) || ce.Stage != "config" {
			t.Errorf("err = %v, want a config error", err)
		}
	}
}

func TestOAuthClientCredentials(t *testing.T) {
	t.Parallel()
	as := newAuthServer(t)
	base := protectedServer(t, as)
	mcpURL := base + "/mcp"
	cc := OAuthClientCredentials{ClientID: testClientID, ClientSecret: testClientSecret, Scopes: []string{"tools:read", "tools:call"}}
	with := func(f func(*OAuthClientCredentials)) OAuthClientCredentials {
		c := cc
		f(&c)
		return c
	}

	for _, tc := range []struct {
		name       string
		tr         Transport
		cc         OAuthClientCredentials
		resource   string
		authMethod string
		transport  string
	}{
		{"token URL", HTTP(mcpURL), with(func(c *OAuthClientCredentials) { c.TokenURL = as.url + "/token" }), mcpURL, "", TransportStreamableHTTP},
		{"issuer", HTTP(mcpURL), with(func(c *OAuthClientCredentials) { c.Issuer = as.url }), mcpURL, "client_secret_basic", TransportStreamableHTTP},
		{"protected resource metadata", HTTP(mcpURL), cc, mcpURL, "client_secret_basic", TransportStreamableHTTP},
		{"explicit resource", HTTP(mcpURL), with(func(c *OAuthClientCredentials) { c.Issuer, c.Resource = as.url, "https://mcp.example/" }), "https://mcp.example/", "client_secret_basic", TransportStreamableHTTP},
		{"SSE", SSE(base + "/sse"), with(func(c *OAuthClientCredentials) { c.Issuer = as.url }), base + "/sse", "client_secret_basic", TransportSSE},
		{"HTTP falls back to SSE", HTTP(base + "/sse"), with(func(c *OAuthClientCredentials) { c.Issuer = as.url }), base + "/sse", "client_secret_basic", TransportSSE},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			before := len(as.seen())
			s, err := Connect(ctx, tc.tr, WithOAuthClientCredentials(tc.cc))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if s.Transport() != tc.transport {
				t.Errorf("Transport() = %q, want %q", s.Transport(), tc.transport)
			}
			for range 3 {
				if err := callInteger(ctx, s); err != nil {
					t.Fatal(err)
				}
			}
			reqs := as.seen()[before:]
			if len(reqs) != 1 {
				t.Fatalf("%d token requests, want 1 (the token is reused): %+v", len(reqs), reqs)
			}
			r := reqs[0]
			if r.grantType != "client_credentials" || r.scope != "tools:read tools:call" || r.resource != tc.resource {
				t.Errorf("token request = %+v, want client_credentials, both scopes, resource %s", r, tc.resource)
			}
			if tc.authMethod != "" && r.authMethod != tc.authMethod {
				t.Errorf("client authentication = %s, want %s", r.authMethod, tc.authMethod)
			}
		})
	}

	t.Run("revoked token is replaced", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		s, err := Connect(ctx, HTTP(mcpURL), WithOAuthClientCredentials(with(func(c *OAuthClientCredentials) { c.TokenURL = as.url + "/token" })))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		before := len(as.seen())
		as.revokeAll()
		err = callInteger(ctx, s)
		t.Logf("call with a revoked token: %v", err)
		if err == nil || !strings.Contains(err.Error(), "401") && !strings.Contains(err.Error(), "authorization") {
			t.Errorf("call with a revoked token: err = %v, want a 401", err)
		} else {
			checkNoSecrets(t, err.Error())
		}
		if err := callInteger(ctx, s); err != nil {
			t.Errorf("the next call: %v", err)
		}
		if n := len(as.seen()) - before; n != 1 {
			t.Errorf("%d new token requests, want 1", n)
		}
	})

	t.Run("errors", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		closed := "http://" + closedPort(t)
		for _, tc := range []struct {
			name   string
			opts   []Option
			stage  string
			status int
			want   []string
		}{
			{name: "wrong secret", opts: []Option{WithOAuthClientCredentials(with(func(c *OAuthClientCredentials) { c.TokenURL, c.ClientSecret = as.url+"/token", "not-the-secret" }))},
				stage: "auth", status: 401, want: []string{"token endpoint", "/token", "HTTP 401", "invalid_client", "client authentication failed"}},
			{name: "wrong secret, issuer", opts: []Option{WithOAuthClientCredentials(with(func(c *OAuthClientCredentials) { c.Issuer, c.ClientSecret = as.url, "not-the-secret" }))},
				stage: "auth", status: 401, want: []string{"HTTP 401", "invalid_client"}},
			{name: "token endpoint down", opts: []Option{WithOAuthClientCredentials(with(func(c *OAuthClientCredentials) { c.TokenURL = closed + "/token" }))},
				stage: "auth", want: []string{"token endpoint", "connection refused"}},
			{name: "no metadata at issuer", opts: []Option{WithOAuthClientCredentials(with(func(c *OAuthClientCredentials) { c.Issuer = base }))},
				stage: "auth", want: []string{"authorization server metadata", "well-known"}},
			{name: "http token URL off loopback", opts: []Option{WithOAuthClientCredentials(with(func(c *OAuthClientCredentials) { c.TokenURL = "http://auth.example.com/token" }))},
				stage: "config", want: []string{"https"}},
			{name: "token URL and issuer", opts: []Option{WithOAuthClientCredentials(with(func(c *OAuthClientCredentials) { c.TokenURL, c.Issuer = as.url+"/token", as.url }))},
				stage: "config", want: []string{"not both"}},
			{name: "no secret", opts: []Option{WithOAuthClientCredentials(with(func(c *OAuthClientCredentials) { c.ClientSecret = "" }))},
				stage: "config", want: []string{"secret"}},
			{name: "bearer too", opts: []Option{WithBearerToken("tok3n-value"), WithOAuthClientCredentials(cc)},
				stage: "config", want: []string{"give one"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				s, err := Connect(ctx, HTTP(mcpURL), tc.opts...)
				if err == nil {
					s.Close()
					t.Fatal("Connect succeeded")
				}
				t.Logf("%v", err)
				var ce *ConnectError
				if !errors.As(err, &ce) || ce.Stage != tc.stage {
					t.Errorf("err = %#v, want a *ConnectError at %s", err, tc.stage)
				}
				var te *TokenError
				if tc.stage == "auth" && !errors.As(err, &te) {
					t.Errorf("no *TokenError in %v", err)
				}
				if tc.status != 0 && (te == nil || te.StatusCode != tc.status) {
					t.Errorf("TokenError = %+v, want status %d", te, tc.status)
				}
				for _, w := range tc.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error does not say %q", w)
					}
				}
				checkNoSecrets(t, err.Error(), "not-the-secret", "tok3n-value")
			})
		}
	})
}
