package export

import (
	"time"

	"github.com/mcpbind/mcpbind/composition"
)

// Target is a server ready to connect to, for ExportAll: a server of a
// servers config file (mcpbind maps it with internal/serverconf's
// Resolved.Connection) or one given on the command line.
type Target struct {
	// ID is the server's id in the bundle; "" derives it from serverInfo.
	ID string
	// Transport says how to reach the server.
	Transport composition.Transport
	// Options configure the connection (environment, working directory,
	// headers, protocol version, login).
	Options []composition.Option
	// ProtocolVersion is the version asked for ("": the newest), for the
	// warning when the server answers another.
	ProtocolVersion string
	// Timeout bounds connecting and listing tools; 0 means no bound.
	Timeout time.Duration
	// Secrets are the values (header values, env values, expanded
	// variables) that must not appear in messages.
	Secrets []string
}
