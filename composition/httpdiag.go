package composition

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
)

// httpRecorder is the http.RoundTripper of a session's HTTP client. It
// passes requests on unchanged and remembers the last response with a status
// other than 2xx (its status and the start of its body), so that a failed
// Connect can say "HTTP 404 Not Found" where mcp-go reports a session or
// legacy-SSE error.
type httpRecorder struct {
	next *http.Transport

	mu   sync.Mutex
	last string
}

func newHTTPRecorder() *httpRecorder {
	var next *http.Transport
	if dt, ok := http.DefaultTransport.(*http.Transport); ok {
		next = dt.Clone()
	} else {
		next = &http.Transport{Proxy: http.ProxyFromEnvironment}
	}
	return &httpRecorder{next: next}
}

// RoundTrip sends req and records a non-2xx answer.
func (r *httpRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	if err != nil || (resp.StatusCode >= 200 && resp.StatusCode < 300) {
		return resp, err
	}
	const peekSize = 512
	peek, _ := io.ReadAll(io.LimitReader(resp.Body, peekSize))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(peek), resp.Body), resp.Body}
	desc := fmt.Sprintf("the server answered a %s with HTTP %s", req.Method, resp.Status)
	if body := strings.TrimSpace(string(peek)); body != "" && resp.StatusCode != http.StatusNotFound {
		desc += fmt.Sprintf(" (body: %q)", truncate(body, 200))
	}
	if resp.StatusCode == http.StatusNotFound {
		desc += "; is this the server's MCP endpoint?"
	}
	r.mu.Lock()
	r.last = desc
	r.mu.Unlock()
	return resp, nil
}

// lastFailure describes the last non-2xx answer, or "".
func (r *httpRecorder) lastFailure() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// close drops idle connections.
func (r *httpRecorder) close() { r.next.CloseIdleConnections() }

// redactingError replaces a URL that may carry credentials in an error's
// message; Unwrap keeps the original for errors.Is and errors.As.
type redactingError struct {
	err error
	msg string
}

func (e *redactingError) Error() string { return e.msg }
func (e *redactingError) Unwrap() error { return e.err }

// redactErr returns err with every occurrence of rawURL (and its forms that
// net/http prints) in its message replaced by the redacted URL.
func redactErr(err error, rawURL string) error {
	if err == nil {
		return nil
	}
	safe := redactURL(rawURL)
	msg := err.Error()
	replaced := msg
	for _, s := range urlForms(rawURL) {
		if s != "" && s != safe {
			replaced = strings.ReplaceAll(replaced, s, safe)
		}
	}
	if replaced == msg {
		return err
	}
	return &redactingError{err: err, msg: replaced}
}

// urlForms lists how rawURL may appear in messages: as given, as net/url
// prints it, and with the password masked as net/http does.
func urlForms(rawURL string) []string {
	forms := []string{rawURL}
	if u, err := url.Parse(rawURL); err == nil {
		forms = append(forms, u.String(), u.Redacted())
	}
	// Longest first, so that no form is replaced inside a longer one.
	sort.Slice(forms, func(i, j int) bool { return len(forms[i]) > len(forms[j]) })
	return forms
}
