package mcpconn

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/mcpbind/mcpbind/internal/loopback"
	"github.com/mcpbind/mcpbind/internal/redact"
)

// Credentials for HTTP servers (MCP authorization, 2025-06-18 and later).
//
// Both options hand their access token to mcp-go's OAuth support: the
// Streamable HTTP and HTTP+SSE transports are built with an OAuthConfig
// whose TokenStore is one of ours, so mcp-go's OAuthHandler sets
// "Authorization: <type> <token>" on every request and turns a 401 answer
// into its OAuthAuthorizationRequiredError. mcp-go itself implements only the
// authorization-code flow with PKCE, which needs a browser; the
// client-credentials grant (RFC 6749 §4.4) for unattended clients is done
// here with golang.org/x/oauth2/clientcredentials, and its tokens are put in
// the store, fetched again shortly before they expire or after the server
// refused one.

// authConfig holds the credential options.
type authConfig struct {
	bearer    string
	bearerSet bool
	cc        *OAuthClientCredentials
	login     *OAuthLogin // authcode.go
}

// WithBearerToken: see composition.WithBearerToken, which documents it for users.
func WithBearerToken(token string) Option {
	return Option{func(c *config) { c.conn.auth.bearer, c.conn.auth.bearerSet = token, true }}
}

// OAuthClientCredentials: see composition.OAuthClientCredentials, which documents it for users.
type OAuthClientCredentials struct {
	// TokenURL is the token endpoint. At most one of TokenURL and Issuer may
	// be set; with neither, the authorization server is discovered from the
	// MCP server's protected resource metadata (RFC 9728: the JSON document
	// at /.well-known/oauth-protected-resource followed by the MCP URL's
	// path, then at /.well-known/oauth-protected-resource), whose first
	// authorization_servers entry is taken as the issuer.
	TokenURL string
	// Issuer is the authorization server's issuer URL. Its metadata is read
	// from the well-known locations of RFC 8414 and OpenID Connect Discovery
	// (as the MCP authorization specification lists them), must name the
	// same issuer, and gives the token endpoint and the client
	// authentication methods it supports.
	Issuer string
	// ClientID and ClientSecret identify the client; both are required. The
	// secret is sent with HTTP Basic authentication or in the request body,
	// as the server's metadata says (when unknown: Basic first, then the
	// body). It never appears in errors or warnings.
	ClientID, ClientSecret string
	// PrivateKeyPEM, instead of ClientSecret, authenticates the client with
	// private_key_jwt (RFC 7523 §2.2, the SEP-1046 extension): a PEM
	// private key (PKCS #8, or SEC 1 EC / PKCS #1 RSA) that signs a short-lived
	// JWT assertion per token request (ES256, ES384 or ES512 for ECDSA keys
	// by curve, RS256 for RSA, EdDSA for Ed25519), whose audience is the
	// authorization server's issuer (its token URL when only that is
	// known). It never appears in errors or warnings.
	PrivateKeyPEM string
	// Scopes are the scopes asked for ("scope" parameter); none: the
	// server's default.
	Scopes []string
	// Resource is the RFC 8707 "resource" parameter that the MCP
	// authorization specification requires with token requests: the
	// protected resource metadata's "resource", else the MCP server's URL
	// without user information, query and fragment, when empty.
	Resource string
}

// WithOAuthClientCredentials: see composition.WithOAuthClientCredentials, which documents it for users.
func WithOAuthClientCredentials(cc OAuthClientCredentials) Option {
	cc.Scopes = slices.Clone(cc.Scopes)
	return Option{func(c *config) {
		cp := cc
		c.conn.auth.cc = &cp
	}}
}

// TokenError: see composition.TokenError, which documents it for users.
type TokenError struct {
	// What was asked: "token endpoint", "authorization server metadata" or
	// "protected resource metadata".
	What string
	// URL is where, without user information, query and fragment.
	URL string
	// StatusCode is the HTTP status of the failed answer; 0 when there was
	// none (the request failed, or the answer was unusable).
	StatusCode int
	// Code and Description are the "error" and "error_description" of an
	// RFC 6749 §5.2 error answer, when the server sent one.
	Code, Description string
	// Err is the underlying error, when there is one beyond the answer.
	Err error

	body    string   // the start of a non-RFC 6749 error answer
	secrets []string // values redacted from the message
	flow    string   // what was being done; "": "OAuth client credentials"
}

// Error says what failed, where, and why.
func (e *TokenError) Error() string {
	flow := e.flow
	if flow == "" {
		flow = "OAuth client credentials"
	}
	msg := flow + ": " + e.What + " " + e.URL
	switch {
	case e.StatusCode != 0:
		msg += fmt.Sprintf(" answered HTTP %d %s", e.StatusCode, http.StatusText(e.StatusCode))
		if e.Code != "" {
			msg += ": " + e.Code
			if e.Description != "" {
				msg += " (" + e.Description + ")"
			}
		} else if e.body != "" {
			msg += fmt.Sprintf(" (body: %q)", e.body)
		}
	case e.Err != nil:
		msg += ": " + e.Err.Error()
	}
	for _, s := range e.secrets {
		if s != "" {
			msg = strings.ReplaceAll(msg, s, "***")
		}
	}
	return msg
}

// Unwrap returns Err.
func (e *TokenError) Unwrap() error { return e.Err }

// authState is the credential of one Connect, shared by its attempts.
type authState struct {
	store interface {
		transport.TokenStore
		prime(ctx context.Context) error
		invalidate(authorization string)
		secrets() []string
	}
	hc    *http.Client
	login *loginAuth // WithOAuthLogin; store is nil then
}

// newAuthState checks the credential options; nil when there are none.
func newAuthState(a *authConfig, serverURL string) (*authState, error) {
	if !a.bearerSet && a.cc == nil && a.login == nil {
		return nil, nil
	}
	hc := newHTTPClient(&http.Transport{Proxy: http.ProxyFromEnvironment, DisableKeepAlives: true})
	hc.Timeout = 30 * time.Second
	if a.login != nil {
		if a.bearerSet || a.cc != nil {
			return nil, errors.New("WithOAuthLogin and WithBearerToken or WithOAuthClientCredentials both authorize; give one")
		}
		if u := a.login.ClientMetadataURL; u != "" {
			if p, err := url.Parse(u); err != nil || p.Scheme != "https" || p.Host == "" || p.Path == "" || p.Path == "/" {
				return nil, errors.New("WithOAuthLogin: the client metadata document URL must be an https URL with a path")
			}
		}
		if a.login.ClientSecret != "" && a.login.ClientID == "" {
			return nil, errors.New("WithOAuthLogin: a client secret without a client ID")
		}
		return &authState{hc: hc, login: newLoginAuth(a.login, serverURL, hc)}, nil
	}
	if a.bearerSet {
		if a.cc != nil {
			return nil, errors.New("WithBearerToken and WithOAuthClientCredentials both set the Authorization header; give one")
		}
		switch {
		case strings.TrimSpace(a.bearer) == "":
			return nil, errors.New("WithBearerToken: the token is empty")
		case strings.ContainsAny(a.bearer, "\r\n\x00"):
			return nil, errors.New("WithBearerToken: the token holds a line break or NUL")
		}
		return &authState{store: &staticToken{token: strings.TrimSpace(a.bearer)}, hc: hc}, nil
	}
	cc := *a.cc
	switch {
	case cc.ClientID == "":
		return nil, errors.New("WithOAuthClientCredentials: no client ID")
	case cc.ClientSecret == "" && cc.PrivateKeyPEM == "":
		return nil, errors.New("WithOAuthClientCredentials: no client secret or private key (the client-credentials grant needs a confidential client)")
	case cc.ClientSecret != "" && cc.PrivateKeyPEM != "":
		return nil, errors.New("WithOAuthClientCredentials: give the client secret or the private key, not both")
	case cc.TokenURL != "" && cc.Issuer != "":
		return nil, errors.New("WithOAuthClientCredentials: give the token URL or the issuer, not both")
	}
	if cc.TokenURL != "" {
		if err := checkAuthURL("token URL", cc.TokenURL); err != nil {
			return nil, fmt.Errorf("WithOAuthClientCredentials: %w", err)
		}
	}
	if cc.Issuer != "" {
		if err := checkAuthURL("issuer", cc.Issuer); err != nil {
			return nil, fmt.Errorf("WithOAuthClientCredentials: %w", err)
		}
	}
	if cc.Resource != "" {
		if u, err := url.Parse(cc.Resource); err != nil || !u.IsAbs() || u.Fragment != "" {
			return nil, errors.New("WithOAuthClientCredentials: the resource must be an absolute URI without a fragment (RFC 8707)")
		}
	}
	st := &clientCredentialsStore{cc: cc, serverURL: serverURL, hc: hc, sem: make(chan struct{}, 1)}
	if cc.PrivateKeyPEM != "" {
		var err error
		if st.signer, err = newAssertionSigner(cc.PrivateKeyPEM); err != nil {
			return nil, fmt.Errorf("WithOAuthClientCredentials: %w", err)
		}
	}
	return &authState{store: st, hc: hc}, nil
}

// oauthConfig is the mcp-go OAuth configuration that sends the token.
func (a *authState) oauthConfig() transport.OAuthConfig {
	return transport.OAuthConfig{TokenStore: a.store, HTTPClient: a.hc}
}

// prime obtains the first token.
func (a *authState) prime(ctx context.Context) error {
	if a.login != nil {
		_, err := a.login.current() // the token is fetched by the first request's 401
		return err
	}
	return a.store.prime(ctx)
}

// invalidate drops the token that a request carrying authorization was
// refused with (called on an HTTP 401).
func (a *authState) invalidate(authorization string) {
	if a.store != nil {
		a.store.invalidate(authorization)
	}
}

// secrets are the values that must not appear in messages.
func (a *authState) secrets() []string {
	if a.login != nil {
		return a.login.secretValues()
	}
	return a.store.secrets()
}

// annotate explains mcp-go's error for an HTTP 401 answer ("no valid token
// available"), which here means that the server refused the token, and
// keeps secrets out of err's message.
func (a *authState) annotate(err error) error {
	if errors.Is(err, transport.ErrOAuthAuthorizationRequired) {
		detail := "the server answered HTTP 401: it refused the bearer token"
		if _, ok := a.store.(*clientCredentialsStore); ok {
			detail = "the server answered HTTP 401: it refused the access token (the next request gets a new one)"
		}
		err = &detailError{detail: detail, err: err}
	}
	return redactSecrets(err, a.secrets())
}

// staticToken is the store of WithBearerToken.
type staticToken struct{ token string }

// GetToken returns the token.
func (s *staticToken) GetToken(ctx context.Context) (*transport.Token, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &transport.Token{AccessToken: s.token, TokenType: "Bearer"}, nil
}

// SaveToken ignores the token: nothing but WithBearerToken sets it.
func (s *staticToken) SaveToken(context.Context, *transport.Token) error { return nil }

func (s *staticToken) prime(context.Context) error { return nil }
func (s *staticToken) invalidate(string)           {}
func (s *staticToken) secrets() []string           { return []string{s.token} }

// clientCredentialsStore is the store of WithOAuthClientCredentials.
type clientCredentialsStore struct {
	cc        OAuthClientCredentials
	serverURL string
	hc        *http.Client
	sem       chan struct{} // one token fetch at a time

	mu       sync.Mutex
	conf     *clientcredentials.Config // set once the token endpoint is known
	tokenURL string
	audience string           // of private_key_jwt assertions: the issuer, else the token URL
	signer   *assertionSigner // private_key_jwt, or nil (jwtassert.go)
	tok      *oauth2.Token
}

// GetToken returns the current access token, fetching a new one when there
// is none or it expires within ten seconds.
func (s *clientCredentialsStore) GetToken(ctx context.Context) (*transport.Token, error) {
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-s.sem }()

	s.mu.Lock()
	tok, conf, tokenURL, aud := s.tok, s.conf, s.tokenURL, s.audience
	s.mu.Unlock()
	if tok.Valid() {
		return convertToken(tok), nil
	}
	if conf == nil {
		var err error
		if conf, aud, err = s.configure(ctx); err != nil {
			return nil, err
		}
		tokenURL = conf.TokenURL
		s.mu.Lock()
		s.conf, s.tokenURL, s.audience = conf, tokenURL, aud
		s.mu.Unlock()
	}
	if s.signer != nil {
		assertion, err := s.signer.sign(s.cc.ClientID, aud)
		if err != nil {
			return nil, &TokenError{What: "token endpoint", URL: redactURL(tokenURL), Err: err}
		}
		c := *conf
		c.EndpointParams = url.Values{}
		for k, v := range conf.EndpointParams {
			c.EndpointParams[k] = v
		}
		c.EndpointParams.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
		c.EndpointParams.Set("client_assertion", assertion)
		conf = &c
	}
	tok, err := conf.Token(context.WithValue(ctx, oauth2.HTTPClient, s.hc))
	if err != nil {
		return nil, s.tokenError(tokenURL, err)
	}
	if tok.AccessToken == "" {
		return nil, &TokenError{What: "token endpoint", URL: redactURL(tokenURL), Err: errors.New("the answer holds no access_token")}
	}
	s.mu.Lock()
	s.tok = tok
	s.mu.Unlock()
	return convertToken(tok), nil
}

// SaveToken ignores tokens from elsewhere: mcp-go saves only refreshed
// tokens, and client-credentials tokens come with no refresh token.
func (s *clientCredentialsStore) SaveToken(context.Context, *transport.Token) error { return nil }

func (s *clientCredentialsStore) prime(ctx context.Context) error {
	_, err := s.GetToken(ctx)
	return err
}

func (s *clientCredentialsStore) invalidate(authorization string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tok != nil && strings.HasSuffix(authorization, " "+s.tok.AccessToken) {
		s.tok = nil
	}
}

func (s *clientCredentialsStore) secrets() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []string{s.cc.ClientSecret, s.cc.PrivateKeyPEM}
	if s.tok != nil {
		out = append(out, s.tok.AccessToken)
	}
	return out
}

func convertToken(t *oauth2.Token) *transport.Token {
	return &transport.Token{AccessToken: t.AccessToken, TokenType: t.Type(), ExpiresAt: t.Expiry}
}

// tokenError describes a failed token request without the secret.
func (s *clientCredentialsStore) tokenError(tokenURL string, err error) error {
	te := &TokenError{What: "token endpoint", URL: redactURL(tokenURL), secrets: []string{s.cc.ClientSecret}}
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && re.Response != nil {
		te.StatusCode = re.Response.StatusCode
		te.Code, te.Description = re.ErrorCode, re.ErrorDescription
		if te.Code == "" {
			te.body = redact.Cut(strings.TrimSpace(string(re.Body)), te.secrets, 200)
		}
		return te
	}
	te.Err = redactErr(err, tokenURL)
	return te
}

// configure finds the token endpoint and how to authenticate to it.
func (s *clientCredentialsStore) configure(ctx context.Context) (*clientcredentials.Config, string, error) {
	conf := &clientcredentials.Config{
		ClientID:     s.cc.ClientID,
		ClientSecret: s.cc.ClientSecret,
		Scopes:       s.cc.Scopes,
		TokenURL:     s.cc.TokenURL,
	}
	resource := s.cc.Resource
	audience := conf.TokenURL
	if s.signer != nil {
		conf.AuthStyle = oauth2.AuthStyleInParams // client_id with the assertion, no secret
	}
	if conf.TokenURL == "" {
		issuer := s.cc.Issuer
		if issuer == "" {
			var prmResource string
			var err error
			if issuer, prmResource, err = s.protectedResource(ctx); err != nil {
				return nil, "", err
			}
			if resource == "" {
				resource = prmResource
			}
			if err := checkAuthURL("authorization server", issuer); err != nil {
				return nil, "", &TokenError{What: "protected resource metadata", URL: redactURL(s.serverURL), Err: err}
			}
		}
		md, err := s.issuerMetadata(ctx, issuer)
		if err != nil {
			return nil, "", err
		}
		conf.TokenURL, audience = md.TokenEndpoint, issuer
		switch {
		case s.signer != nil:
		case slices.Contains(md.TokenEndpointAuthMethodsSupported, "client_secret_basic"):
			conf.AuthStyle = oauth2.AuthStyleInHeader
		case slices.Contains(md.TokenEndpointAuthMethodsSupported, "client_secret_post"):
			conf.AuthStyle = oauth2.AuthStyleInParams
		}
	}
	if resource == "" {
		resource = canonicalResource(s.serverURL)
	}
	conf.EndpointParams = url.Values{"resource": {resource}}
	return conf, audience, nil
}

// issuerMetadata reads an authorization server's metadata through mcp-go's
// OAuthHandler, from the first well-known location that has it, and checks
// that it names the issuer and a usable token endpoint.
func (s *clientCredentialsStore) issuerMetadata(ctx context.Context, issuer string) (*transport.AuthServerMetadata, error) {
	var last error
	for _, u := range authServerMetadataURLs(issuer) {
		h := transport.NewOAuthHandler(transport.OAuthConfig{AuthServerMetadataURL: u, HTTPClient: s.hc})
		md, err := h.GetServerMetadata(ctx)
		if err != nil {
			last = err
			if ctx.Err() != nil {
				break
			}
			continue
		}
		fail := func(format string, args ...any) error {
			return &TokenError{What: "authorization server metadata", URL: redactURL(u), Err: fmt.Errorf(format, args...)}
		}
		if strings.TrimSuffix(md.Issuer, "/") != strings.TrimSuffix(issuer, "/") {
			return nil, fail("it names issuer %q, not %q (RFC 8414 §3.3)", md.Issuer, issuer)
		}
		if md.TokenEndpoint == "" {
			return nil, fail("it names no token_endpoint")
		}
		if err := checkAuthURL("token_endpoint", md.TokenEndpoint); err != nil {
			return nil, fail("%w", err)
		}
		return md, nil
	}
	return nil, &TokenError{What: "authorization server metadata", URL: redactURL(issuer), Err: fmt.Errorf("none found at the RFC 8414 or OpenID Connect well-known locations: %w", last)}
}

// protectedResource reads the MCP server's protected resource metadata
// (RFC 9728) and returns its first authorization server and its resource.
func (s *clientCredentialsStore) protectedResource(ctx context.Context) (issuer, resource string, err error) {
	prm, notes, err := findProtectedResource(ctx, s.hc, s.serverURL, protectedResourceURLs(s.serverURL), "")
	if err != nil {
		return "", "", err
	}
	if prm == nil {
		return "", "", &TokenError{What: "protected resource metadata", URL: redactURL(s.serverURL),
			Err: fmt.Errorf("none found (%s); give the token URL or the issuer", strings.Join(notes, ", "))}
	}
	return prm.AuthorizationServers[0], prm.Resource, nil
}

// protectedResourceURLs lists where RFC 9728 metadata of serverURL may be:
// the well-known path inserted before the URL's path, then at the root.
func protectedResourceURLs(serverURL string) []string {
	u, err := url.Parse(serverURL)
	if err != nil {
		return nil
	}
	root := &url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/.well-known/oauth-protected-resource"}
	var out []string
	if p := strings.Trim(u.EscapedPath(), "/"); p != "" {
		withPath := *root
		withPath.Path += "/" + strings.Trim(u.Path, "/")
		out = append(out, withPath.String())
	}
	return append(out, root.String())
}

// authServerMetadataURLs lists where the metadata of issuer may be, in the
// order of the MCP authorization specification: RFC 8414 with path
// insertion, then OpenID Connect Discovery with path insertion and
// appended.
func authServerMetadataURLs(issuer string) []string {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" {
		return nil
	}
	base := url.URL{Scheme: u.Scheme, Host: u.Host}
	at := func(p string) string {
		v := base
		v.Path = p
		return v.String()
	}
	p := strings.Trim(u.Path, "/")
	if p == "" {
		return []string{at("/.well-known/oauth-authorization-server"), at("/.well-known/openid-configuration")}
	}
	return []string{
		at("/.well-known/oauth-authorization-server/" + p),
		at("/.well-known/openid-configuration/" + p),
		at("/" + p + "/.well-known/openid-configuration"),
	}
}

// checkAuthURL requires an absolute http(s) URL, https unless the host is a
// loopback address: credentials travel to it.
func checkAuthURL(what, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return fmt.Errorf("the %s %q is not an http or https URL", what, redactURL(raw))
	}
	if u.Scheme == "http" && !loopback.Host(u.Hostname()) {
		return fmt.Errorf("the %s %s must be an https URL (plain http is accepted only on loopback addresses)", what, redactURL(raw))
	}
	return nil
}

// canonicalResource is the MCP server's URL as an RFC 8707 resource: lower
// case scheme and host, no user information, query or fragment.
func canonicalResource(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return (&url.URL{Scheme: strings.ToLower(u.Scheme), Host: strings.ToLower(u.Host), Path: u.Path, RawPath: u.RawPath}).String()
}

// resourceBinds reports whether the resource of protected resource metadata
// names the server at serverURL: same scheme and host, and a path equal to
// the server's or a prefix of it ending at a segment boundary.
func resourceBinds(resource, serverURL string) bool {
	r, err1 := url.Parse(resource)
	s, err2 := url.Parse(serverURL)
	if err1 != nil || err2 != nil || !strings.EqualFold(r.Scheme, s.Scheme) || !strings.EqualFold(r.Host, s.Host) {
		return false
	}
	rp, sp := strings.TrimSuffix(r.EscapedPath(), "/"), strings.TrimSuffix(s.EscapedPath(), "/")
	return rp == sp || strings.HasPrefix(sp, rp+"/")
}

// redactSecrets replaces every secret in err's message with "***", keeping
// err reachable for errors.Is and errors.As.
func redactSecrets(err error, secrets []string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	for _, s := range secrets {
		if s != "" {
			msg = strings.ReplaceAll(msg, s, "***")
		}
	}
	return redact.Wrap(err, msg)
}
