package bindimpl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// SchemaDocs returns the schema documents tool validates against: Schemas,
// else those of Types, else nil (no validation).
func (tool Tool) SchemaDocs() *SchemaSet {
	if tool.Schemas != nil {
		return tool.Schemas
	}
	if tool.Types != nil {
		return tool.Types.schemas
	}
	return nil
}

// EncodeResult encodes a handler's natural value with the tool's Types.
func (tool Tool) EncodeResult(v any) (json.RawMessage, error) {
	if tool.Types == nil {
		return json.Marshal(v)
	}
	return tool.Types.Marshal(v)
}

// ArgsError says why a call's arguments were refused: the JSON pointer
// (RFC 6901) of the offending value, when known, and the cause.
type ArgsError struct {
	pointer string
	located bool
	err     error
}

// Error is "at /pointer: why" when a JSON pointer locates the offending
// value, else the cause's text.
func (e *ArgsError) Error() string {
	if !e.located {
		return e.err.Error()
	}
	ptr := e.pointer
	if ptr == "" {
		ptr = "/"
	}
	return "at " + ptr + ": " + e.err.Error()
}

// Unwrap returns the cause.
func (e *ArgsError) Unwrap() error { return e.err }

// locatedArgsError returns an ArgsError for err, at the pointer of a
// *ValidationError in it.
func locatedArgsError(err error) *ArgsError {
	if ve, ok := errors.AsType[*ValidationError](err); ok {
		return &ArgsError{pointer: ve.Pointer, located: true, err: errors.New(ve.Message)}
	}
	return &ArgsError{err: err}
}

// ArgsErrorText is the text of the isError result a served tool answers
// refused arguments with: `invalid arguments for tool "x" at /pointer: why`
// when a JSON pointer locates the offending value, else
// `invalid arguments for tool "x": why`.
func ArgsErrorText(tool string, err error) string {
	sep := ": "
	if ae, ok := errors.AsType[*ArgsError](err); ok && ae.located {
		sep = " "
	}
	return fmt.Sprintf("invalid arguments for tool %q%s%v", tool, sep, err)
}

// DecodeArgs decodes a call's arguments into out (a pointer to the tool's
// Args type) with the tool's Types. When they do not decode, the
// inputSchema (if any) locates the offending value for the error; only the
// failing path pays for that validation.
func (tool Tool) DecodeArgs(raw json.RawMessage, out any) error {
	err := tool.Decode(raw, out)
	if err == nil {
		return nil
	}
	if set := tool.SchemaDocs(); set != nil && tool.InputDoc != "" {
		if verr := set.validateJSON(tool.InputDoc, "", raw); verr != nil {
			if ae := locatedArgsError(verr); ae.located {
				return ae
			}
		}
	}
	return &ArgsError{err: err}
}

// ValidateArgs validates a call's raw arguments against the tool's
// inputSchema (WithServerArgsValidation).
func (tool Tool) ValidateArgs(ctx context.Context, raw json.RawMessage) error {
	set := tool.SchemaDocs()
	if set == nil || tool.InputDoc == "" {
		return nil
	}
	if err := set.ValidateJSONContext(ctx, tool.InputDoc, "", raw); err != nil {
		return locatedArgsError(err)
	}
	return nil
}

// ValidateResult validates a handler's natural result against the
// tool's natural output schema (WithServerResultValidation).
func (tool Tool) ValidateResult(ctx context.Context, value json.RawMessage) error {
	set := tool.SchemaDocs()
	if set == nil || tool.OutputDoc == "" {
		return nil
	}
	if err := set.ValidateJSONContext(ctx, tool.OutputDoc, tool.ResultPointer, value); err != nil {
		return fmt.Errorf("the handler's result does not match the outputSchema: %w", err)
	}
	return nil
}
