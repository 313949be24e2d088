package export

import (
	"time"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/internal/serverconf"
)

// The servers config file format (servers.yaml), its ${NAME} expansion and
// its errors are those of internal/serverconf, which composition.LoadRegistry
// reads too, so one file describes the servers at export time and at run
// time. This file adapts it to export: a resolved server becomes a Target.

// Config is a parsed servers config file.
type Config struct {
	// Source is the file name given to ParseConfig or LoadConfig; errors
	// and relative cwd values refer to it.
	Source string
	// Servers are the configured servers, sorted by ID.
	Servers []ServerConfig
}

// ServerConfig is one configured server, as written: its strings may still
// hold ${NAME} references. Exactly one of Command and URL is set.
type ServerConfig struct {
	serverconf.Server
}

// KeyValue is one entry of an env or headers mapping.
type KeyValue = serverconf.KeyValue

// OAuth is the "auth: oauth" of an HTTP server: it is reached with the
// OAuth login kept by `mcpbind login URL`, made with ClientID ("" for a
// client mcpbind registered) and asking for Scopes (none: what the server
// asks for).
type OAuth = serverconf.OAuth

// ConfigError is a problem with a servers config file, located in it when
// possible. Its message reads like
// `servers.yaml:7:14: server "remote": url: environment variable API_HOST is not set`.
// It never contains the value of a variable, header or env entry.
type ConfigError = serverconf.Error

// UnsetVariableError is a ${NAME} reference to an environment variable that
// is not set.
type UnsetVariableError = serverconf.UnsetVariableError

// LoadConfig reads and parses the servers config file at path. Errors are
// *ConfigError values.
func LoadConfig(path string) (*Config, error) {
	c, err := serverconf.Load(path)
	if err != nil {
		return nil, err
	}
	return wrapConfig(c), nil
}

// ParseConfig parses a servers config file; source names it in errors and
// is the base of relative cwd values. Errors are *ConfigError values that
// give the line and column: YAML syntax errors (including a key given twice),
// an unknown key, a value of the wrong kind, a server with both or neither of
// command and url, an invalid id, URL, header name, protocol version,
// duration or ${…} reference.
func ParseConfig(data []byte, source string) (*Config, error) {
	c, err := serverconf.Parse(data, source)
	if err != nil {
		return nil, err
	}
	return wrapConfig(c), nil
}

func wrapConfig(c *serverconf.Config) *Config {
	out := &Config{Source: c.Source}
	for _, s := range c.Servers {
		out.Servers = append(out.Servers, ServerConfig{s})
	}
	return out
}

// Select returns the servers named by ids, in the order of c.Servers, or
// every server when ids is empty. An id that is not configured is a
// *ConfigError listing the configured ones.
func (c *Config) Select(ids ...string) ([]ServerConfig, error) {
	inner := &serverconf.Config{Source: c.Source}
	for _, s := range c.Servers {
		inner.Servers = append(inner.Servers, s.Server)
	}
	sel, err := inner.Select(ids...)
	if err != nil {
		return nil, err
	}
	return wrapConfig(&serverconf.Config{Servers: sel}).Servers, nil
}

// Target is a server ready to connect to: a ServerConfig with its
// environment references expanded, or a server given on the command line.
type Target struct {
	// ID is the server's id in the bundle; "" derives it from serverInfo.
	ID string
	// Transport says how to reach the server.
	Transport composition.Transport
	// Options configure the connection (environment, working directory,
	// headers, protocol version).
	Options []composition.Option
	// ProtocolVersion is the version asked for ("": the newest), for the
	// warning when the server answers another.
	ProtocolVersion string
	// Timeout bounds connecting and listing tools; 0 means no bound.
	Timeout time.Duration
	// Secrets are the values (header values, env values, expanded
	// variables) that must not appear in messages.
	Secrets []string
	// OAuth is the server's "auth: oauth", or nil. Resolve adds no option
	// for it: the caller adds composition.WithOAuthLogin with its token
	// store and, where a user is present, a browser.
	OAuth *OAuth
}

// Resolve expands s's ${NAME} references with lookup (os.LookupEnv in
// mcpbind) and returns the Target to connect to. A relative cwd is taken
// against the config file's folder, which is also the default working
// directory. Errors are *ConfigError values naming the server, the field and
// the variable (an unset variable wraps an *UnsetVariableError), never a
// value.
func (s *ServerConfig) Resolve(lookup func(string) (string, bool)) (*Target, error) {
	r, err := s.Server.Resolve(lookup)
	if err != nil {
		return nil, err
	}
	t := &Target{ID: r.ID, ProtocolVersion: r.ProtocolVersion, Timeout: r.Timeout, Secrets: r.Secrets, OAuth: r.OAuth}
	if r.URL != "" {
		t.Transport = composition.HTTP(r.URL)
		for _, h := range r.Headers {
			t.Options = append(t.Options, composition.WithHeader(h.Key, h.Value))
		}
	} else {
		t.Transport = composition.Stdio(r.Command[0], r.Command[1:]...)
		if len(r.Env) > 0 {
			t.Options = append(t.Options, composition.WithEnv(r.Env...))
		}
		t.Options = append(t.Options, composition.WithDir(r.Dir))
	}
	if r.ProtocolVersion != "" {
		t.Options = append(t.Options, composition.WithProtocolVersion(r.ProtocolVersion))
	}
	return t, nil
}
