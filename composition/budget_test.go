package composition_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcpbind/mcpbind/composition"
)

// TestRegistryResultBudget: a ResultBudget given to NewRegistry reaches the
// stdio sessions of every server: the large results of two servers, read at
// once, reserve it (each the servers' largest message, so one at a time),
// and small messages do not.
func TestRegistryResultBudget(t *testing.T) {
	const limit = 1 << 20
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	tr, env := hostile(t, map[string]any{"name": "big", "repeat": map[string]any{"text": "x", "times": 200_000}})
	b := composition.NewResultBudget(limit)
	reg := composition.NewRegistry(composition.WithResultBudget(b), composition.WithMaxResponseBytes(limit))
	defer reg.Close()
	for _, id := range []string{"one", "two"} {
		if err := reg.Add(id, tr, env); err != nil {
			t.Fatal(err)
		}
		s, err := reg.Session(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		callPID(ctx, t, s)
	}
	if p := b.Peak(); p != 0 {
		t.Fatalf("small messages reserved %d bytes of the budget", p)
	}
	errs := make(chan error, 2)
	for _, id := range []string{"one", "two"} {
		go func() {
			s, err := reg.Session(ctx, id)
			if err == nil {
				var res *composition.Result
				res, err = s.CallResult(ctx, "big", nil)
				if err == nil && len(res.Content) == 1 && len(res.Content[0].Text) != 200_000 {
					t.Errorf("%s: %d bytes of text", id, len(res.Content[0].Text))
				}
			}
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if p := b.Peak(); p != limit {
		t.Errorf("budget peak %d, want %d (one large read at a time, each reserving the largest message)", p, limit)
	}
}
