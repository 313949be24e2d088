package mcpconn

import "testing"

// TestPeerAddress: the host and port of an HTTP server's URL for
// telemetry: the URL's port, else the scheme's default; never its user
// information, path or query; nothing for what is not an http(s) URL.
func TestPeerAddress(t *testing.T) {
	for _, tc := range []struct {
		url  string
		host string
		port int
	}{
		{"http://127.0.0.1:8080/mcp", "127.0.0.1", 8080},
		{"http://user:secret@example.com/mcp?token=x", "example.com", 80},
		{"https://example.com/mcp", "example.com", 443},
		{"https://[::1]:9443/mcp", "::1", 9443},
		{"ftp://example.com/", "", 0},
		{"not a url", "", 0},
	} {
		if host, port := PeerAddress(tc.url); host != tc.host || port != tc.port {
			t.Errorf("PeerAddress(%q) = %q, %d; want %q, %d", tc.url, host, port, tc.host, tc.port)
		}
	}
}
