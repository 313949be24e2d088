package mcpconn

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpbind/mcpbind/internal/redact"
)

// Redirects. Every request to an HTTP server may carry credentials: the
// Authorization header of WithBearerToken or WithOAuthClientCredentials, the
// headers of WithHeader, and, to a token endpoint, the OAuth client secret
// in the body (which a 307 or 308 sends again). net/http follows redirects
// with all custom headers, and keeps Authorization for the same host on
// another port. So every HTTP client of this package follows a redirect only
// within the origin (RFC 6454: scheme, host and port) of the request that
// started it, and refuses one to another origin with a *RedirectError
// instead of sending the credentials there.

// maxRedirects bounds a chain of same-origin redirects, as net/http does.
const maxRedirects = 10

// RedirectError: see composition.RedirectError, which documents it for users.
type RedirectError struct {
	// Method is the HTTP method of the redirected request, such as "POST".
	Method string
	// From is the URL that was redirected; To the URL it redirected to.
	From, To string
	// Status is the HTTP status of the redirect, such as 307.
	Status int
}

// Error names the request's method, the redirect's status and both URLs
// (without credentials), and why the redirect was refused.
func (e *RedirectError) Error() string {
	return fmt.Sprintf("the server redirected a %s (HTTP %d) from %s to %s, another origin; redirects to another scheme, host or port are refused because the request carries credentials (use the redirect's target URL if it is to be trusted)",
		e.Method, e.Status, e.From, e.To)
}

// newHTTPClient is the http.Client of a session or token store: rt sends
// the requests, and redirects stay within one origin.
func newHTTPClient(rt http.RoundTripper) *http.Client {
	return &http.Client{Transport: rt, CheckRedirect: sameOriginRedirect}
}

// sameOriginRedirect is an http.Client CheckRedirect that refuses a
// redirect to another origin than that of the first request.
func sameOriginRedirect(req *http.Request, via []*http.Request) error {
	if len(via) == 0 {
		return nil
	}
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	first := via[0]
	if origin(first.URL) == origin(req.URL) {
		return nil
	}
	e := &RedirectError{Method: first.Method, From: redact.URL(first.URL.String()), To: redact.URL(req.URL.String())}
	if req.Response != nil {
		e.Status = req.Response.StatusCode
	}
	return e
}

// origin is u's scheme, host and port (the scheme's default port when none
// is given), lower case.
func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return scheme + "://" + strings.ToLower(u.Hostname()) + ":" + port
}
