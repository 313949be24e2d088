//go:build unix

package mcpconn

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// TestResultBudget: four stdio sessions that share a budget room for one
// large message read their 1 MB results one after the other. While the test
// holds the whole budget, every session's read waits (no result arrives);
// once it is released all four calls succeed, and the budget's accounting
// never went past its capacity. Small messages (initialize, tools/list) do
// not reserve it.
func TestResultBudget(t *testing.T) {
	const size, k = 1_000_000, 4
	const limit = 2 << 20 // the sessions' largest message: what a large one reserves
	bin := testenv.Build(t, "./testservers/hostileserver")
	spec := filepath.Join(t.TempDir(), "spec.json")
	if err := os.WriteFile(spec, []byte(`{"serverInfo":{"name":"h","version":"1"},"tools":[{"name":"big","repeat":{"text":"x","times":1000000}}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	b := NewResultBudget(limit)
	sessions := make([]*Conn, k)
	for i := range sessions {
		s, err := Dial(ctx, Stdio(bin), WithEnv("MCPBIND_HOSTILE_SPEC="+spec), WithMaxResponseBytes(limit), WithResultBudget(b))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		sessions[i] = s
	}
	if st := b.state(); st.grants != 0 || st.used != 0 {
		t.Fatalf("connecting reserved the budget: %+v", st)
	}

	// Hold the whole budget: every large read must wait for it.
	if got := b.acquire(limit, ctx.Done()); got != limit {
		t.Fatalf("acquire = %d", got)
	}
	type answer struct {
		n   int
		err error
	}
	answers := make(chan answer, k)
	for _, s := range sessions {
		go func() {
			raw, err := s.CallToolRaw(ctx, RawCall{Name: "big", Args: json.RawMessage(`{}`)})
			answers <- answer{len(raw), err}
		}()
	}
	testenv.Poll(t, time.Minute, "all four sessions waiting for the budget", func() bool { return b.state().waiting == k })
	select {
	case a := <-answers:
		t.Fatalf("a call returned while the budget was full: %d bytes, %v", a.n, a.err)
	default:
	}
	b.release(limit)
	for range k {
		a := <-answers
		if a.err != nil || a.n < size {
			t.Fatalf("call: %d bytes, %v", a.n, a.err)
		}
	}
	// A session releases a line's share after dispatching it, which may be
	// after its caller has the result: wait for the last release.
	testenv.Poll(t, time.Minute, "the sessions releasing the budget", func() bool { return b.state().used == 0 })
	st := b.state()
	if st.peak > limit || st.used != 0 || st.grants != k+1 {
		t.Errorf("budget %+v: want peak <= %d, nothing used at the end, %d grants", st, limit, k+1)
	}
}
