package mcpconn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/mcpbind/mcpbind/internal/tokenstore"
)

// The authorization-code flow of the MCP authorization specification
// (2025-11-25, with the 2025-03-26 fallbacks), for users at a browser.
//
// loginAuth is an http.RoundTripper around the session's HTTP transport: it
// sets "Authorization: Bearer <token>" from the stored login, refreshes the
// token shortly before it expires and once on an HTTP 401, and otherwise
// answers a 401 (or a 403 insufficient_scope, RFC 6750 §3.1) by running the
// flow, when it may, then sends the request again:
//
//  1. discovery: the protected resource metadata (RFC 9728) named by the
//     challenge's resource_metadata (same origin as the server only), else
//     at its well-known locations (path-inserted, then root); its first
//     authorization server's metadata (RFC 8414, then OpenID Connect
//     Discovery); with no protected resource metadata, the 2025-03-26 rules:
//     the metadata of the server's origin, else /authorize, /token and
//     /register there;
//  2. scopes: those given, else the challenge's "scope", else the protected
//     resource's scopes_supported, else none (no scope parameter);
//  3. the client: a pre-registered client ID; else a client ID metadata
//     document URL when the authorization server says it supports them;
//     else dynamic client registration (RFC 7591);
//  4. the authorization request with PKCE (S256), a random state and the
//     RFC 8707 resource, opened by OAuthLogin.Authorize, answered on a
//     loopback listener at 127.0.0.1 on a random port; the state is
//     checked;
//  5. the token request (golang.org/x/oauth2) with the verifier and the
//     resource, authenticated as the registration or the metadata says
//     (client_secret_basic, client_secret_post or none).
//
// Step-up on 403 insufficient_scope asks for the union of the scopes held
// and the scopes the challenge names; a scope set is asked for once, and at
// most maxAuthorizations flows run per connection, so a server cannot make
// the client loop.

// maxAuthorizations bounds the authorization flows of one connection.
const maxAuthorizations = 3

// callbackTimeout bounds the wait for the browser to come back.
const callbackTimeout = 5 * time.Minute

// OAuthLogin: see composition.OAuthLogin, which documents it for users.
type OAuthLogin struct {
	// ClientID and ClientSecret are a pre-registered client's; empty: the
	// client is registered (CIMD or dynamic registration).
	ClientID, ClientSecret string
	// ClientMetadataURL is the https URL of this client's metadata document
	// (CIMD), used as the client ID when the authorization server advertises
	// client_id_metadata_document_supported.
	ClientMetadataURL string
	// ClientName is the client_name sent with dynamic registration.
	ClientName string
	// Scopes, when set, are asked for instead of the server's.
	Scopes []string
	// Store keeps the logins; nil: nothing is kept past the connection.
	Store *tokenstore.Store
	// Fresh ignores the stored login: the first 401 runs the flow, whose
	// login then replaces the stored one (mcpbind login).
	Fresh bool
	// Authorize shows the user the authorization URL (opens a browser, or
	// prints it). Nil: a connection that needs a login fails with a
	// *LoginRequiredError.
	Authorize func(ctx context.Context, authURL string) error
}

// WithOAuthLogin: see composition.WithOAuthLogin, which documents it for users.
func WithOAuthLogin(l OAuthLogin) Option {
	l.Scopes = slices.Clone(l.Scopes)
	return Option{func(c *config) {
		cp := l
		c.conn.auth.login = &cp
	}}
}

// LoginRequiredError: see composition.LoginRequiredError, which documents it for users.
type LoginRequiredError struct {
	// Server is the MCP server's URL, without user information, query and
	// fragment.
	Server string
	// Reason says why: no stored login, or the stored one was refused and
	// could not be refreshed.
	Reason string
	// ClientID is the pre-registered client the login is kept for; "" for
	// a client mcpbind registers.
	ClientID string
}

// Error says that a login is needed.
func (e *LoginRequiredError) Error() string {
	return fmt.Sprintf("server %s needs an OAuth login (%s)", e.Server, e.Reason)
}

// Command is the mcpbind command line that logs in to the server with the
// client: "mcpbind login [--oauth-client-id ID] URL".
func (e *LoginRequiredError) Command() string {
	if e.ClientID != "" {
		return "mcpbind login --oauth-client-id " + shellWord(e.ClientID) + " " + shellWord(e.Server)
	}
	return "mcpbind login " + shellWord(e.Server)
}

// shellWord quotes s for a POSIX shell unless it is made of characters that
// need no quoting.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@%+=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// loginAuth runs the flow for one connection (see the top of this file).
type loginAuth struct {
	cfg       OAuthLogin
	serverURL string
	resource0 string       // canonicalResource(serverURL), the storage key
	hc        *http.Client // for the authorization server

	flowMu sync.Mutex // one flow or refresh at a time

	mu      sync.Mutex
	login   *tokenstore.Login
	loaded  bool
	flows   int
	asked   []string // scope sets asked for, as sorted space-joined lists
	secrets []string // every secret seen, for redaction
}

func newLoginAuth(l *OAuthLogin, serverURL string, hc *http.Client) *loginAuth {
	a := &loginAuth{cfg: *l, serverURL: serverURL, resource0: tokenstore.ServerKey(serverURL), hc: hc}
	a.secrets = append(a.secrets, l.ClientSecret)
	return a
}

// current returns the login in use, loading the stored one once.
func (a *loginAuth) current() (*tokenstore.Login, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.loaded {
		a.loaded = true
		if a.cfg.Store != nil && !a.cfg.Fresh {
			l, err := a.cfg.Store.Load(a.resource0, a.cfg.ClientID)
			if err != nil {
				return nil, err
			}
			if l != nil {
				a.login = l
				a.secrets = append(a.secrets, l.Secrets()...)
			}
		}
	}
	return a.login, nil
}

// setLogin makes l the login in use and stores it.
func (a *loginAuth) setLogin(l *tokenstore.Login) error {
	a.mu.Lock()
	a.login = l
	a.secrets = append(a.secrets, l.Secrets()...)
	a.mu.Unlock()
	if a.cfg.Store != nil {
		return a.cfg.Store.Save(l)
	}
	return nil
}

func (a *loginAuth) secretValues() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.secrets)
}

// wrap returns the RoundTripper that authorizes the requests sent to next.
func (a *loginAuth) wrap(next http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) { return a.roundTrip(next, req) })
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// roundTrip sends req with the current token and answers a 401 or a 403
// insufficient_scope as the top of this file says.
func (a *loginAuth) roundTrip(next http.RoundTripper, req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	l, err := a.current()
	if err != nil {
		return nil, err
	}
	if l != nil && !l.Expiry.IsZero() && time.Until(l.Expiry) < time.Minute && l.RefreshToken != "" {
		a.refresh(ctx, l) // on failure the old token is sent; its 401 starts a flow
		l, _ = a.current()
	}
	resp, err := next.RoundTrip(a.authorized(req, l))
	if err != nil {
		return resp, err
	}
	for range maxAuthorizations + 1 {
		ch, retry := a.challenged(resp)
		if !retry || (req.Body != nil && req.GetBody == nil) {
			return resp, nil
		}
		drain(resp)
		l2, err := a.answer(ctx, l, ch)
		if err != nil {
			return nil, err
		}
		if l2 == nil { // nothing more to try
			return a.refusal(ch), nil
		}
		l = l2
		r2 := req.Clone(ctx)
		if req.GetBody != nil {
			if r2.Body, err = req.GetBody(); err != nil {
				return nil, err
			}
		}
		if resp, err = next.RoundTrip(a.authorized(r2, l)); err != nil {
			return resp, err
		}
	}
	return resp, nil
}

// authorized returns req with l's token, or req itself without a login or
// when req goes to another origin than the server's (the token is for the
// server only; mcp-go's HTTP+SSE transport and the redirect rule keep
// requests on that origin anyway).
func (a *loginAuth) authorized(req *http.Request, l *tokenstore.Login) *http.Request {
	if l == nil || l.AccessToken == "" {
		return req
	}
	if su, err := url.Parse(a.serverURL); err != nil || origin(su) != origin(req.URL) {
		return req
	}
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+l.AccessToken)
	return r
}

// challenge is an RFC 6750 §3 Bearer challenge of a 401 or 403 answer.
type challenge struct {
	status           int
	errCode          string
	scope            []string
	resourceMetadata string
}

// challenged parses resp's challenge and reports whether it asks for OAuth
// authorization: a 401 with a Bearer challenge (RFC 6750 §3, which MCP
// authorization requires), or a 403 with error="insufficient_scope". A 401
// without one (a server that wants an API key, Basic authentication, …) is
// passed on: no login can help it.
func (a *loginAuth) challenged(resp *http.Response) (challenge, bool) {
	ch := challenge{status: resp.StatusCode}
	bearer := false
	for _, h := range resp.Header.Values("WWW-Authenticate") {
		params := parseBearerChallenge(h)
		if params == nil {
			continue
		}
		bearer = true
		ch.errCode = params["error"]
		ch.scope = strings.Fields(params["scope"])
		ch.resourceMetadata = params["resource_metadata"]
		break
	}
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		return ch, bearer
	case http.StatusForbidden:
		return ch, bearer && ch.errCode == "insufficient_scope"
	}
	return ch, false
}

// refusal is the answer given to the transport when no flow can help: the
// status of the challenge with an empty body (the original was drained).
func (a *loginAuth) refusal(ch challenge) *http.Response {
	return &http.Response{StatusCode: ch.status, Status: fmt.Sprintf("%d %s", ch.status, http.StatusText(ch.status)),
		Header: http.Header{}, Body: io.NopCloser(strings.NewReader("")), ProtoMajor: 1, ProtoMinor: 1}
}

// answer gets a better login for a challenge to a request sent with l: a
// refreshed token, or a new authorization. nil when there is nothing to
// try.
func (a *loginAuth) answer(ctx context.Context, l *tokenstore.Login, ch challenge) (*tokenstore.Login, error) {
	a.flowMu.Lock()
	defer a.flowMu.Unlock()
	// Another request may have replaced the login meanwhile.
	if cur, _ := a.current(); cur != nil && (l == nil || cur.AccessToken != l.AccessToken) {
		return cur, nil
	}
	scopes := a.cfg.Scopes
	if len(scopes) == 0 {
		scopes = ch.scope
	}
	if ch.status == http.StatusUnauthorized && l != nil && l.RefreshToken != "" {
		if l2 := a.refresh(ctx, l); l2 != nil {
			return l2, nil
		}
	}
	if ch.status == http.StatusForbidden && l != nil {
		scopes = union(l.Scopes, ch.scope)
	}
	a.mu.Lock()
	set := strings.Join(sortedCopy(scopes), " ")
	repeated := slices.Contains(a.asked, set) && ch.status == http.StatusForbidden
	over := a.flows >= maxAuthorizations
	a.mu.Unlock()
	if repeated || over {
		return nil, nil
	}
	if a.cfg.Authorize == nil {
		reason := "no stored login"
		if l != nil {
			reason = "the stored login was refused and could not be refreshed"
		}
		return nil, &LoginRequiredError{Server: redactURL(a.serverURL), Reason: reason, ClientID: a.cfg.ClientID}
	}
	a.mu.Lock()
	a.flows++
	a.asked = append(a.asked, set)
	a.mu.Unlock()
	l2, err := a.authorize(ctx, ch, scopes, len(a.cfg.Scopes) == 0 && len(ch.scope) == 0)
	if err != nil {
		return nil, redactSecrets(err, a.secretValues())
	}
	return l2, nil
}

// refresh exchanges l's refresh token; the new login, or nil when that
// failed.
func (a *loginAuth) refresh(ctx context.Context, l *tokenstore.Login) *tokenstore.Login {
	conf := loginConfig(l, "", nil)
	hc := &http.Client{Transport: addResource{next: a.hc.Transport, tokenURL: l.TokenEndpoint, resource: l.Resource}, Timeout: a.hc.Timeout, CheckRedirect: a.hc.CheckRedirect}
	tok, err := conf.TokenSource(context.WithValue(ctx, oauth2.HTTPClient, hc), &oauth2.Token{RefreshToken: l.RefreshToken}).Token()
	if err != nil || tok.AccessToken == "" {
		return nil
	}
	l2 := *l
	l2.AccessToken, l2.TokenType, l2.Expiry = tok.AccessToken, tok.Type(), tok.Expiry
	if tok.RefreshToken != "" {
		l2.RefreshToken = tok.RefreshToken
	}
	if err := a.setLogin(&l2); err != nil {
		return nil
	}
	return &l2
}

// addResource adds the RFC 8707 resource to token requests (x/oauth2's
// refresh sends no extra parameters).
type addResource struct {
	next               http.RoundTripper
	tokenURL, resource string
}

func (t addResource) RoundTrip(req *http.Request) (*http.Response, error) {
	next := t.next
	if next == nil {
		next = http.DefaultTransport
	}
	if t.resource == "" || req.Method != http.MethodPost || req.URL.String() != t.tokenURL || req.Body == nil {
		return next.RoundTrip(req)
	}
	body, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return nil, err
	}
	v, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, err
	}
	if v.Get("resource") == "" {
		v.Set("resource", t.resource)
	}
	enc := v.Encode()
	r := req.Clone(req.Context())
	r.Body, r.ContentLength = io.NopCloser(strings.NewReader(enc)), int64(len(enc))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(enc)), nil }
	return next.RoundTrip(r)
}

// loginConfig is the x/oauth2 configuration of l's client.
func loginConfig(l *tokenstore.Login, redirect string, scopes []string) *oauth2.Config {
	style := oauth2.AuthStyleInParams // client_secret_post, and none (no secret: client_id only)
	if l.AuthMethod == authBasic {
		style = oauth2.AuthStyleInHeader
	}
	secret := l.ClientSecret
	if l.AuthMethod == authNone {
		secret = ""
	}
	return &oauth2.Config{
		ClientID:     l.ClientID,
		ClientSecret: secret,
		Endpoint:     oauth2.Endpoint{AuthURL: l.AuthorizationEndpoint, TokenURL: l.TokenEndpoint, AuthStyle: style},
		RedirectURL:  redirect,
		Scopes:       scopes,
	}
}

// Token endpoint client authentication methods (RFC 7591 §2).
const (
	authBasic = "client_secret_basic"
	authPost  = "client_secret_post"
	authNone  = "none"
)

// asMetadata is the part of authorization server metadata (RFC 8414 §2)
// that the flow reads.
type asMetadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint"`
	ScopesSupported                   []string `json:"scopes_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	ClientIDMetadataDocumentSupported bool     `json:"client_id_metadata_document_supported"`
}

// prMetadata is the part of protected resource metadata (RFC 9728 §2) that
// the flow reads.
type prMetadata struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
}

// getJSON GETs u (an OAuth metadata document) into v with hc. It returns
// the HTTP status; v is set only on 200.
func getJSON(ctx context.Context, hc *http.Client, u string, v any) (status int, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return 0, redactErr(err, u)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		return resp.StatusCode, nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return resp.StatusCode, fmt.Errorf("reading the answer: %w", err)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return resp.StatusCode, fmt.Errorf("not a JSON object: %w", err)
	}
	return resp.StatusCode, nil
}

// findProtectedResource reads the first protected resource metadata (RFC
// 9728) found at the candidate URLs for the MCP server at serverURL, and
// checks that it binds to the server and names an authorization server.
// None found: nil, with a note per URL tried. flow names the errors'
// *TokenError flow.
func findProtectedResource(ctx context.Context, hc *http.Client, serverURL string, candidates []string, flow string) (*prMetadata, []string, error) {
	var notes []string
	for _, u := range candidates {
		fail := func(err error) (*prMetadata, []string, error) {
			return nil, nil, &TokenError{What: "protected resource metadata", URL: redactURL(u), Err: err, flow: flow}
		}
		var p prMetadata
		status, err := getJSON(ctx, hc, u, &p)
		if err != nil {
			return fail(err)
		}
		if status != http.StatusOK {
			notes = append(notes, fmt.Sprintf("%s: HTTP %d", redactURL(u), status))
			continue
		}
		if p.Resource != "" && !resourceBinds(p.Resource, serverURL) {
			return fail(fmt.Errorf("its resource %q is not the MCP server's URL or a prefix of it (RFC 9728 §3.3)", p.Resource))
		}
		if len(p.AuthorizationServers) == 0 || p.AuthorizationServers[0] == "" {
			return fail(errors.New("it lists no authorization_servers"))
		}
		return &p, nil, nil
	}
	return nil, notes, nil
}

// discover finds the protected resource metadata (nil for a 2025-03-26
// server without it) and the authorization server's metadata.
func (a *loginAuth) discover(ctx context.Context, ch challenge) (*prMetadata, *asMetadata, error) {
	fail := func(what, u string, err error) error {
		return &TokenError{What: what, URL: redactURL(u), Err: err, flow: "OAuth login"}
	}
	var candidates []string
	if rm := ch.resourceMetadata; rm != "" {
		su, _ := url.Parse(a.serverURL)
		ru, err := url.Parse(rm)
		if err != nil || su == nil || origin(ru) != origin(su) {
			return nil, nil, fail("protected resource metadata", rm, errors.New("the server named metadata on another origin (RFC 9728 §5.1: refused)"))
		}
		candidates = append(candidates, rm)
	}
	candidates = append(candidates, protectedResourceURLs(a.serverURL)...)
	prm, _, err := findProtectedResource(ctx, a.hc, a.serverURL, candidates, "OAuth login")
	if err != nil {
		return nil, nil, err
	}
	if prm != nil {
		issuer := prm.AuthorizationServers[0]
		if err := checkAuthURL("authorization server", issuer); err != nil {
			return nil, nil, fail("protected resource metadata", a.serverURL, err)
		}
		for _, u := range authServerMetadataURLs(issuer) {
			var md asMetadata
			status, err := getJSON(ctx, a.hc, u, &md)
			if err != nil {
				return nil, nil, fail("authorization server metadata", u, err)
			}
			if status != http.StatusOK {
				continue
			}
			if strings.TrimSuffix(md.Issuer, "/") != strings.TrimSuffix(issuer, "/") {
				return nil, nil, fail("authorization server metadata", u, fmt.Errorf("it names issuer %q, not %q (RFC 8414 §3.3)", md.Issuer, issuer))
			}
			return prm, &md, a.checkEndpoints(&md, u)
		}
		return nil, nil, fail("authorization server metadata", issuer, errors.New("none found at the RFC 8414 or OpenID Connect well-known locations"))
	}
	// 2025-03-26: the authorization base URL is the server's origin.
	su, err := url.Parse(a.serverURL)
	if err != nil {
		return nil, nil, err
	}
	base := (&url.URL{Scheme: su.Scheme, Host: su.Host}).String()
	for _, u := range authServerMetadataURLs(base) {
		var md asMetadata
		status, err := getJSON(ctx, a.hc, u, &md)
		if err != nil {
			return nil, nil, fail("authorization server metadata", u, err)
		}
		if status == http.StatusOK {
			return nil, &md, a.checkEndpoints(&md, u)
		}
	}
	return nil, &asMetadata{Issuer: base, AuthorizationEndpoint: base + "/authorize", TokenEndpoint: base + "/token", RegistrationEndpoint: base + "/register"}, nil
}

// checkEndpoints requires usable endpoints in md (read from u).
func (a *loginAuth) checkEndpoints(md *asMetadata, u string) error {
	for _, e := range []struct{ name, v string }{{"authorization_endpoint", md.AuthorizationEndpoint}, {"token_endpoint", md.TokenEndpoint}} {
		if e.v == "" {
			return &TokenError{What: "authorization server metadata", URL: redactURL(u), Err: fmt.Errorf("it names no %s", e.name), flow: "OAuth login"}
		}
		if err := checkAuthURL(e.name, e.v); err != nil {
			return &TokenError{What: "authorization server metadata", URL: redactURL(u), Err: err, flow: "OAuth login"}
		}
	}
	if md.RegistrationEndpoint != "" {
		if err := checkAuthURL("registration_endpoint", md.RegistrationEndpoint); err != nil {
			return &TokenError{What: "authorization server metadata", URL: redactURL(u), Err: err, flow: "OAuth login"}
		}
	}
	if len(md.CodeChallengeMethodsSupported) > 0 && !slices.Contains(md.CodeChallengeMethodsSupported, "S256") {
		return &TokenError{What: "authorization server metadata", URL: redactURL(u), Err: errors.New("it does not support PKCE with S256, which MCP authorization requires"), flow: "OAuth login"}
	}
	return nil
}

// authorize runs steps 1 to 5 of the flow; fromServer says to take the
// scopes from the protected resource metadata.
func (a *loginAuth) authorize(ctx context.Context, ch challenge, scopes []string, fromServer bool) (*tokenstore.Login, error) {
	prm, md, err := a.discover(ctx, ch)
	if err != nil {
		return nil, err
	}
	resource := a.resource0
	if prm != nil {
		if prm.Resource != "" {
			resource = prm.Resource
		}
		if fromServer {
			scopes = prm.ScopesSupported
		}
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("OAuth login: listening for the browser's redirect on 127.0.0.1: %w", err)
	}
	redirect := fmt.Sprintf("http://127.0.0.1:%d/callback", ln.Addr().(*net.TCPAddr).Port)
	l := &tokenstore.Login{
		Server: a.resource0, ClientKey: a.cfg.ClientID,
		Issuer: md.Issuer, AuthorizationEndpoint: md.AuthorizationEndpoint, TokenEndpoint: md.TokenEndpoint,
		Resource: resource, Scopes: scopes,
	}
	if err := a.client(ctx, md, l, redirect, scopes); err != nil {
		ln.Close()
		return nil, err
	}
	a.mu.Lock()
	a.secrets = append(a.secrets, l.ClientSecret)
	a.mu.Unlock()

	verifier, state := oauth2.GenerateVerifier(), oauth2.GenerateVerifier()
	conf := loginConfig(l, redirect, scopes)
	opts := []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", resource)}
	authURL := conf.AuthCodeURL(state, opts...)

	type result struct{ code, err string }
	got := make(chan result, 1)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		res := result{code: q.Get("code")}
		switch {
		case q.Get("state") != state:
			res = result{err: "the redirect's state does not match the request's (a forged or stale redirect)"}
		case q.Get("error") != "":
			res = result{err: fmt.Sprintf("the authorization server answered error %q (%s)", q.Get("error"), q.Get("error_description"))}
		case res.code == "":
			res = result{err: "the redirect holds no code"}
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if res.err != "" {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, "<!doctype html><title>mcpbind</title><p>mcpbind login failed: %s</p>", html.EscapeString(res.err))
		} else {
			fmt.Fprint(w, "<!doctype html><title>mcpbind</title><p>mcpbind is logged in. You can close this window.</p>")
		}
		select {
		case got <- res:
		default:
		}
	})}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()

	if err := a.cfg.Authorize(ctx, authURL); err != nil {
		return nil, fmt.Errorf("OAuth login: opening the authorization URL: %w", err)
	}
	wait, cancel := context.WithTimeout(ctx, callbackTimeout)
	defer cancel()
	var res result
	select {
	case res = <-got:
	case <-wait.Done():
		return nil, fmt.Errorf("OAuth login: the browser did not come back to %s within %s: %w", redirect, callbackTimeout, wait.Err())
	}
	if res.err != "" {
		return nil, fmt.Errorf("OAuth login: %s", strings.ToValidUTF8(res.err, "?"))
	}
	tok, err := conf.Exchange(context.WithValue(ctx, oauth2.HTTPClient, a.hc), res.code,
		oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", resource))
	if err != nil {
		return nil, a.exchangeError(l.TokenEndpoint, err)
	}
	if tok.AccessToken == "" {
		return nil, &TokenError{What: "token endpoint", URL: redactURL(l.TokenEndpoint), Err: errors.New("the answer holds no access_token"), flow: "OAuth login"}
	}
	l.AccessToken, l.TokenType, l.RefreshToken, l.Expiry = tok.AccessToken, tok.Type(), tok.RefreshToken, tok.Expiry
	if s, ok := tok.Extra("scope").(string); ok && s != "" {
		l.Scopes = strings.Fields(s)
	}
	if err := a.setLogin(l); err != nil {
		return nil, err
	}
	return l, nil
}

// exchangeError describes a failed token request.
func (a *loginAuth) exchangeError(tokenURL string, err error) error {
	te := &TokenError{What: "token endpoint", URL: redactURL(tokenURL), flow: "OAuth login", secrets: a.secretValues()}
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && re.Response != nil {
		te.StatusCode = re.Response.StatusCode
		te.Code, te.Description = re.ErrorCode, re.ErrorDescription
		return te
	}
	te.Err = redactErr(err, tokenURL)
	return te
}

// client fills l's client: the pre-registered one, a client ID metadata
// document, or a dynamically registered one.
func (a *loginAuth) client(ctx context.Context, md *asMetadata, l *tokenstore.Login, redirect string, scopes []string) error {
	methods := md.TokenEndpointAuthMethodsSupported
	switch {
	case a.cfg.ClientID != "":
		l.ClientID, l.ClientSecret = a.cfg.ClientID, a.cfg.ClientSecret
		l.AuthMethod = pickAuthMethod(methods, l.ClientSecret != "")
		return nil
	case a.cfg.ClientMetadataURL != "" && md.ClientIDMetadataDocumentSupported:
		l.ClientID, l.AuthMethod = a.cfg.ClientMetadataURL, authNone
		return nil
	case md.RegistrationEndpoint == "":
		return fmt.Errorf("OAuth login: the authorization server %s offers no dynamic client registration%s; give a pre-registered client with --oauth-client-id",
			redactURL(md.Issuer), map[bool]string{true: " and this client has no metadata document URL (--oauth-client-metadata-url)", false: ""}[md.ClientIDMetadataDocumentSupported])
	}
	name := a.cfg.ClientName
	if name == "" {
		name = "mcpbind"
	}
	reg := map[string]any{
		"client_name":                name,
		"redirect_uris":              []string{redirect},
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": authNone,
	}
	if len(scopes) > 0 {
		reg["scope"] = strings.Join(scopes, " ")
	}
	body, _ := json.Marshal(reg)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, md.RegistrationEndpoint, strings.NewReader(string(body)))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	fail := func(err error) error {
		return &TokenError{What: "registration endpoint", URL: redactURL(md.RegistrationEndpoint), Err: err, flow: "OAuth login"}
	}
	resp, err := a.hc.Do(req)
	if err != nil {
		return fail(redactErr(err, md.RegistrationEndpoint))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fail(err)
	}
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		var oe struct {
			Code string `json:"error"`
			Desc string `json:"error_description"`
		}
		_ = json.Unmarshal(data, &oe)
		return &TokenError{What: "registration endpoint", URL: redactURL(md.RegistrationEndpoint), StatusCode: resp.StatusCode, Code: oe.Code, Description: oe.Desc, flow: "OAuth login"}
	}
	var rr struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
		AuthMethod   string `json:"token_endpoint_auth_method"`
	}
	if err := json.Unmarshal(data, &rr); err != nil || rr.ClientID == "" {
		return fail(errors.New("the answer holds no client_id"))
	}
	l.ClientID, l.ClientSecret = rr.ClientID, rr.ClientSecret
	switch rr.AuthMethod {
	case authBasic, authPost, authNone:
		l.AuthMethod = rr.AuthMethod
	default:
		l.AuthMethod = pickAuthMethod(methods, rr.ClientSecret != "")
	}
	return nil
}

// pickAuthMethod chooses how a client authenticates at the token endpoint
// from the methods the server lists: none without a secret; with one,
// client_secret_basic when listed (or when nothing is listed: RFC 8414's
// default), else client_secret_post.
func pickAuthMethod(supported []string, secret bool) string {
	switch {
	case !secret:
		return authNone
	case len(supported) == 0 || slices.Contains(supported, authBasic):
		return authBasic
	case slices.Contains(supported, authPost):
		return authPost
	}
	return authBasic
}

// parseBearerChallenge returns the auth-params of a Bearer challenge in a
// WWW-Authenticate value (RFC 9110 §11.6.1), or nil when it holds none.
func parseBearerChallenge(h string) map[string]string {
	// The scheme is a token at the start or after ", " (the end of the
	// previous challenge), followed by a space or the end.
	lower, i := strings.ToLower(h), -1
	for from := 0; from < len(lower); {
		j := strings.Index(lower[from:], "bearer")
		if j < 0 {
			break
		}
		j += from
		before := strings.TrimRight(lower[:j], " \t")
		after := lower[j+len("bearer"):]
		if (before == "" || strings.HasSuffix(before, ",")) && (after == "" || after[0] == ' ' || after[0] == '\t') {
			i = j
			break
		}
		from = j + len("bearer")
	}
	if i < 0 {
		return nil
	}
	s := h[i+len("bearer"):]
	out := map[string]string{}
	for {
		s = strings.TrimLeft(s, " \t,")
		eq := strings.IndexByte(s, '=')
		if eq <= 0 {
			return out
		}
		name := strings.ToLower(strings.TrimSpace(s[:eq]))
		if strings.ContainsAny(name, " \t") { // the next scheme
			return out
		}
		s = strings.TrimLeft(s[eq+1:], " \t")
		var val string
		if strings.HasPrefix(s, `"`) {
			var b strings.Builder
			j := 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' && j+1 < len(s) {
					j++
				}
				b.WriteByte(s[j])
			}
			val, s = b.String(), s[min(j+1, len(s)):]
		} else {
			end := strings.IndexAny(s, ", \t")
			if end < 0 {
				end = len(s)
			}
			val, s = s[:end], s[end:]
		}
		if _, dup := out[name]; !dup {
			out[name] = val
		}
	}
}

// union is a's scopes followed by those of b not in a.
func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// drain reads and closes a body that is replaced by a retry's.
func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	_ = resp.Body.Close()
}
