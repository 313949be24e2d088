package composition

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"log/slog"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcpbind/mcpbind/composition/bindimpl"
)

// hostileText holds what a downstream must not get through to our caller
// raw: an ANSI clear-screen and colour, CR, BEL, NUL, DEL, a C1 CSI, the
// bidi override U+202E and the line separator U+2028.
const hostileText = "bad\x1b[2J\x1b[31m\rover\x07\x00\x7f\u009b\u202eevil\u2028line"

// rawControl returns the first character of s that an error text must not
// hold raw (C0 and C1 controls, DEL, bidi controls, U+2028/U+2029, BOM),
// or -1.
func rawControl(s string) rune {
	for _, r := range s {
		switch {
		case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f, r == 0x2028, r == 0x2029, r == 0xfeff,
			r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			return r
		}
	}
	return -1
}

// TestPeerTextEscapedInErrors calls, over stdio, a tool whose isError text
// and a tool whose JSON-RPC error message hold control and bidi characters
// (testservers/hostileserver): the errors' messages escape them, ToolError.Text
// keeps the text as sent.
func TestPeerTextEscapedInErrors(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tr, env := hostile(t, map[string]any{
		"serverInfo": map[string]string{"name": "hostile", "version": "1"},
		"tools": []map[string]any{
			{"name": "fails", "behave": map[string]any{"errorText": hostileText}},
			{"name": "rpc", "behave": map[string]any{"rpcError": hostileText}},
		},
	})
	s, err := Connect(ctx, tr, env)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	_, err = s.CallResult(ctx, "fails", nil)
	var te *ToolError
	if !errors.As(err, &te) || te.Text != hostileText {
		t.Fatalf("want a *ToolError with the text as sent, got %#v", err)
	}
	if r := rawControl(err.Error()); r >= 0 || !strings.Contains(err.Error(), `bad\u001b[2J\u001b[31m\rover\u0007\u0000\u007f\u009b\u202eevil\u2028line`) {
		t.Errorf("tool error message has %U raw or lacks the escaped text: %q", r, err.Error())
	}

	_, err = s.CallResult(ctx, "rpc", nil)
	if err == nil || errors.As(err, &te) {
		t.Fatalf("want a JSON-RPC error, got %v", err)
	}
	if r := rawControl(err.Error()); r >= 0 || !strings.Contains(err.Error(), `\u202eevil`) {
		t.Errorf("JSON-RPC error message has %U raw or lacks the escaped text: %q", r, err.Error())
	}
}

// awsSecret is what a crashing child prints: a secret it inherited from the
// composing server's environment, which no servers.yaml value names.
const awsSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"

// TestChildStderrStaysOutOfErrors: a stdio child that prints
// AWS_SECRET_ACCESS_KEY=… (and control characters) to stderr and exits,
// at start and during a call through a Registry. The stderr tail is in
// StderrTail and the registry's debug log (escaped), never in an error
// message or in ServerStatus.LastError.
func TestChildStderrStaysOutOfErrors(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	stderr := "Traceback: AWS_SECRET_ACCESS_KEY=" + awsSecret + "\n" + hostileText + "\n"
	clean := func(what, msg string) {
		t.Helper()
		if strings.Contains(msg, awsSecret) || strings.Contains(msg, "AWS_SECRET_ACCESS_KEY") || strings.Contains(msg, "Traceback") {
			t.Errorf("%s holds the child's stderr: %q", what, msg)
		}
		if r := rawControl(msg); r >= 0 {
			t.Errorf("%s holds %U raw: %q", what, r, msg)
		}
	}

	// At start: a *ConnectError.
	tr, env := hostile(t, map[string]any{"stderrAtStart": stderr, "exitAtStart": true})
	_, err := Connect(ctx, tr, env)
	var ce *ConnectError
	if !errors.As(err, &ce) {
		t.Fatalf("want a *ConnectError, got %v", err)
	}
	clean("ConnectError.Error()", err.Error())
	if !strings.Contains(ce.Stderr, awsSecret) || !strings.Contains(StderrTail(err), awsSecret) {
		t.Errorf("the stderr tail is not kept for the operator: Stderr %q, StderrTail %q", ce.Stderr, StderrTail(err))
	}

	// During a call through a registry: the session is lost.
	tr, env = hostile(t, map[string]any{
		"serverInfo": map[string]string{"name": "crasher", "version": "1"},
		"tools":      []map[string]any{{"name": "crash", "behave": map[string]any{"crashStderr": stderr}}},
	})
	var logged syncBuffer
	reg := NewRegistry(WithLogger(slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	defer reg.Close()
	if err := reg.Add("crasher", tr, env); err != nil {
		t.Fatal(err)
	}
	_, err = CallRaw(ctx, reg.Server("crasher"), bindimpl.Tool{Name: "crash"}, nil)
	if err == nil {
		t.Fatal("the crash call succeeded")
	}
	clean("the call's error", err.Error())
	if StderrTail(err) == "" {
		t.Errorf("the lost call's error keeps no stderr tail: %v", err)
	}
	for _, st := range reg.Status() {
		clean("ServerStatus.LastError", st.LastError)
	}
	log := logged.String()
	if !strings.Contains(log, `msg="mcp server stderr"`) || !strings.Contains(log, awsSecret) {
		t.Errorf("no debug record with the stderr tail:\n%s", log)
	}
	if bytes.ContainsAny([]byte(log), "\x1b\x07\x00\r") || strings.ContainsRune(log, 0x202e) {
		t.Errorf("the log holds control characters raw:\n%q", log)
	}
}

// TestStderrTailRedactsEveryForm: a stdio child given a token through
// WithEnv prints it to stderr as given, case-folded, base64 (both
// alphabets, inside a Basic header), URL-encoded and cut after 8
// characters, then exits; the kept stderr tail masks every form.
func TestStderrTailRedactsEveryForm(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const token = "Zx9/Qp+Lm?Tok=EN7"
	forms := []string{
		token, strings.ToLower(token), strings.ToUpper(token),
		base64.StdEncoding.EncodeToString([]byte(token)), base64.RawURLEncoding.EncodeToString([]byte(token)),
		"Basic " + base64.StdEncoding.EncodeToString([]byte("user:"+token)),
		url.QueryEscape(token), url.PathEscape(token), token[:8] + "…",
	}
	tr, env := hostile(t, map[string]any{"stderrAtStart": strings.Join(forms, "\n") + "\n", "exitAtStart": true})
	_, err := Connect(ctx, tr, env, WithEnv("MY_TOKEN="+token))
	tail := StderrTail(err)
	if strings.Count(tail, "***") != len(forms) {
		t.Errorf("want %d masks in the stderr tail, got:\n%s", len(forms), tail)
	}
	for _, f := range forms {
		if strings.Contains(tail, strings.TrimPrefix(f, "Basic ")) {
			t.Errorf("the stderr tail shows %q:\n%s", f, tail)
		}
	}
}
