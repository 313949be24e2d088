package mcpconn

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"

	"github.com/mcpbind/mcpbind/internal/redact"
)

// httpRecorder is the http.RoundTripper of a session's HTTP client. It
// passes requests on unchanged and remembers the last response with a status
// other than 2xx (its status and the start of its body), so that a failed
// Connect can say "HTTP 404 Not Found" where mcp-go reports a session or
// legacy-SSE error. It also keeps, per JSON-RPC method, the status of the
// last such answer (for the HTTP+SSE fallback of connect.go).
type httpRecorder struct {
	next *http.Transport
	// eventStream makes a 2xx answer to a GET an error unless it is a
	// text/event-stream: the GET of the HTTP+SSE transport must open one, and
	// mcp-go would otherwise wait for an "endpoint" event in, say, an HTML
	// page until its endpoint timeout.
	eventStream bool
	// unauthorized, if set, is called on each 401 answer.
	unauthorized func(authorization string)
	// secrets are redacted from a quoted body before it is cut.
	secrets []string
	// maxResponseBytes bounds each message of a 2xx answer (limits.go).
	maxResponseBytes int64

	mu       sync.Mutex
	last     string
	statuses map[string]int
	limit    *LimitError // the first limit an answer exceeded
}

// limitErr returns the first limit an answer exceeded, or nil.
func (r *httpRecorder) limitErr() *LimitError {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.limit
}

// limitBody bounds the messages of a 2xx answer's body: each event of an
// event stream, or the whole of any other body.
func (r *httpRecorder) limitBody(resp *http.Response) {
	max := r.maxResponseBytes
	if max <= 0 {
		max = DefaultMaxResponseBytes
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	events := mt == "text/event-stream"
	resp.Body = &limitReader{r: resp.Body, maxBytes: max, events: events, total: !events,
		onLimit: func(e *LimitError) {
			r.mu.Lock()
			defer r.mu.Unlock()
			if r.limit == nil {
				r.limit = e
			}
		}}
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
	if err != nil {
		return resp, err
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		if r.eventStream && req.Method == http.MethodGet {
			ct := resp.Header.Get("Content-Type")
			if mt, _, _ := mime.ParseMediaType(ct); mt != "text/event-stream" {
				_ = resp.Body.Close()
				desc := fmt.Sprintf("the server answered the GET for its event stream with Content-Type %q, not text/event-stream", ct)
				r.mu.Lock()
				r.last = desc
				r.mu.Unlock()
				return nil, errors.New("not an event stream")
			}
		}
		r.limitBody(resp)
		return resp, nil
	}
	if resp.StatusCode == http.StatusUnauthorized && r.unauthorized != nil {
		r.unauthorized(req.Header.Get("Authorization"))
	}
	// Enough of the body to show bodyShown bytes of it once redacted.
	const bodyShown = 200
	peekSize := int64(bodyShown + redact.Slack(r.secrets))
	peek, _ := io.ReadAll(io.LimitReader(resp.Body, peekSize))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(peek), resp.Body), resp.Body}
	r.limitBody(resp) // mcp-go reads error bodies whole
	desc := fmt.Sprintf("the server answered a %s with HTTP %s", req.Method, resp.Status)
	if body := strings.TrimSpace(string(peek)); body != "" && resp.StatusCode != http.StatusNotFound {
		desc += fmt.Sprintf(" (body: %q)", redact.Head(body, r.secrets, bodyShown, int64(len(peek)) == peekSize))
	}
	switch {
	case resp.StatusCode != http.StatusNotFound:
	case req.Header.Get("Mcp-Session-Id") != "":
		// Streamable HTTP (2025-03-26 and later): a server answers 404 to a
		// request whose Mcp-Session-Id it does not know.
		desc += "; the server does not know this session: it ended or restarted, or a load balancer without Mcp-Session-Id affinity sent the request to another replica"
	default:
		desc += "; is this the server's MCP endpoint?"
	}
	r.mu.Lock()
	r.last = desc
	if method, ok := req.Context().Value(rpcMethodKey{}).(string); ok {
		if r.statuses == nil {
			r.statuses = map[string]int{}
		}
		r.statuses[method] = resp.StatusCode
	}
	r.mu.Unlock()
	return resp, nil
}

// rpcMethodKey is the context key under which rawTransport passes the
// JSON-RPC method of a request down to the round tripper.
type rpcMethodKey struct{}

// failedStatus is the HTTP status of the last non-2xx answer to a request
// carrying the JSON-RPC method, or 0.
func (r *httpRecorder) failedStatus(method string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.statuses[method]
}

// lastFailure describes the last non-2xx answer, or "".
func (r *httpRecorder) lastFailure() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// close drops idle connections.
func (r *httpRecorder) close() { r.next.CloseIdleConnections() }

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
	// Any other URL in the message (a redirect target, the endpoint an
	// HTTP+SSE server named) loses its user information and query too.
	replaced = redact.URLs(replaced)
	return redact.Wrap(err, replaced)
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
