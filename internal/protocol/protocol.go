// Package protocol holds the MCP protocol versions that mcpbind's packages
// decide by: where the stateless era begins and the newest version before
// it. It imports nothing, so that any package (the SDK-neutral ones
// included) can use it; composition.ModernProtocolVersion is the public name
// of ModernVersion.
package protocol

const (
	// ModernVersion is the first protocol version of the stateless era
	// (MCP 2026-07-28: server/discover instead of initialize; an
	// outputSchema may be any JSON Schema and structuredContent any JSON
	// value, SEP-2106).
	ModernVersion = "2026-07-28"
	// NewestLegacyVersion is the newest protocol version before
	// ModernVersion (MCP 2025-11-25): the legacy era, in which an
	// outputSchema had to be an object schema, so servers wrap other
	// results as {"result": v}.
	NewestLegacyVersion = "2025-11-25"
)

// IsModern reports whether the protocol version v is of the stateless era:
// ModernVersion or later (versions compare as YYYY-MM-DD strings).
func IsModern(v string) bool { return v >= ModernVersion }
