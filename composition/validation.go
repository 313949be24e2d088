package composition

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpbind/mcpbind/composition/bindimpl"
)

// WithArgsValidation makes every call made through generated code validate
// its arguments against the tool's inputSchema before sending them. A
// failure is returned as a *ValidationError (wrapped) and nothing is sent.
// Validation honours the call's context, and its "pattern" matches share
// the budget [DefaultPatternBudget].
// Off by default: the server validates its own input.
func WithArgsValidation() Option {
	return Option{apply: func(c *config) { c.validateArgs = true }}
}

// WithResultValidation makes every call made through generated code
// validate the natural result (after unwrapping an envelope) against the
// tool's natural output schema before decoding it. Off by default.
func WithResultValidation() Option {
	return Option{apply: func(c *config) { c.validateResults = true }}
}

// checkArgs validates marshalled arguments when WithArgsValidation is on,
// bounded by ctx and the pattern budget (SchemaSet.ValidateJSONContext).
func (s *Session) checkArgs(ctx context.Context, tool bindimpl.Tool, args any) error {
	if !s.validateArgs || tool.SchemaDocs() == nil || tool.InputDoc == "" {
		return nil
	}
	raw, err := marshalArgs(args)
	if err != nil {
		return fmt.Errorf("composition: tool %q: %w", tool.Name, err)
	}
	if err := tool.SchemaDocs().ValidateJSONContext(ctx, tool.InputDoc, "", raw); err != nil {
		return fmt.Errorf("composition: tool %q: arguments do not match its inputSchema: %w", tool.Name, err)
	}
	return nil
}

// checkResult validates the natural result (callers check
// WithResultValidation first), bounded by ctx and the pattern budget (SchemaSet.ValidateJSONContext).
func checkResult(ctx context.Context, tool bindimpl.Tool, value json.RawMessage) error {
	if tool.SchemaDocs() == nil || tool.OutputDoc == "" {
		return nil
	}
	if err := tool.SchemaDocs().ValidateJSONContext(ctx, tool.OutputDoc, tool.ResultPointer, value); err != nil {
		return fmt.Errorf("composition: tool %q: result does not match its outputSchema: %w", tool.Name, err)
	}
	return nil
}

// CallTool calls a tool, like CallResult, encoding args with tool.Types and
// applying WithArgsValidation first, through the session's interceptors
// ([WithInterceptor]). Generated code uses it; it makes *Session a [Caller].
func (s *Session) CallTool(ctx context.Context, tool bindimpl.Tool, args any) (*Result, error) {
	return s.intercept(ctx, Call{Tool: tool.Name, Args: args}, func(ctx context.Context, c Call) (*Result, error) {
		args, err := tool.EncodeArgs(c.Args)
		if err != nil {
			return nil, err
		}
		if err := s.checkArgs(ctx, tool, args); err != nil {
			return nil, err
		}
		return s.callResult(ctx, tool.Name, args)
	})
}
