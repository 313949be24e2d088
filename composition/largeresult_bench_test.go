//go:build unix

package composition_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcpbind/mcpbind/composition"
)

// BenchmarkLargeResult calls a hostileserver tool whose result is one text
// block of 30,000,000 bytes over stdio and reports the bytes this process
// allocates per call (B/op): what a composing server pays to receive it
// (issue 16). Peak RSS is measured with testservers/memdriver.
func BenchmarkLargeResult(b *testing.B) {
	tr, env := hostileB(b, map[string]any{"name": "big", "repeat": map[string]any{"text": "x", "times": 30_000_000}})
	ctx, cancel := context.WithTimeout(b.Context(), 10*time.Minute)
	defer cancel()
	s, err := composition.Connect(ctx, tr, env, composition.WithMaxResponseBytes(64<<20))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ReportAllocs()
	b.SetBytes(30_000_000)
	for b.Loop() {
		res, err := s.CallResult(ctx, "big", nil)
		if err != nil || len(res.Content) != 1 || len(res.Content[0].Text) != 30_000_000 {
			b.Fatalf("result: %v", err)
		}
	}
}
