package composition

import (
	"slices"
	"time"
)

// ConfiguredServer is a registry server with the settings that a servers
// config file gives it beyond [Registry.Add]'s: a connect timeout of its own
// and the values that must never be shown. Package
// github.com/mcpbind/mcpbind/composition/serverconfig (LoadRegistry) adds
// the servers of a servers.yaml so; a program that reads its own
// configuration may too.
type ConfiguredServer struct {
	// ID is the server's id in the registry: a valid bundle server id.
	ID string
	// Transport says how to reach the server.
	Transport Transport
	// Options are the server's own options, as given to [Registry.Add].
	Options []Option
	// ConnectTimeout bounds each of the server's connect attempts; 0 or
	// less means [DefaultConnectTimeout].
	ConnectTimeout time.Duration
	// Secrets are values (expanded variables, header and env values) that
	// [Registry.Status], the registry's errors and its log records never
	// show, even where the session would (a variable expanded into the
	// command, for example).
	Secrets []string
}

// AddConfigured adds the server s, as [Registry.Add] adds one, with its
// connect timeout and secrets. It connects nothing. The id must be a valid
// bundle server id; adding one twice, or after Close, is an error.
func (r *Registry) AddConfigured(s ConfiguredServer) error {
	return r.add(&regServer{id: s.ID, t: s.Transport, opts: slices.Clone(s.Options), timeout: s.ConnectTimeout, secrets: slices.Clone(s.Secrets)})
}
