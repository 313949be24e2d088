package bindimpl

// Output describes a tool's natural result type, as far as the envelope rules
// of SEP-2106 need it. Generated code fills one in per tool from the IR; the
// zero value means "the natural type is a JSON value of unknown shape".
type Output struct {
	// PlainObject is true when the natural outputSchema root is a plain
	// "type":"object" schema (not nullable, not a union). No SDK wraps such a
	// result, so a session before 2026-07-28 unwraps only when this is false.
	PlainObject bool
	// CanBeObject is true when the natural schema admits a JSON object value
	// (an object, a nullable object, a union with an object variant, or an
	// unconstrained schema). When false, an object whose only key is "result"
	// is always an envelope, in every protocol version.
	CanBeObject bool
	// HasResultProperty is true when the natural schema is an object schema
	// with a top-level property named "result"; then {"result": v} is a
	// natural value and is never unwrapped by shape alone.
	HasResultProperty bool
	// AlwaysWraps is export-time evidence that the server wraps results as
	// {"result": v} in every protocol version: the advertised outputSchema
	// carries "x-fastmcp-wrap-result": true, or a probe recorded it under
	// "x-mcpbind". With it, a 2026-07-28 session unwraps too.
	AlwaysWraps bool
}

// Tool identifies a tool for a call made by generated code: its name as the
// server lists it, the shape of its natural result, and where its schemas
// are for the validation options (WithArgsValidation, WithResultValidation).
type Tool struct {
	// Name is the tool name exactly as in tools/list.
	Name string
	// Output describes the natural result type; ignored by CallResult.
	Output Output
	// Schemas holds the package's schema documents (nil: those Types was
	// built with; no validation when both are nil).
	Schemas *SchemaSet
	// Types describes the package's named types: arguments are encoded and
	// results decoded with its rules (nil: plain encoding/json).
	Types *Types
	// InputDoc and OutputDoc are the keys of the tool's inputSchema and
	// outputSchema in Schemas ("" when absent).
	InputDoc, OutputDoc string
	// ResultPointer locates the natural result schema inside OutputDoc:
	// "" or, for a recognised envelope, "/properties/result".
	ResultPointer string
	// ReadOnly is the tool's readOnlyHint annotation (MCP specification,
	// server/tools, ToolAnnotations): the tool does not modify its
	// environment. With Idempotent it lets a [Registry] send a call again
	// after its session was lost (see [SessionLostError]).
	ReadOnly bool
	// Idempotent is the tool's idempotentHint annotation: calling it again
	// with the same arguments has no further effect.
	Idempotent bool
	// Digest is the tool's digest that the bundle recorded under
	// "x-mcpbind" ("sha256:" and the SHA-256 of the RFC 8785 canonical JSON
	// of the tool object as listed; "" when none): the pin that
	// composition.WithPins compares the live tool with.
	Digest string
}
