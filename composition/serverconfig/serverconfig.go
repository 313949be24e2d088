// Package serverconfig builds a [composition.Registry] from a servers config
// file: the servers.yaml that `mcpbind export --config` and `mcpbind check
// --config` read, so one file describes the downstream servers at export
// time and at run time. It is a package of its own so that a program that
// only connects in code (composition.Connect, composition.NewRegistry) does
// not link a YAML parser.
//
// The file lists servers by id (the server's id in the bundle):
//
//	servers:
//	  sqlite:                       # stdio: a command, started on first use
//	    command: [./sqlite-explorer, --dir, data]
//	    env: {LOG_LEVEL: debug}
//	    cwd: examples               # relative to the config file's folder
//	  remote:                       # streamable HTTP (or legacy HTTP+SSE)
//	    url: https://example.com/mcp
//	    headers: {Authorization: "Bearer ${API_TOKEN}"}
//	    protocolVersion: "2025-06-18"
//	    timeout: 1m                 # bounds each connect attempt
//	  hosted:
//	    url: https://mcp.example.com/mcp
//	    auth: oauth                 # the login kept by `mcpbind login URL`
//
// ${NAME} references environment variables ("$$" is a literal "$"); top-level
// keys starting with "x-" are ignored and may hold YAML anchors. The README's
// "Servers config (--config)" section describes every key:
// https://github.com/mcpbind/mcpbind#servers-config---config
package serverconfig

import (
	"os"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/internal/serverconf"
	"github.com/mcpbind/mcpbind/internal/tokenstore"
)

// LoadRegistry reads the servers config file at path and returns a registry
// holding each of its servers under its id. ${NAME} references are expanded
// from this process's environment now; their values, header values and env
// values never appear in [composition.ServerStatus].LastError, the
// registry's errors or its log records. A server's "timeout" bounds each of
// its connect attempts (default [composition.DefaultConnectTimeout]); a
// relative cwd is taken against the file's folder. An "auth: oauth" server
// uses the login kept by `mcpbind login URL`, refreshed and kept again
// across reconnects; a registry never opens a browser, so a missing login
// fails its connect with a *composition.LoginRequiredError (Status gives the
// command to run). opts apply to every server, as in
// [composition.NewRegistry]; add per-server options with
// [composition.Registry.Use]. Nothing is connected. Errors name the file,
// line, server and field (never a value).
func LoadRegistry(path string, opts ...composition.Option) (*composition.Registry, error) {
	cfg, err := serverconf.Load(path)
	if err != nil {
		return nil, err
	}
	r := composition.NewRegistry(opts...)
	for _, sc := range cfg.Servers {
		res, err := sc.Resolve(os.LookupEnv)
		if err != nil {
			return nil, err
		}
		t, sopts, err := res.Connection(keptLogin)
		if err != nil {
			return nil, err
		}
		s := composition.ConfiguredServer{ID: res.ID, Transport: t, Options: sopts, ConnectTimeout: res.Timeout, Secrets: res.Secrets}
		if err := r.AddConfigured(s); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// keptLogin is the option of an "auth: oauth" server in a registry: the
// login kept by `mcpbind login URL` in the token store, without a browser.
// A token store that cannot be opened leaves the login without one, so the
// connect fails with a *composition.LoginRequiredError.
func keptLogin(o *serverconf.OAuth) (composition.Option, error) {
	l := composition.OAuthLogin{ClientID: o.ClientID, Scopes: o.Scopes}
	if store, err := tokenstore.Open(); err == nil {
		l.Store = store
	}
	return composition.WithOAuthLogin(l), nil
}
