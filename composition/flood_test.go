package composition

import (
	"context"
	"testing"
	"time"
)

// TestPinnedCallsUnderListChangedFlood: a server that sends
// notifications/tools/list_changed back to back (internal/hostileserver)
// must not starve calls of a pinned tool. Each call waits at most for the
// re-check that covers the notifications received before it; before
// re-checks coalesced, every call waited for a re-check that the flood
// kept restarting, until its context ended. The per-call context bounds a
// hang; it measures nothing.
func TestPinnedCallsUnderListChangedFlood(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := floodedSession(ctx, t)
	for i := range 15 {
		callCtx, cancel := context.WithTimeout(ctx, 20*time.Second)
		_, err := s.CallResult(callCtx, "pinned", nil)
		cancel()
		if err != nil {
			t.Fatalf("call %d of the pinned tool under the flood: %v", i, err)
		}
	}
	if w := s.Warnings(); len(w) != 0 {
		t.Errorf("warnings %q", w)
	}
}
