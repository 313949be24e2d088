package serverconf

import "github.com/mcpbind/mcpbind/composition"

// Connection returns how to reach the resolved server r with composition:
// its transport (Stdio with its command, or HTTP with its URL) and its
// options (WithEnv and WithDir for a stdio server, WithHeader for each
// header of an HTTP server, WithProtocolVersion when one is pinned). It is
// the one mapping from a config entry to a connection, used by
// composition/serverconfig.LoadRegistry and by `mcpbind export/check
// --config`.
//
// login makes the option of an "auth: oauth" server (r.OAuth non-nil): the
// registry's uses the kept login and never opens a browser, the CLI's
// applies --login and --no-browser. Its error is returned as it is; a nil
// login adds no option.
func (r *Resolved) Connection(login func(*OAuth) (composition.Option, error)) (composition.Transport, []composition.Option, error) {
	var t composition.Transport
	var opts []composition.Option
	if r.URL != "" {
		t = composition.HTTP(r.URL)
		for _, h := range r.Headers {
			opts = append(opts, composition.WithHeader(h.Key, h.Value))
		}
		if r.OAuth != nil && login != nil {
			opt, err := login(r.OAuth)
			if err != nil {
				return composition.Transport{}, nil, err
			}
			opts = append(opts, opt)
		}
	} else {
		t = composition.Stdio(r.Command[0], r.Command[1:]...)
		if len(r.Env) > 0 {
			opts = append(opts, composition.WithEnv(r.Env...))
		}
		opts = append(opts, composition.WithDir(r.Dir))
	}
	if r.ProtocolVersion != "" {
		opts = append(opts, composition.WithProtocolVersion(r.ProtocolVersion))
	}
	return t, opts, nil
}
