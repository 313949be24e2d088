package otelmcp

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/internal/redact"
	"github.com/mcpbind/mcpbind/internal/textsafe"
)

// The values of error.type that are ours (the package doc lists them all,
// with the JSON-RPC codes and the conventions' tool_error and _OTHER).
const (
	errorTypeToolError     = "tool_error"
	errorTypeTimeout       = "timeout"
	errorTypeCanceled      = "canceled"
	errorTypeSessionLost   = "session_lost"
	errorTypeSessionClosed = "session_closed"
	errorTypeInvalidArgs   = "invalid_arguments"
	errorTypeToolChanged   = "tool_changed"
	errorTypeOther         = "_OTHER"
)

// internalErrorCode is the JSON-RPC code "Internal error", which mcp-go
// answers a handler's error with.
const internalErrorCode = -32603

// descriptionBytes bounds a span status description made of error text.
const descriptionBytes = 1024

// outcome is how a call failed: error.type, the JSON-RPC code when a
// JSON-RPC error response is involved, and the span status description.
type outcome struct {
	errorType   string
	statusCode  string // rpc.response.status_code; "" when none
	description string
}

// clientOutcome classifies a client call's error (see the package doc).
func clientOutcome(err error) outcome {
	if _, ok := errors.AsType[*composition.ToolError](err); ok {
		return outcome{errorType: errorTypeToolError, description: errorText(err)}
	}
	if re, ok := errors.AsType[*composition.RPCError](err); ok {
		code := strconv.Itoa(re.Code)
		return outcome{errorType: code, statusCode: code, description: peerText(re.Message)}
	}
	return outcome{errorType: errorClass(err), description: errorText(err)}
}

// serverOutcome classifies the error of a served call's chain: the code of
// a composition.RPCError it carries, else -32603 (see the package doc).
func serverOutcome(err error) outcome {
	if re, ok := errors.AsType[*composition.RPCError](err); ok {
		code := strconv.Itoa(re.Code)
		return outcome{errorType: code, statusCode: code, description: peerText(re.Message)}
	}
	code := strconv.Itoa(internalErrorCode)
	return outcome{errorType: code, statusCode: code, description: errorText(err)}
}

// errorClass is error.type for an error that is neither a tool error nor
// a JSON-RPC error response; nil has none.
func errorClass(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, context.DeadlineExceeded):
		return errorTypeTimeout
	case errors.Is(err, context.Canceled):
		return errorTypeCanceled
	case errors.Is(err, composition.ErrSessionLost):
		return errorTypeSessionLost
	case errors.Is(err, composition.ErrSessionClosed), errors.Is(err, composition.ErrRegistryClosed):
		return errorTypeSessionClosed
	}
	if _, ok := errors.AsType[*composition.ValidationError](err); ok {
		return errorTypeInvalidArgs
	}
	if _, ok := errors.AsType[*composition.ToolChangedError](err); ok {
		return errorTypeToolChanged
	}
	return errorTypeOther
}

// append appends error.type and rpc.response.status_code.
func (o outcome) append(kv []attribute.KeyValue) []attribute.KeyValue {
	kv = append(kv, semconv.ErrorTypeKey.String(o.errorType))
	if o.statusCode != "" {
		kv = append(kv, semconv.RPCResponseStatusCode(o.statusCode))
	}
	return kv
}

// record sets span's status to Error with o's description and, for an
// error (not an isError answer), adds its "exception" event with its text
// made safe (errorText).
func (o outcome) record(span trace.Span, err error) {
	span.SetStatus(codes.Error, o.description)
	if err == nil {
		return
	}
	span.AddEvent(semconv.ExceptionEventName, trace.WithAttributes(
		semconv.ExceptionTypeKey.String(fmt.Sprintf("%T", err)),
		semconv.ExceptionMessageKey.String(errorText(err))))
}

// errorText is an error's text as a span may hold it: redacted of URL
// credentials (internal/redact), escaped (internal/textsafe: composition's
// errors already are, a handler's may not be) and cut.
func errorText(err error) string { return peerText(err.Error()) }

// peerText is text from outside (a server's JSON-RPC error message, a
// tool's error text) as a span may hold it: redacted, then cut, then
// escaped, so no control or bidirectional character reaches an exporter
// raw.
func peerText(s string) string { return textsafe.Escape(redact.Cut(s, nil, descriptionBytes)) }
