package otelmcp_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpbind/mcpbind/composition/otelmcp"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// recorder is a Telemetry whose spans and histograms the test reads: the
// SDK's span recorder (always sampling) and a manual metric reader.
type recorder struct {
	tel    *otelmcp.Telemetry
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
	tp     *sdktrace.TracerProvider
}

// newRecorder returns a recorder with W3C trace context and baggage
// propagation and opts.
func newRecorder(t testing.TB, opts ...otelmcp.Option) *recorder {
	t.Helper()
	r := &recorder{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	r.tp = sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithSpanProcessor(r.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.reader))
	t.Cleanup(func() { _ = r.tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) })
	tel, err := otelmcp.New(append([]otelmcp.Option{
		otelmcp.WithTracerProvider(r.tp),
		otelmcp.WithMeterProvider(mp),
		otelmcp.WithPropagators(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})),
	}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	r.tel = tel
	return r
}

// ended returns the ended spans named name.
func (r *recorder) ended(name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range r.spans.Ended() {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	return out
}

// one returns the one ended span named name, failing the test otherwise.
func (r *recorder) one(t testing.TB, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	got := r.ended(name)
	if len(got) != 1 {
		var names []string
		for _, s := range r.spans.Ended() {
			names = append(names, s.Name())
		}
		t.Fatalf("%d spans named %q, want 1 (ended: %q)", len(got), name, names)
	}
	return got[0]
}

// histogram returns the histogram named name, failing the test when it is
// missing or has the wrong unit, bounds or scope.
func (r *recorder) histogram(t testing.TB, name string) metricdata.Histogram[float64] {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			if sm.Scope.Name != otelmcp.ScopeName || sm.Scope.Version == "" {
				t.Errorf("%s: scope %q version %q, want %q with a version", name, sm.Scope.Name, sm.Scope.Version, otelmcp.ScopeName)
			}
			if m.Unit != "s" {
				t.Errorf("%s: unit %q, want s", name, m.Unit)
			}
			h, ok := m.Data.(metricdata.Histogram[float64])
			if !ok {
				t.Fatalf("%s is a %T, want a float64 histogram", name, m.Data)
			}
			want := []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}
			for _, dp := range h.DataPoints {
				if !slices.Equal(dp.Bounds, want) {
					t.Errorf("%s: bounds %v, want %v", name, dp.Bounds, want)
				}
			}
			return h
		}
	}
	t.Fatalf("no histogram %s", name)
	return metricdata.Histogram[float64]{}
}

// point returns the histogram's one data point, failing otherwise.
func (r *recorder) point(t testing.TB, name string) metricdata.HistogramDataPoint[float64] {
	t.Helper()
	h := r.histogram(t, name)
	if len(h.DataPoints) != 1 {
		t.Fatalf("%s has %d data points, want 1", name, len(h.DataPoints))
	}
	return h.DataPoints[0]
}

// attrs is an attribute set as a map, values as their Emit strings.
func attrs(kv []attribute.KeyValue) map[string]string {
	m := map[string]string{}
	for _, a := range kv {
		m[string(a.Key)] = a.Value.Emit()
	}
	return m
}

// checkAttrs fails the test unless got holds exactly want.
func checkAttrs(t testing.TB, what string, got []attribute.KeyValue, want map[string]string) {
	t.Helper()
	g := attrs(got)
	for k, v := range want {
		if gv, ok := g[k]; !ok {
			t.Errorf("%s: attribute %s missing, want %q", what, k, v)
		} else if gv != v {
			t.Errorf("%s: attribute %s = %q, want %q", what, k, gv, v)
		}
	}
	for k, v := range g {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: unexpected attribute %s = %q", what, k, v)
		}
	}
}

// without returns m less keys.
func without(m map[string]string, keys ...string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		if !slices.Contains(keys, k) {
			out[k] = v
		}
	}
	return out
}

// with returns m plus the pairs kv (key, value, key, value…).
func with(m map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

// pointAttrs returns a data point's attributes.
func pointAttrs(dp metricdata.HistogramDataPoint[float64]) []attribute.KeyValue {
	return dp.Attributes.ToSlice()
}

// waitCount waits (testenv.Poll, 10 s at most) until the histogram name
// has a data point whose attributes match: for what is reported from
// another goroutine, such as a session's end.
func (r *recorder) waitCount(t testing.TB, name string, match func(attribute.Set) bool) {
	t.Helper()
	testenv.Poll(t, 10*time.Second, "a point of "+name, func() bool {
		var rm metricdata.ResourceMetrics
		if err := r.reader.Collect(context.Background(), &rm); err != nil {
			t.Fatal(err)
		}
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				if h, ok := m.Data.(metricdata.Histogram[float64]); ok && m.Name == name {
					for _, dp := range h.DataPoints {
						if match(dp.Attributes) {
							return true
						}
					}
				}
			}
		}
		return false
	})
}
