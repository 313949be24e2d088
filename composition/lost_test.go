package composition

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcpbind/mcpbind/composition/bindimpl"
)

// TestLostHTTP stops a Streamable HTTP server under a session of each era:
// the next call fails as a *SessionLostError (the connection is refused, or
// the kept-alive connection the server closed ends the request: then it may
// have been sent), the session reports itself lost, and a call after that
// is not sent at all.
func TestLostHTTP(t *testing.T) {
	bin := buildTestServer(t)
	for _, version := range []string{"2025-06-18", ""} {
		t.Run("version="+version, func(t *testing.T) {
			url, cmd := startHTTPServerCmd(t, bin)
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			s, err := Connect(ctx, HTTP(url), WithProtocolVersion(version))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var n int64
			if err := s.Invoke(ctx, &bindimpl.Tool{Name: "integer"}, nil, &n); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			err = s.Invoke(ctx, &bindimpl.Tool{Name: "integer"}, nil, &n)
			t.Logf("call after the server stopped: %v", err)
			var lost *SessionLostError
			if !errors.Is(err, ErrSessionLost) || !errors.As(err, &lost) {
				t.Fatalf("err = %v, want a SessionLostError", err)
			}
			select {
			case <-s.Done():
			default:
				t.Error("Done is not closed")
			}
			if !errors.Is(s.Err(), ErrSessionLost) {
				t.Errorf("Err() = %v", s.Err())
			}
			err = s.Invoke(ctx, &bindimpl.Tool{Name: "integer"}, nil, &n)
			if !errors.As(err, &lost) || lost.Sent {
				t.Errorf("a call on the lost session: err = %v, want a SessionLostError that was not sent", err)
			}
		})
	}
}
