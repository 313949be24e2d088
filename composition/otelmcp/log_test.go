package otelmcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/otelmcp"
)

// TestLogHandler: a record logged with a ctx holding a valid span carries
// trace_id and span_id; one without a span carries neither; the handlers
// of WithAttrs and WithGroup still add them (inside the group).
func TestLogHandler(t *testing.T) {
	r := newRecorder(t)
	var buf bytes.Buffer
	log := slog.New(otelmcp.LogHandler(slog.NewJSONHandler(&buf, nil)))
	ctx, span := r.tp.Tracer("test").Start(context.Background(), "s")
	defer span.End()
	sc := span.SpanContext()

	lines := func() []map[string]any {
		var out []map[string]any
		dec := json.NewDecoder(&buf)
		for dec.More() {
			var m map[string]any
			if err := dec.Decode(&m); err != nil {
				t.Fatal(err)
			}
			out = append(out, m)
		}
		buf.Reset()
		return out
	}

	log.InfoContext(ctx, "with span")
	log.InfoContext(context.Background(), "without")
	log.With("k", "v").InfoContext(ctx, "with attrs")
	got := lines()
	if len(got) != 3 {
		t.Fatalf("%d records", len(got))
	}
	for i, want := range []bool{true, false, true} {
		m := got[i]
		if has := m["trace_id"] != nil || m["span_id"] != nil; has != want {
			t.Errorf("record %q: trace ids %v, want %v", m["msg"], has, want)
		}
		if want && (m["trace_id"] != sc.TraceID().String() || m["span_id"] != sc.SpanID().String()) {
			t.Errorf("record %q: trace_id %v span_id %v, want %s %s", m["msg"], m["trace_id"], m["span_id"], sc.TraceID(), sc.SpanID())
		}
	}
	if got[2]["k"] != "v" {
		t.Errorf("WithAttrs lost its attribute: %v", got[2])
	}
	log.WithGroup("g").InfoContext(ctx, "grouped")
	g, _ := lines()[0]["g"].(map[string]any)
	if g["trace_id"] != sc.TraceID().String() {
		t.Errorf("WithGroup: %v, want trace_id in group g", g)
	}
}

// TestLogHandlerWithLogger: composition.WithLogger's records of a call
// made inside a span, through LogHandler, carry that span's trace_id and
// span_id (the caller's: the records enclose the interceptor chain).
func TestLogHandlerWithLogger(t *testing.T) {
	r := newRecorder(t)
	var buf bytes.Buffer
	logger := slog.New(otelmcp.LogHandler(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	ctx := context.Background()
	s, err := composition.Connect(ctx, composition.InProcess(frontServer(t, r, nil)), composition.WithLogger(logger), r.tel.ClientOption())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	buf.Reset()
	ctx, span := r.tp.Tracer("test").Start(ctx, "caller")
	if _, err := lookupTool.Call(ctx, s, LookupArgs{Key: "a"}); err != nil {
		t.Fatal(err)
	}
	span.End()
	sc := span.SpanContext()
	n := 0
	for dec := json.NewDecoder(&buf); dec.More(); n++ {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		if m["trace_id"] != sc.TraceID().String() || m["span_id"] != sc.SpanID().String() {
			t.Errorf("record %q: trace_id %v span_id %v, want %s %s", m["msg"], m["trace_id"], m["span_id"], sc.TraceID(), sc.SpanID())
		}
	}
	if n != 2 {
		t.Errorf("%d records, want the call's start and end", n)
	}
}
