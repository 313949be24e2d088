//go:build unix

package composition

import (
	"context"
	"syscall"
	"testing"
	"time"
)

// BenchmarkPinnedCallFlood times a call of a pinned tool (DigestFail) over
// stdio to internal/hostileserver, quiet and under a flood of
// notifications/tools/list_changed, and reports the CPU time this process
// spent per call (user+system, from getrusage) as "cpu-µs/op" and the
// cores it kept busy meanwhile as "cores".
func BenchmarkPinnedCallFlood(b *testing.B) {
	for _, flood := range []bool{false, true} {
		name := "quiet"
		if flood {
			name = "flood"
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			var s *Session
			if flood {
				s = floodedSession(ctx, b)
			} else {
				tr, env := hostile(b, floodSpec())
				pins := exportPins(ctx, b, tr, env, WithProtocolVersion("2025-11-25"))
				var err error
				s, err = Connect(ctx, tr, env, WithProtocolVersion("2025-11-25"), WithDigestCheckAt(pins.server, "2025-11-25", DigestFail, pins.tools["pinned"]))
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
			}
			cpu0, wall0 := cpuTime(b), time.Now()
			for b.Loop() {
				if _, err := s.CallResult(ctx, "pinned", nil); err != nil {
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
