package composition

import (
	"os"

	"github.com/mcpbind/mcpbind/internal/serverconf"
	"github.com/mcpbind/mcpbind/internal/tokenstore"
)

// LoadRegistry reads the servers config file at path, the servers.yaml that
// `mcpbind export --config` reads (the README's "Servers config file"
// describes it), and returns a registry holding each of its servers under
// its id. ${NAME} references are expanded from this process's environment
// now; their values, header values and env values never appear in
// [ServerStatus.LastError] or log records. A server's "timeout" bounds each
// of its connect attempts (default [DefaultConnectTimeout]); a relative cwd
// is taken against the file's folder. opts apply to every server, as in
// [NewRegistry]; add per-server options with [Registry.Use]. Nothing is
// connected. Errors name the file, line, server and field (never a value).
func LoadRegistry(path string, opts ...Option) (*Registry, error) {
	cfg, err := serverconf.Load(path)
	if err != nil {
		return nil, err
	}
	r := NewRegistry(opts...)
	for _, sc := range cfg.Servers {
		res, err := sc.Resolve(os.LookupEnv)
		if err != nil {
			return nil, err
		}
		if err := r.add(resolvedServer(res)); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// resolvedServer is a registry server for a resolved config entry.
func resolvedServer(res *serverconf.Resolved) *regServer {
	s := &regServer{id: res.ID, timeout: res.Timeout, secrets: res.Secrets}
	if res.URL != "" {
		s.t = HTTP(res.URL)
		for _, h := range res.Headers {
			s.opts = append(s.opts, WithHeader(h.Key, h.Value))
		}
		if res.OAuth != nil {
			// The login kept by `mcpbind login URL`, refreshed and kept
			// again across reconnects; a registry never opens a browser,
			// so a missing login is a *LoginRequiredError (Status says
			// the command to run).
			l := OAuthLogin{ClientID: res.OAuth.ClientID, Scopes: res.OAuth.Scopes}
			if store, err := tokenstore.Open(); err == nil {
				l.Store = store
			}
			s.opts = append(s.opts, WithOAuthLogin(l))
		}
	} else {
		s.t = Stdio(res.Command[0], res.Command[1:]...)
		if len(res.Env) > 0 {
			s.opts = append(s.opts, WithEnv(res.Env...))
		}
		s.opts = append(s.opts, WithDir(res.Dir))
	}
	if res.ProtocolVersion != "" {
		s.opts = append(s.opts, WithProtocolVersion(res.ProtocolVersion))
	}
	return s
}
