package composition

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpbind/mcpbind/composition/bindimpl"

	"github.com/mcpbind/mcpbind/internal/redact"
	"github.com/mcpbind/mcpbind/internal/serverid"
	"github.com/mcpbind/mcpbind/internal/textsafe"
)

// Registry holds the downstream MCP servers of a program by id: from a
// servers config file (package composition/serverconfig's LoadRegistry, the
// file `mcpbind export --config` reads) or added in code ([Registry.Add]). A server is connected on first
// use ([Registry.Session], a call through [Registry.Server]) or all at once by
// [Registry.Connect]; at most one connect per server is in flight, and
// concurrent callers wait for it. A session that is lost (its stdio process
// exited, its HTTP session or stream ended) is reconnected in the background
// with bounded exponential backoff ([WithBackoff]). All methods are safe for
// concurrent use. [Registry.Close] closes every session.
type Registry struct {
	opts []Option
	// life bounds background connects; Close cancels it.
	life   context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	closed  bool
	servers map[string]*regServer
}

// ErrRegistryClosed is returned for a use of a [Registry] after Close.
var ErrRegistryClosed = errors.New("composition: the registry is closed")

// Reconnect backoff defaults: the first reconnect attempt after a lost
// session waits DefaultBackoffBase, each failed attempt doubles the wait, up
// to DefaultBackoffMax.
const (
	DefaultBackoffBase = 100 * time.Millisecond
	DefaultBackoffMax  = 5 * time.Second
)

// DefaultConnectTimeout bounds one connect attempt of a registry server,
// unless its config file entry gives a timeout.
const DefaultConnectTimeout = 30 * time.Second

// backoff is the WithBackoff setting (zero: the defaults).
type backoff struct{ base, max time.Duration }

// WithBackoff sets a registry's reconnect backoff: the wait before the
// first reconnect attempt after a lost session is base, and each failed
// attempt doubles it, up to max. A failed first connect makes the next
// caller's attempt wait in the same way. Values <= 0 keep the defaults
// ([DefaultBackoffBase], [DefaultBackoffMax]); max below base is raised to
// base. Connect ignores it.
func WithBackoff(base, max time.Duration) Option {
	return Option{apply: func(c *config) { c.backoff = backoff{base: base, max: max} }}
}

// delay is the wait before an attempt that follows failures failed ones.
func (b backoff) delay(failures int) time.Duration {
	base, limit := b.base, b.max
	if base <= 0 {
		base = DefaultBackoffBase
	}
	if limit <= 0 {
		limit = DefaultBackoffMax
	}
	limit = max(limit, base)
	d := base
	for range failures {
		if d >= limit/2 {
			return limit
		}
		d *= 2
	}
	return d
}

// ServerState is the state of a registry server in [ServerStatus].
type ServerState string

// The states of a registry server.
const (
	// StateIdle: not connected yet (connected on first use).
	StateIdle ServerState = "idle"
	// StateConnecting: the first connect is in flight.
	StateConnecting ServerState = "connecting"
	// StateConnected: a session is open.
	StateConnected ServerState = "connected"
	// StateReconnecting: the session was lost; reconnect attempts go on
	// with backoff until one succeeds or the registry is closed.
	StateReconnecting ServerState = "reconnecting"
	// StateFailed: the last connect attempt failed; the next use tries
	// again after the backoff.
	StateFailed ServerState = "failed"
	// StateClosed: the registry is closed.
	StateClosed ServerState = "closed"
	// StateDegraded: a session is open, but calls of some pinned tools
	// are blocked: under [DigestFail], a pinned tool changed since the
	// bundle was exported ([ServerStatus.ChangedTools] says which, with
	// Blocked set), or the server said its tools changed and they could
	// not be listed to compare them (every pinned tool is then blocked
	// until a listing succeeds). The other tools work. Under [DigestWarn]
	// changed tools are listed but not blocked, and the state stays
	// [StateConnected].
	StateDegraded ServerState = "degraded"
)

// ServerStatus is a snapshot of one registry server, from [Registry.Status].
// It encodes as JSON with the names of its tags (for a health endpoint);
// empty optional fields are left out.
type ServerStatus struct {
	// ID is the server's id in the registry.
	ID string `json:"id"`
	// Server names it: its command or URL, as [Transport.String], with
	// configured secrets masked.
	Server string `json:"server"`
	// Transport is the transport of the current session
	// ([TransportStdio], …), "" when not connected.
	Transport string `json:"transport,omitempty"`
	// State is the server's state: [StateDegraded] rather than
	// [StateConnected] while calls of pinned tools are blocked.
	State ServerState `json:"state"`
	// ProtocolVersion is the version the current (or last) session
	// negotiated, "" before the first connect.
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	// Reconnects counts the sessions opened after a lost one.
	Reconnects int `json:"reconnects"`
	// LastError is the last connect failure or the reason the last session
	// was lost ("" when none), redacted of configured secrets and URL
	// credentials, and escaped (control, bidirectional and line-breaking
	// characters as "\u202e" and the like). It never holds a stdio
	// server's stderr (see [StderrTail]).
	LastError string `json:"lastError,omitempty"`
	// ChangedTools are the pinned tools of the current session whose live
	// definition no longer matches the bundle (see [Session.ChangedTools]),
	// sorted by name; empty when none changed or nothing is pinned.
	ChangedTools []ToolStatus `json:"changedTools,omitempty"`
	// LoginCommand, when the last failure was that the server needs an
	// OAuth login (a *LoginRequiredError: servers.yaml "auth: oauth" with
	// no kept login, or one that was refused and could not be refreshed),
	// is the command that logs in: "mcpbind login [--oauth-client-id ID]
	// URL". "" otherwise.
	LoginCommand string `json:"loginCommand,omitempty"`
}

// regServer is one server of a registry.
type regServer struct {
	r       *Registry
	id      string
	t       Transport
	opts    []Option
	timeout time.Duration
	// secrets are values from the config file (expanded variables) that
	// Status and logs must not show.
	secrets []string

	mu         sync.Mutex
	sess       *Session
	pending    chan struct{} // closed when the connect attempt in flight ends
	state      ServerState
	version    string
	reconnects int
	failures   int // consecutive failed attempts
	lastErr    error
	log        *slog.Logger // WithLogger, from the options of the last connect
	// events is WithEvents's callback, from the options of the last
	// connect (nil: none).
	events func(context.Context, Event)
}

// NewRegistry returns an empty registry. opts apply to every server's
// sessions (before the server's own options): typically [WithLogger],
// [WithInterceptor], [WithBackoff], [WithArgsValidation].
func NewRegistry(opts ...Option) *Registry {
	life, cancel := context.WithCancel(context.Background())
	return &Registry{opts: slices.Clone(opts), life: life, cancel: cancel, servers: map[string]*regServer{}}
}

// Add adds the server id, reached through t, with options of its own
// (pinning.DigestCheck of a generated package's Pins, headers, …). It
// connects nothing. The id must be a valid bundle server id; adding one
// twice, or after Close, is an error.
func (r *Registry) Add(id string, t Transport, opts ...Option) error {
	return r.add(&regServer{id: id, t: t, opts: slices.Clone(opts)})
}

func (r *Registry) add(s *regServer) error {
	if err := serverid.Check(s.id); err != nil {
		return fmt.Errorf("composition: registry: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ErrRegistryClosed
	}
	if _, dup := r.servers[s.id]; dup {
		return fmt.Errorf("composition: registry: server %q is already added", s.id)
	}
	s.r, s.state = r, StateIdle
	r.servers[s.id] = s
	return nil
}

// Use adds options for the server id, applied from its next connect on:
// pinning.DigestCheck of a generated package's Pins for a server read from
// a config file, for example. Call it before the server is first used.
func (r *Registry) Use(id string, opts ...Option) error {
	s, err := r.lookup(id)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.opts = append(s.opts, opts...)
	s.mu.Unlock()
	return nil
}

// lookup returns the server id.
func (r *Registry) lookup(id string) (*regServer, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, ErrRegistryClosed
	}
	s, ok := r.servers[id]
	if !ok {
		return nil, fmt.Errorf("composition: registry: no server %q (servers: %s)", id, strings.Join(slices.Sorted(maps.Keys(r.servers)), ", "))
	}
	return s, nil
}

// Session returns the open session of the server id, connecting it first
// when needed (or waiting for the connect in flight, bounded by ctx). A
// failed connect returns its *[ConnectError]. A session returned here does
// not reconnect by itself; calls through [Registry.Server] do.
func (r *Registry) Session(ctx context.Context, id string) (*Session, error) {
	s, err := r.lookup(id)
	if err != nil {
		return nil, err
	}
	return s.session(ctx)
}

// Connect connects every server not yet connected, concurrently, and
// returns the failures joined (each a *[ConnectError] naming its server).
func (r *Registry) Connect(ctx context.Context) error {
	r.mu.Lock()
	servers := slices.Collect(maps.Values(r.servers))
	closed := r.closed
	r.mu.Unlock()
	if closed {
		return ErrRegistryClosed
	}
	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Go(func() {
			if _, err := s.session(ctx); err != nil {
				errs[i] = fmt.Errorf("server %q: %w", s.id, err)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Status returns a snapshot of every server, sorted by id.
func (r *Registry) Status() []ServerStatus {
	r.mu.Lock()
	servers := slices.Collect(maps.Values(r.servers))
	closed := r.closed
	r.mu.Unlock()
	out := make([]ServerStatus, 0, len(servers))
	for _, s := range servers {
		s.mu.Lock()
		st := ServerStatus{ID: s.id, Server: redact.Text(s.t.String(), s.secrets), State: s.state, ProtocolVersion: s.version, Reconnects: s.reconnects}
		if s.sess != nil {
			st.Transport = s.sess.Transport()
			var blocked bool
			st.ChangedTools, blocked = s.sess.pinStatus()
			if blocked && st.State == StateConnected {
				st.State = StateDegraded
			}
		}
		if s.lastErr != nil {
			st.LastError = s.redact(s.lastErr)
			if le := (*LoginRequiredError)(nil); errors.As(s.lastErr, &le) {
				st.LoginCommand = le.Command()
			}
		}
		s.mu.Unlock()
		if closed {
			st.State = StateClosed
		}
		out = append(out, st)
	}
	slices.SortFunc(out, func(a, b ServerStatus) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// Close closes every session, stops reconnecting and waits for background
// connects to end. Later uses fail with [ErrRegistryClosed]. It returns the
// sessions' Close errors joined; calling it again returns nil.
func (r *Registry) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	servers := slices.Collect(maps.Values(r.servers))
	r.mu.Unlock()
	r.cancel()
	var errs []error
	for _, s := range servers {
		s.mu.Lock()
		sess := s.sess
		s.sess, s.state = nil, StateClosed
		s.mu.Unlock()
		if sess != nil {
			if err := sess.Close(); err != nil {
				errs = append(errs, fmt.Errorf("server %q: %w", s.id, err))
			}
		}
	}
	r.wg.Wait()
	return errors.Join(errs...)
}

// spawn runs f in a goroutine that Close waits for; it reports false (and
// runs nothing) once the registry is closed.
func (r *Registry) spawn(f func()) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		f()
	}()
	return true
}

// isClosed reports whether Close was called.
func (r *Registry) isClosed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closed
}

// alive reports whether s is neither closed nor known to be lost.
func alive(s *Session) bool {
	select {
	case <-s.Done():
		return false
	default:
		return true
	}
}

// session returns the server's open session, starting a connect when none
// is open or in flight and waiting (bounded by ctx) for the attempt in
// flight; when that attempt fails, its error is returned.
func (s *regServer) session(ctx context.Context) (*Session, error) {
	sess, _, err := s.await(ctx)
	return sess, err
}

// reconnectWait says whether a call waited for its server's reconnect
// (after a lost session), and how long.
type reconnectWait struct {
	waited bool
	d      time.Duration
}

// await is session, which also reports whether it waited for a reconnect
// (not for a first connect): the wait of a registry call's EventReconnect.
// It reads the clock only when it waits for one.
func (s *regServer) await(ctx context.Context) (*Session, reconnectWait, error) {
	var rw reconnectWait
	var began time.Time
	done := func() reconnectWait {
		if rw.waited {
			rw.d = time.Since(began)
		}
		return rw
	}
	for waited := false; ; waited = true {
		s.mu.Lock()
		if s.r.isClosed() {
			s.mu.Unlock()
			return nil, done(), ErrRegistryClosed
		}
		if cur := s.sess; cur != nil {
			if alive(cur) {
				s.mu.Unlock()
				return cur, done(), nil
			}
			s.lostLocked(cur, cur.Err())
		}
		if waited {
			err := s.lastErr
			s.mu.Unlock()
			if err == nil {
				err = ErrSessionLost
			}
			return nil, done(), s.redactErr(err)
		}
		if s.pending == nil && !s.startLocked(false) {
			s.mu.Unlock()
			return nil, done(), ErrRegistryClosed
		}
		if s.state == StateReconnecting && !rw.waited {
			rw.waited, began = true, time.Now()
		}
		ch := s.pending
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, done(), fmt.Errorf("composition: server %q: waiting for its connect: %w", s.id, ctx.Err())
		}
	}
}

// startLocked starts a connect loop (s.mu held): one attempt for a first
// connect, attempts until success for a reconnect.
func (s *regServer) startLocked(reconnect bool) bool {
	ch := make(chan struct{})
	if !s.r.spawn(func() { s.run(reconnect) }) {
		return false
	}
	s.pending = ch
	s.state = StateConnecting
	if reconnect {
		s.state = StateReconnecting
	}
	return true
}

// connectOptions are the options of the server's sessions: the registry's,
// the server's own, and its id as the name in calls and logs.
func (s *regServer) connectOptions() []Option {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Concat(s.r.opts, s.opts, []Option{withServerName(s.id)})
}

// run makes connect attempts, each after its backoff, until one succeeds,
// the registry closes or, for a first connect, one fails.
func (s *regServer) run(reconnect bool) {
	opts := s.connectOptions()
	cfg, _ := newConfig(opts)
	log := cfg.observe.logger
	s.mu.Lock()
	s.log, s.events = log, cfg.observe.events
	s.mu.Unlock()
	timeout := s.timeout
	if timeout <= 0 {
		timeout = DefaultConnectTimeout
	}
	for {
		s.mu.Lock()
		failures := s.failures
		s.mu.Unlock()
		if reconnect || failures > 0 {
			n := failures
			if !reconnect {
				n--
			}
			t := time.NewTimer(cfg.backoff.delay(n))
			select {
			case <-t.C:
			case <-s.r.life.Done():
				t.Stop()
			}
		}
		if s.r.life.Err() != nil {
			s.finish(ErrRegistryClosed)
			return
		}
		start := time.Now()
		ctx, cancel := context.WithTimeout(s.r.life, timeout)
		sess, err := Connect(ctx, s.t, opts...)
		cancel()
		if err == nil && s.r.life.Err() != nil {
			_ = sess.Close()
			err = ErrRegistryClosed
		}
		if log != nil {
			attrs := []slog.Attr{slog.String("server", s.id), slog.Duration("duration", time.Since(start))}
			msg := "mcp connect"
			if reconnect {
				msg = "mcp reconnect"
				attrs = append(attrs, slog.Int("attempt", failures+1))
			}
			if err != nil {
				log.LogAttrs(s.r.life, slog.LevelWarn, msg+" failed", append(attrs, slog.String("error", s.redact(err)))...)
				s.logStderr(log, err, nil)
			} else {
				log.LogAttrs(s.r.life, slog.LevelInfo, msg, append(attrs, slog.String("transport", sess.Transport()), slog.String("protocolVersion", sess.ProtocolVersion()))...)
			}
		}

		s.mu.Lock()
		ch := s.pending
		if err == nil {
			s.sess, s.version, s.failures, s.state, s.pending = sess, sess.ProtocolVersion(), 0, StateConnected, nil
			if reconnect {
				s.reconnects++
			}
			close(ch)
			s.mu.Unlock()
			if !s.r.spawn(func() { s.watch(sess) }) {
				// Closed meanwhile: Close may have missed this session.
				s.mu.Lock()
				if s.sess == sess {
					s.sess = nil
				}
				s.mu.Unlock()
				_ = sess.Close()
			}
			return
		}
		s.lastErr = err
		s.failures++
		if !reconnect || s.r.life.Err() != nil {
			s.state, s.pending = StateFailed, nil
			close(ch)
			s.mu.Unlock()
			return
		}
		s.pending = make(chan struct{})
		close(ch)
		s.mu.Unlock()
	}
}

// finish ends a connect loop that made no attempt, with err.
func (s *regServer) finish(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastErr, s.state = err, StateFailed
	if s.pending != nil {
		close(s.pending)
		s.pending = nil
	}
}

// watch notices when sess is lost and starts reconnecting.
func (s *regServer) watch(sess *Session) {
	select {
	case <-sess.Done():
		s.lost(sess, sess.Err())
	case <-s.r.life.Done():
	}
}

// lost records that sess is lost (because of cause) and starts reconnecting,
// unless that happened already.
func (s *regServer) lost(sess *Session, cause error) {
	s.mu.Lock()
	s.lostLocked(sess, cause)
	s.mu.Unlock()
}

func (s *regServer) lostLocked(sess *Session, cause error) {
	if s.sess != sess {
		return
	}
	if cause == nil {
		cause = ErrSessionLost
	}
	if le := new(SessionLostError); errors.As(cause, &le) && le.Err != nil {
		cause = le.Err // why, without the request's fate
	}
	s.sess, s.lastErr = nil, cause
	if s.log != nil {
		s.log.LogAttrs(s.r.life, slog.LevelWarn, "mcp session lost", slog.String("server", s.id), slog.String("error", s.redact(cause)))
		s.logStderr(s.log, cause, sess)
	}
	if !s.r.spawn(func() { _ = sess.Close() }) {
		go func() { _ = sess.Close() }()
	}
	if s.pending == nil {
		s.startLocked(true)
	}
}

// logger is the server's WithLogger logger of its last connect, or nil.
func (s *regServer) logger() *slog.Logger {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log
}

// reconnected reports EventReconnect (WithEvents) for a call of tool, with
// its ctx, that waited d for the server's reconnect, which gave sess or
// failed with err.
func (s *regServer) reconnected(ctx context.Context, tool *bindimpl.Tool, sess *Session, d time.Duration, err error) {
	events := s.eventsFunc()
	if events == nil {
		return
	}
	e := Event{Kind: EventReconnect, Server: s.id, Tool: tool.Name, Duration: d, Err: err}
	if sess != nil {
		e.Peer = sess.peer
	}
	events(ctx, e)
}

// eventsFunc is the server's WithEvents callback of its last connect, or
// nil.
func (s *regServer) eventsFunc() func(context.Context, Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.events
}

// redact is err's message without the server's secrets, escaped
// (internal/textsafe): the form of LastError and of log attributes.
func (s *regServer) redact(err error) string {
	return textsafe.Escape(redact.Text(err.Error(), s.secrets))
}

// logStderr logs at level Debug, as "mcp server stderr", the stderr tail
// that err carries ([StderrTail]) or else the lost session sess has kept,
// redacted and escaped: for the operator, never in an error message.
func (s *regServer) logStderr(log *slog.Logger, err error, sess *Session) {
	tail := StderrTail(err)
	if tail == "" && sess != nil {
		tail = sess.c.StderrTail()
	}
	if tail != "" {
		log.LogAttrs(s.r.life, slog.LevelDebug, "mcp server stderr", slog.String("server", s.id),
			slog.String("stderr", textsafe.Escape(redact.Text(tail, s.secrets))))
	}
}

// redactErr is err with the server's secrets masked in its message (values
// from the config file that the session's own redaction does not know, such
// as a variable expanded into the command); errors.Is and errors.As see err.
func (s *regServer) redactErr(err error) error { return redact.Error(err, s.secrets) }

// Server returns the [Caller] of the server id, for a generated client's
// FromRegistry. Its calls connect the server when needed and wait for a
// connect in flight, then run [Session.Invoke] on the server's session
// (its interceptors, validation and pins apply). When a call fails because
// its session was lost (a *[SessionLostError]), the registry reconnects and
// sends the call once more on the new session if that is safe: the request
// was not sent (Sent is false), or tool.ReadOnly or tool.Idempotent says
// that running it twice is harmless. Otherwise, or when reconnecting fails,
// the call fails with a *[CallLostError] saying whether it may have run. An
// unknown id fails at call time.
func (r *Registry) Server(id string) Caller {
	return &serverCaller{r: r, id: id}
}

// serverCaller is the Caller of one registry server.
type serverCaller struct {
	r  *Registry
	id string
}

// Invoke implements Caller: Session.Invoke on the server's session, sent
// again once on a new session when that is safe.
func (c *serverCaller) Invoke(ctx context.Context, tool *bindimpl.Tool, args any, out any) error {
	s, err := c.r.lookup(c.id)
	if err != nil {
		return err
	}
	sess, rw, err := s.await(ctx)
	if rw.waited {
		s.reconnected(ctx, tool, sess, rw.d, err)
	}
	if err != nil {
		return err
	}
	err = sess.Invoke(ctx, tool, args, out)
	var le *SessionLostError
	if !errors.As(err, &le) {
		return err
	}
	s.lost(sess, err)
	lostErr := &CallLostError{Server: c.id, Tool: tool.Name, MayHaveRun: le.Sent, Err: err}
	if le.Sent && !tool.ReadOnly && !tool.Idempotent {
		return lostErr
	}
	waited := time.Now()
	sess, err = s.session(ctx)
	s.reconnected(ctx, tool, sess, time.Since(waited), err)
	if err != nil {
		lostErr.Reconnect = err
		return lostErr
	}
	if events := s.eventsFunc(); events != nil {
		events(ctx, Event{Kind: EventRetry, Server: c.id, Tool: tool.Name, Peer: sess.peer, MayHaveRun: le.Sent})
	}
	if log := s.logger(); log != nil {
		log.LogAttrs(ctx, slog.LevelInfo, "mcp call sent again after reconnect", slog.String("server", c.id), slog.String("tool", tool.Name), slog.Bool("mayHaveRun", le.Sent))
	}
	err = sess.Invoke(ctx, tool, args, out)
	if errors.As(err, &le) {
		s.lost(sess, err)
		lostErr.Retried, lostErr.MayHaveRun, lostErr.Err = true, lostErr.MayHaveRun || le.Sent, err
		return lostErr
	}
	return err
}

// CallLostError is returned by a call through a [Registry] whose session was
// lost and that was not completed on a new session: the tool is neither
// read-only nor idempotent and the request may have reached the server,
// reconnecting failed, or the call was sent again and that session was lost
// too. errors.Is(err, ErrSessionLost) is true for it; errors.As finds the
// *[SessionLostError] of the last loss.
type CallLostError struct {
	// Server is the server's id in the registry.
	Server string
	// Tool is the tool's name.
	Tool string
	// MayHaveRun is true when a request reached, or may have reached, the
	// server before the session was lost: the call may or may not have
	// run. False means it certainly did not run.
	MayHaveRun bool
	// Retried is true when the call was sent again on a new session.
	Retried bool
	// Err is the error of the last attempt (a *SessionLostError inside).
	Err error
	// Reconnect is the error of reconnecting to send the call again, or
	// nil.
	Reconnect error
}

// Error says whether the call may have run, and why it was not (or not
// successfully) sent again.
func (e *CallLostError) Error() string {
	msg := fmt.Sprintf("composition: server %q: tool %q: the session was lost before the call was sent, so it did not run", e.Server, e.Tool)
	if e.MayHaveRun {
		msg = fmt.Sprintf("composition: server %q: tool %q: the session was lost during the call, which may or may not have run", e.Server, e.Tool)
	}
	switch {
	case e.Reconnect != nil:
		return fmt.Sprintf("%s; reconnecting to send it again failed: %v (the session was lost: %v)", msg, e.Reconnect, e.Err)
	case e.Retried:
		return fmt.Sprintf("%s; it was sent again after reconnecting and that session was lost too: %v", msg, e.Err)
	}
	return fmt.Sprintf("%s; not sent again because the tool is neither read-only nor idempotent (readOnlyHint, idempotentHint): %v", msg, e.Err)
}

// Is reports whether target is ErrSessionLost.
func (e *CallLostError) Is(target error) bool { return target == ErrSessionLost }

// Unwrap returns Err and Reconnect.
func (e *CallLostError) Unwrap() []error { return []error{e.Err, e.Reconnect} }
