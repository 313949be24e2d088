// Package loopback holds the one rule for "this host is the local machine"
// that mcpbind applies in three places: plain-http URLs of OAuth endpoints
// and redirects are accepted only on loopback (OAuth 2.0 Security BCP, RFC
// 9700 §2.6; RFC 8252 §7.3), and a composing server's streamable HTTP is
// served without authentication only on a loopback address (MCP
// specification, Transports, Security Warning: bind to localhost).
package loopback

import (
	"net"
	"strings"
)

// Host reports whether host (a URL's Hostname(): no port, no brackets) is
// "localhost" in any case or a loopback IP address (127.0.0.0/8, ::1).
// Any other name, even one that resolves to a loopback address, is not:
// the rule does not use DNS.
func Host(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Addr reports whether the host of addr ("host:port", as net.Listen takes
// it) is a loopback host by [Host]. An empty host (":8080", every
// interface) or an address without a port is not.
func Addr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	return err == nil && Host(host)
}
