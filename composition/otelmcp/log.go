package otelmcp

import (
	"context"
	"log/slog"

	"go.opentelemetry.io/otel/trace"
)

// LogHandler returns h adding trace_id and span_id (lower-case hex, as
// W3C Trace Context writes them) to every record whose context holds a
// valid span, for composition.WithLogger: slog.New(otelmcp.LogHandler(h)).
// The handlers WithAttrs and WithGroup return add them too; after
// WithGroup the two are inside the group, as every attribute of a record
// is.
func LogHandler(h slog.Handler) slog.Handler { return logHandler{h} }

// logHandler is LogHandler's handler.
type logHandler struct{ h slog.Handler }

// Enabled is the wrapped handler's.
func (l logHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return l.h.Enabled(ctx, level)
}

// Handle passes r to the wrapped handler, with trace_id and span_id when
// ctx holds a valid span.
func (l logHandler) Handle(ctx context.Context, r slog.Record) error {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r = r.Clone()
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	return l.h.Handle(ctx, r)
}

// WithAttrs wraps the wrapped handler's WithAttrs.
func (l logHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return logHandler{l.h.WithAttrs(attrs)}
}

// WithGroup wraps the wrapped handler's WithGroup.
func (l logHandler) WithGroup(name string) slog.Handler {
	return logHandler{l.h.WithGroup(name)}
}
