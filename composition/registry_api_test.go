package composition

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpbind/mcpbind/composition/bindimpl"

	"github.com/mcpbind/mcpbind/testservers/pinserver"
)

func TestBackoffDelay(t *testing.T) {
	for _, tc := range []struct {
		b    backoff
		want []time.Duration
	}{
		{backoff{}, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, 1600 * time.Millisecond, 3200 * time.Millisecond, 5 * time.Second, 5 * time.Second}},
		{backoff{base: 10 * time.Millisecond, max: 25 * time.Millisecond}, []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 25 * time.Millisecond, 25 * time.Millisecond}},
		{backoff{base: time.Second, max: time.Millisecond}, []time.Duration{time.Second, time.Second}},
	} {
		for n, want := range tc.want {
			if got := tc.b.delay(n); got != want {
				t.Errorf("%+v: delay(%d) = %s, want %s", tc.b, n, got, want)
			}
		}
	}
	if got := (backoff{}).delay(1 << 20); got != DefaultBackoffMax {
		t.Errorf("delay after many failures = %s", got)
	}
}

// TestRegistryErrors covers the registry's errors without a server: ids,
// unknown servers, a failed connect (state, backoff and redacted last
// error) and the use of a closed registry.
func TestRegistryErrors(t *testing.T) {
	ctx := t.Context()
	r := NewRegistry(WithBackoff(time.Millisecond, 2*time.Millisecond))
	if err := r.Add("../x", Stdio("x")); err == nil || !strings.Contains(err.Error(), "invalid server id") {
		t.Errorf("bad id: %v", err)
	}
	missing := filepath.Join(t.TempDir(), "no-such-server")
	if err := r.Add("a", Stdio(missing)); err != nil {
		t.Fatal(err)
	}
	if err := r.Add("a", Stdio(missing)); err == nil || !strings.Contains(err.Error(), `server "a" is already added`) {
		t.Errorf("duplicate: %v", err)
	}
	const password = "pw-5129-secret"
	if err := r.Add("web", HTTP("http://user:"+password+"@127.0.0.1:1/mcp")); err != nil {
		t.Fatal(err)
	}
	if err := r.Use("nope"); err == nil || !strings.Contains(err.Error(), `no server "nope" (servers: a, web)`) {
		t.Errorf("Use unknown: %v", err)
	}
	if _, err := CallRaw(ctx, r.Server("nope"), bindimpl.Tool{Name: "t"}, nil); err == nil || !strings.Contains(err.Error(), `no server "nope"`) {
		t.Errorf("call unknown: %v", err)
	}
	err := r.Connect(ctx)
	var ce *ConnectError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), `server "a"`) || !strings.Contains(err.Error(), `server "web"`) {
		t.Fatalf("Connect: %v", err)
	}
	// A second attempt waits for the backoff, then fails again.
	if _, err := r.Session(ctx, "a"); !errors.As(err, &ce) {
		t.Errorf("Session: %v", err)
	}
	for _, st := range r.Status() {
		if st.State != StateFailed || st.LastError == "" || strings.Contains(st.LastError, password) {
			t.Errorf("status %+v", st)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := r.Session(ctx, "a"); !errors.Is(err, ErrRegistryClosed) {
		t.Errorf("after Close: %v", err)
	}
	if err := r.Add("b", Stdio("b")); !errors.Is(err, ErrRegistryClosed) {
		t.Errorf("Add after Close: %v", err)
	}
}

// TestPinWarningLogged: under DigestWarn, a pinned tool whose definition
// changed is reported through WithLogger too, not only as a warning.
func TestPinWarningLogged(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	srv := pinserver.New(nil)
	pins := exportPins(ctx, t, InProcess(srv))
	first, err := Connect(ctx, InProcess(srv))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.CallResult(ctx, "mutate", map[string]string{"change": "description"}); err != nil {
		t.Fatal(err)
	}
	_ = first.Close()
	var logs strings.Builder
	s, err := Connect(ctx, InProcess(srv), WithLogger(slog.New(slog.NewTextHandler(&logs, nil))),
		pins.check(ModernProtocolVersion, DigestWarn, "greet", "add"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !strings.Contains(logs.String(), `level=WARN msg="mcp tool changed"`) || !strings.Contains(logs.String(), `tool=greet`) {
		t.Errorf("log:\n%s", logs.String())
	}
}
