package mcpconn

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpbind/mcpbind/internal/redact"
)

// bodyToken is a bearer token made of letters that no message of this
// package holds, so that any part of it in an output shows as one of them.
const bodyToken = "QZXQZXQZXQZXQZXQ"

// unauthorizedErr dials with bodyToken to a server that answers 401 with
// body(token) and returns the error's message.
func unauthorizedErr(t *testing.T, body func(token string) string) string {
	t.Helper()
	return statusErr(t, http.StatusUnauthorized, body)
}

// statusBodyErr is statusErr with a fixed body.
func statusBodyErr(t *testing.T, status int, body string) string {
	t.Helper()
	return statusErr(t, status, func(string) string { return body })
}

// statusErr dials with bodyToken to a server that answers every request
// with status and body(token) and returns the error's message.
func statusErr(t *testing.T, status int, body func(token string) string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))))
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	c, err := Dial(ctx, HTTP(srv.URL+"/mcp"), WithBearerToken(bodyToken))
	if err == nil {
		_ = c.Close()
		t.Fatal("Dial succeeded")
	}
	return err.Error()
}

// TestHTTPBodyRedactedAtEveryCut moves the HTTP error body shown in a
// message (its first 200 bytes once redacted, out of a peek of 200 bytes
// plus redact.Slack, the last Slack bytes of a clipped peek dropped) across
// the cut one byte at a time:
//   - a body longer than the peek that repeats the token after `at` dots:
//     whether the redacted peek stays longer than 200 bytes or shrinks below
//     them ("***" is shorter than the token), no part of the token shows,
//     the message says the body goes on ("…"), and a body whose token
//     starts beyond the peek shows its first 200 bytes;
//   - a body shorter than the peek, the token then `at` dots and "END":
//     it is not clipped, so when it fits in 200 bytes once redacted it is
//     shown whole, END included.
func TestHTTPBodyRedactedAtEveryCut(t *testing.T) {
	const shown = 200
	peek := shown + redact.Slack([]string{bodyToken})
	for at := 0; at <= peek+20; at++ {
		msg := unauthorizedErr(t, func(tok string) string { return strings.Repeat(".", at) + strings.Repeat(tok, 100) })
		if strings.ContainsAny(msg, "QZX") || !strings.Contains(msg, "401") || !strings.Contains(msg, "…") {
			t.Fatalf("long body, token after %d bytes: %s", at, msg)
		}
		if want := `(body: "` + strings.Repeat(".", shown) + `…")`; at >= peek && !strings.Contains(msg, want) {
			t.Fatalf("long body, token after %d bytes: %s; want the first %d bytes shown", at, msg, shown)
		}
		msg = unauthorizedErr(t, func(tok string) string { return tok + strings.Repeat(".", at) + "END" })
		fits := len("***")+at+len("END") <= shown
		if strings.ContainsAny(msg, "QZX") || !strings.Contains(msg, "401") || strings.Contains(msg, "END") != fits {
			t.Fatalf("short body, END after %d bytes (shown whole: %t): %s", at, fits, msg)
		}
	}
}

// TestHTTP404SaysWhere: an HTTP 404 answer is described with a hint that the
// URL may not be the server's MCP endpoint, and without its body (a web
// server's "not found" page says nothing about MCP); another error status
// shows its body.
func TestHTTP404SaysWhere(t *testing.T) {
	notFound := statusBodyErr(t, http.StatusNotFound, "<html>page not found</html>")
	if !strings.Contains(notFound, "404") || !strings.Contains(notFound, "is this the server's MCP endpoint?") || strings.Contains(notFound, "page not found") {
		t.Errorf("404: %s", notFound)
	}
	failed := statusBodyErr(t, http.StatusInternalServerError, "database is down")
	if !strings.Contains(failed, "500") || !strings.Contains(failed, "database is down") || strings.Contains(failed, "MCP endpoint") {
		t.Errorf("500: %s", failed)
	}
}
