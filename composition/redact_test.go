package composition

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// secretToken is a credential made of letters that no message of this
// package holds, so that any part of it in an output shows as one of them.
const secretToken = "QZXQZXQZXQZXQZXQ"

func leaksToken(s string) bool { return strings.ContainsAny(s, "QZX") }

// connectErr connects with a bound and returns the error's message.
func connectErr(t *testing.T, tr Transport, opts ...Option) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := Connect(ctx, tr, opts...)
	if err == nil {
		_ = s.Close()
		t.Fatal("Connect succeeded")
	}
	return err.Error()
}

// TestRedactStdioOutputAtEveryCut: a stdio server that prints its secret
// environment value, repeated, on stdout (a junk line, shown up to 200
// bytes) and stderr (a tail of 4 KiB), starting at every offset around the
// cuts, never shows a part of it, neither in the ConnectError nor in the
// stderr copy of WithStderr.
func TestRedactStdioOutputAtEveryCut(t *testing.T) {
	for _, at := range []int{0, 1, 5, 150, 180, 185, 190, 199, 200, 201, 3500, 4090, 4095, 4096, 4100} {
		at := at
		t.Run(fmt.Sprint(at), func(t *testing.T) {
			// The token 300 times (4,800 bytes) after at bytes of padding, as the
			// answer to the first request (read first, so that writing the request
			// never races the exit: a broken pipe would hide the junk line).
			script := fmt.Sprintf(`read -r req; pad=$(printf '%%*s' %d '' | tr ' ' .); run=""; i=0; while [ $i -lt 300 ]; do run="$run$TOKEN"; i=$((i+1)); done; printf '%%s%%s\n' "$pad" "$run"; printf '%%s%%s\n' "$pad" "$run" >&2; exit 1`, at)
			var copied syncBuffer
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, err := Connect(ctx, Stdio("sh", "-c", script), WithEnv("TOKEN="+secretToken), WithStderr(&copied))
			if err == nil {
				t.Fatal("Connect succeeded")
			}
			msg, tail := err.Error(), StderrTail(err)
			if leaksToken(msg) || leaksToken(tail) {
				t.Errorf("the error shows part of the secret:\n%s\nstderr tail:\n%s", msg, tail)
			}
			// The stderr tail is kept out of the message (StderrTail).
			if !strings.Contains(msg, "not JSON-RPC") || !strings.Contains(tail, "***") {
				t.Errorf("the error does not show the redacted output:\n%s\nstderr tail:\n%s", msg, tail)
			}
			if c := copied.String(); leaksToken(c) || !strings.Contains(c, "***") {
				t.Errorf("WithStderr got %q", c)
			}
		})
	}
}

// TestRedactHTTPBodyAtEveryCut: an HTTP server that echoes the bearer token,
// repeated, in a 401 body (shown up to 200 bytes) never gets a part of it
// shown, whatever the offset.
func TestRedactHTTPBodyAtEveryCut(t *testing.T) {
	for at := 150; at <= 220; at += 3 {
		at := at
		url := httpServer(t, func(w http.ResponseWriter, r *http.Request) {
			tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			http.Error(w, strings.Repeat(".", at)+strings.Repeat(tok, 100), http.StatusUnauthorized)
		})
		msg := connectErr(t, HTTP(url+"/mcp?token=query-secret-value"), WithBearerToken(secretToken))
		if leaksToken(msg) || strings.Contains(msg, "query-secret") {
			t.Errorf("offset %d: the error shows a secret:\n%s", at, msg)
		}
		if !strings.Contains(msg, "401") {
			t.Errorf("offset %d: %s", at, msg)
		}
	}
}
