package export

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/internal/redact"
)

// DefaultConcurrency is how many servers ExportAll exports at once unless
// MultiOptions.Concurrency says otherwise.
const DefaultConcurrency = 4

// ClosableSession is a connected Session that must be closed after use;
// *composition.Session is one.
type ClosableSession interface {
	Session
	// Close ends the session (and stops a stdio server).
	Close() error
}

// MultiOptions configures ExportAll.
type MultiOptions struct {
	// Concurrency bounds how many servers are connected at once; <= 0
	// means DefaultConcurrency.
	Concurrency int
	// Export is the base of the Options given to Export for each server;
	// its ID is replaced by the Target's, and a nil Warn sends Export's
	// warnings to Log.
	Export Options
	// Log, if set, receives progress lines (warning false) and warnings
	// (warning true) about the server with the given id (or, when the
	// Target has no ID, its transport description). ExportAll never calls
	// it from two goroutines at once. Messages hold no secrets.
	Log func(server string, warning bool, msg string)
	// Connect connects to a target; nil means composition.Connect with the
	// target's transport and options.
	Connect func(ctx context.Context, t *Target) (ClosableSession, error)
	// ProbeEras connects to every server a second time, at the protocol
	// version of the other era (ProbeVersion), and records envelope
	// evidence as export --probe-eras does. A server that cannot be reached
	// at the other era is exported without evidence, with a warning.
	ProbeEras bool
}

// Outcome is the result of exporting one Target.
type Outcome struct {
	// Target is the server exported.
	Target *Target
	// Server is its bundle entry; nil when Err is set.
	Server *bundle.Server
	// Err says why the export failed, with the target's secrets hidden.
	// The runtime's and Export's errors are kept reachable for errors.As
	// (*composition.ConnectError, *AnswerError) and errors.Is
	// (context.DeadlineExceeded).
	Err error
}

// ExportAll connects to every target, at most opts.Concurrency at a time,
// and exports each with Export. Each server gets its own deadline
// (Target.Timeout) within ctx. A failing server does not stop the others:
// the outcomes, in the order of targets, say which succeeded.
func ExportAll(ctx context.Context, targets []*Target, opts MultiOptions) []Outcome {
	n := opts.Concurrency
	if n <= 0 {
		n = DefaultConcurrency
	}
	var logMu sync.Mutex
	logf := func(t *Target, warning bool, format string, args ...any) {
		if opts.Log == nil {
			return
		}
		msg := fmt.Sprintf(format, args...)
		logMu.Lock()
		defer logMu.Unlock()
		opts.Log(t.name(), warning, redact.Text(msg, t.Secrets))
	}
	connect := opts.Connect
	if connect == nil {
		connect = func(ctx context.Context, t *Target) (ClosableSession, error) {
			s, err := composition.Connect(ctx, t.Transport, t.Options...)
			if err != nil {
				return nil, err // a nil *Session must not become a non-nil interface
			}
			return s, nil
		}
	}

	out := make([]Outcome, len(targets))
	sem := make(chan struct{}, n)
	var wg sync.WaitGroup
	for i, t := range targets {
		out[i].Target = t
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				out[i].Err = fmt.Errorf("not started: %w", ctx.Err())
				return
			}
			defer func() { <-sem }()
			srv, err := exportOne(ctx, t, opts.Export, opts.ProbeEras, connect, logf)
			out[i].Server = srv
			out[i].Err = redact.Error(err, t.Secrets)
		}()
	}
	wg.Wait()
	return out
}

// exportOne connects to t and exports it.
func exportOne(ctx context.Context, t *Target, base Options, probeEras bool,
	connect func(context.Context, *Target) (ClosableSession, error),
	logf func(*Target, bool, string, ...any)) (*bundle.Server, error) {
	runCtx := ctx
	if t.Timeout > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, t.Timeout)
		defer cancel()
	}
	explain := func(err error) error {
		switch {
		case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
			return fmt.Errorf("%w (gave up after timeout %s)", err, t.Timeout)
		case ctx.Err() != nil:
			return fmt.Errorf("%w (interrupted)", err)
		}
		return err
	}
	server := t.Transport.String()
	logf(t, false, "connecting to %s", server)
	sess, err := connect(runCtx, t)
	if err != nil {
		return nil, explain(err)
	}
	closed := false
	closeSession := func() {
		if !closed {
			closed = true
			if err := sess.Close(); err != nil {
				logf(t, true, "closing %s: %v", server, err)
			}
		}
	}
	defer closeSession()
	v := sess.ProtocolVersion()
	logf(t, false, "connected: protocol %s over %s; listing tools", v, sess.Transport())
	if t.ProtocolVersion != "" && v != t.ProtocolVersion {
		logf(t, true, "asked %s for protocol %s; it answered %s, which the bundle records", server, t.ProtocolVersion, v)
	}
	o := base
	o.ID = t.ID
	if o.Warn == nil {
		o.Warn = func(msg string) { logf(t, true, "%s", msg) }
	}
	if probeEras {
		pv := ProbeVersion(v)
		logf(t, false, "--probe-eras: connecting again at protocol %s", pv)
		pt := *t
		pt.Options = append(slices.Clip(t.Options), composition.WithProtocolVersion(pv))
		probe, err := connect(runCtx, &pt)
		if err != nil {
			logf(t, true, "--probe-eras: cannot connect at protocol %s, so no envelope evidence is recorded: %v", pv, err)
		} else {
			defer func() { _ = probe.Close() }()
			o.Probe = probe
		}
	}
	srv, err := Export(runCtx, sess, o)
	if err != nil {
		var ae *AnswerError
		if errors.As(err, &ae) {
			err = fmt.Errorf("server %s: %w", server, err) // the runtime's own errors name it already
		}
		return nil, explain(err)
	}
	closeSession()
	logf(t, false, "exported %d tool(s) of %s (protocol %s, %s)", len(srv.Tools), srv.ID, srv.ProtocolVersion, srv.Transport)
	return srv, nil
}

// name names a target in progress lines: its id, or how it is reached.
func (t *Target) name() string {
	if t.ID != "" {
		return t.ID
	}
	return t.Transport.String()
}

// Merge returns b with servers added, each replacing the server of b with
// the same id. b is not modified; the servers of b that are not replaced are
// kept as they are, so Marshal writes them byte for byte as before when b
// was read from a canonical bundle (one that Marshal wrote).
func Merge(b *bundle.Bundle, servers []bundle.Server) *bundle.Bundle {
	out := &bundle.Bundle{BundleVersion: b.BundleVersion}
	replaced := map[string]bool{}
	for _, s := range servers {
		replaced[s.ID] = true
	}
	for _, s := range b.Servers {
		if !replaced[s.ID] {
			out.Servers = append(out.Servers, s)
		}
	}
	out.Servers = append(out.Servers, servers...)
	return out
}
