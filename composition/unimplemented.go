package composition

import (
	"errors"
	"fmt"
)

// ErrNotImplemented is wrapped by the error of [NotImplemented]: the error
// every method of a generated UnimplementedHandler (generate --server)
// returns, so errors.Is(err, ErrNotImplemented) tells an omitted tool from
// a failing one when a test calls the handler directly.
//
// A client calling the tool over MCP sees no Go error value: the tool
// answers isError: true (as any handler error, see [Serve]) with the text
// `tool "NAME" is not implemented`, which reaches a composition client as a
// *[ToolError] whose Text is exactly that. MCP has no error code for a tool
// result, so that text is the whole contract on the wire.
var ErrNotImplemented = errors.New("not implemented")

// NotImplemented returns the error a generated UnimplementedHandler method
// answers for the tool name: `tool "NAME" is not implemented`, the name
// quoted with strconv.Quote rules (control and bidirectional characters
// escaped). errors.Is(err, ErrNotImplemented) is true for it.
func NotImplemented(name string) error {
	return fmt.Errorf("tool %q is %w", name, ErrNotImplemented)
}
