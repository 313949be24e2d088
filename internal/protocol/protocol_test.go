package protocol

import (
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestVersionsMatchTheSDK: the versions are those mcp-go, which speaks the
// protocol for composition, negotiates and decides eras by.
func TestVersionsMatchTheSDK(t *testing.T) {
	if ModernVersion != mcp.ProtocolVersion20260728 || NewestLegacyVersion != mcp.LATEST_LEGACY_PROTOCOL_VERSION {
		t.Errorf("ModernVersion %s, NewestLegacyVersion %s; mcp-go has %s and %s",
			ModernVersion, NewestLegacyVersion, mcp.ProtocolVersion20260728, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	}
	for _, v := range []string{NewestLegacyVersion, "2025-06-18", ModernVersion, "2027-01-01"} {
		if IsModern(v) != mcp.IsModernProtocol(v) {
			t.Errorf("IsModern(%s) = %v, mcp-go says %v", v, IsModern(v), mcp.IsModernProtocol(v))
		}
	}
}
