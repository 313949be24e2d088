//go:build unix

package composition

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/mcpbind/mcpbind/composition/bindimpl"
)

// BenchmarkPinnedCallFlood times a call of a pinned tool (DigestFail) over
// stdio to testservers/hostileserver, on a session and through a Registry (as
// a composing server calls), quiet and under a flood of
// notifications/tools/list_changed, and reports the CPU time this process
// spent per call (user+system, from getrusage) as "cpu-µs/op" and the
// cores it kept busy meanwhile as "cores".
func BenchmarkPinnedCallFlood(b *testing.B) {
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		flood    bool
		registry bool // through a Registry's Caller, as a composing server calls
	}{
		{"quiet", false, false},
		{"flood", true, false},
		{"registry-quiet", false, true},
		{"registry-flood", true, true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			tr, opts := floodPins(ctx, b)
			var call func() error
			if tc.registry {
				reg := NewRegistry()
				defer reg.Close()
				if err := reg.Add("flooder", tr, opts...); err != nil {
					b.Fatal(err)
				}
				s, err := reg.Session(ctx, "flooder")
				if err != nil {
					b.Fatal(err)
				}
				if tc.flood {
					startFlood(ctx, b, s)
				}
				c := reg.Server("flooder")
				call = func() error { _, err := CallRaw(ctx, c, bindimpl.Tool{Name: "pinned"}, nil); return err }
			} else {
				s, err := Connect(ctx, tr, opts...)
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				if tc.flood {
					startFlood(ctx, b, s)
				}
				call = func() error { _, err := s.CallResult(ctx, "pinned", nil); return err }
			}
			cpu0, wall0 := cpuTime(b), time.Now()
			for b.Loop() {
				if err := call(); err != nil {
					b.Fatal(err)
				}
			}
			cpu, wall := cpuTime(b)-cpu0, time.Since(wall0)
			b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/op")
			b.ReportMetric(cpu.Seconds()/wall.Seconds(), "cores")
		})
	}
}

// cpuTime is the user and system CPU time of this process so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
