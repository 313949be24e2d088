package telemetry

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
)

// clearOTelEnv unsets, for the test, every OTEL_ variable the environment
// has, so that each case starts from nothing set.
func clearOTelEnv(t *testing.T) {
	t.Helper()
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "OTEL_") {
			t.Setenv(k, "") // restored after the test
			os.Unsetenv(k)
		}
	}
}

// TestNothingWhenUnset checks that with no OTEL_ variable set nothing is
// exported: no SDK provider, nothing written, and Shutdown has nothing to do.
func TestNothingWhenUnset(t *testing.T) {
	clearOTelEnv(t)
	var diag bytes.Buffer
	s, err := Start(context.Background(), "prog", &diag)
	if err != nil {
		t.Fatal(err)
	}
	if s.Tracing || s.Metrics {
		t.Errorf("Tracing %v, Metrics %v with nothing set; want both false", s.Tracing, s.Metrics)
	}
	ctx, span := s.TracerProvider.Tracer("t").Start(context.Background(), "x")
	if span.SpanContext().IsValid() {
		t.Errorf("a span with tracing off has a valid span context %v", span.SpanContext())
	}
	span.End()
	_ = ctx
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if diag.Len() > 0 {
		t.Errorf("wrote %q", diag.String())
	}
}

// TestConsoleToDiag checks OTEL_TRACES_EXPORTER=console: the span goes to
// diag (never stdout) at Shutdown, with service.name the program's name
// unless OTEL_SERVICE_NAME overrides it.
func TestConsoleToDiag(t *testing.T) {
	for _, tc := range []struct{ name, env, want string }{
		{"default name", "", `"Value":"prog"`},
		{"OTEL_SERVICE_NAME", "from-env", `"Value":"from-env"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clearOTelEnv(t)
			t.Setenv(TracesExporterVar, "console")
			if tc.env != "" {
				t.Setenv("OTEL_SERVICE_NAME", tc.env)
			}
			var diag bytes.Buffer
			s, err := Start(context.Background(), "prog", &diag)
			if err != nil {
				t.Fatal(err)
			}
			if !s.Tracing || s.Metrics {
				t.Errorf("Tracing %v, Metrics %v; want true, false", s.Tracing, s.Metrics)
			}
			_, span := s.TracerProvider.Tracer("t").Start(context.Background(), "the-span")
			span.End()
			if err := s.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			out := diag.String()
			for _, w := range []string{`"Name":"the-span"`, `"Key":"service.name"`, tc.want} {
				if !strings.Contains(out, w) {
					t.Errorf("the console output lacks %s:\n%s", w, out)
				}
			}
		})
	}
}

// TestEndpointAloneTurnsOTLPOn checks the rule for an unset
// OTEL_TRACES_EXPORTER: an OTLP endpoint turns traces (and, with the
// general endpoint, metrics) on; none turns a signal off again; an unknown
// exporter name is refused.
func TestEndpointAloneTurnsOTLPOn(t *testing.T) {
	for _, tc := range []struct {
		name             string
		env              map[string]string
		tracing, metrics bool
		err              string
	}{
		{"endpoint", map[string]string{OTLPEndpointVar: "http://127.0.0.1:1"}, true, true, ""},
		{"traces endpoint", map[string]string{OTLPTracesEndpointVar: "http://127.0.0.1:1/v1/traces"}, true, false, ""},
		{"metrics endpoint", map[string]string{OTLPMetricsEndpointVar: "http://127.0.0.1:1/v1/metrics"}, false, true, ""},
		{"endpoint, traces none", map[string]string{OTLPEndpointVar: "http://127.0.0.1:1", TracesExporterVar: "none"}, false, true, ""},
		{"otlp without endpoint", map[string]string{TracesExporterVar: "otlp"}, true, false, ""},
		{"unknown exporter", map[string]string{TracesExporterVar: "carrier-pigeon"}, false, false, TracesExporterVar},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clearOTelEnv(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			s, err := Start(context.Background(), "prog", &bytes.Buffer{})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Start: %v; want an error naming %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Tracing != tc.tracing || s.Metrics != tc.metrics {
				t.Errorf("Tracing %v, Metrics %v; want %v, %v", s.Tracing, s.Metrics, tc.tracing, tc.metrics)
			}
			// No span was made, so the trace exporter sends nothing; the
			// metric reader exports once more at shutdown, to the closed
			// port the endpoint names.
			err = s.Shutdown(context.Background())
			switch {
			case tc.metrics && (err == nil || !strings.Contains(err.Error(), "127.0.0.1:1/v1/metrics")):
				t.Errorf("Shutdown: %v; want a failure to send metrics to 127.0.0.1:1/v1/metrics", err)
			case !tc.metrics && err != nil:
				t.Errorf("Shutdown: %v", err)
			}
		})
	}
}
