package composition

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpbind/mcpbind/composition/bindimpl"

	"github.com/mcpbind/mcpbind/internal/digest"
	"github.com/mcpbind/mcpbind/internal/textsafe"
)

// ChangeClass is how much a change to a tool matters, as `mcpbind diff`
// classifies it: [Breaking], [Compatible] or [Cosmetic].
type ChangeClass string

// The classes of a [ToolChange].
const (
	// Breaking: clients generated against the bundle may fail (an argument
	// the server now rejects, a result the decoder does not expect, the tool
	// removed).
	Breaking ChangeClass = "breaking"
	// Compatible: the contract changed in a way generated clients tolerate.
	Compatible ChangeClass = "compatible"
	// Cosmetic: documentation and metadata only (description, title,
	// annotations, …). A changed description is still what a model reads,
	// so pinning treats it as a change like any other.
	Cosmetic ChangeClass = "cosmetic"
)

// ToolPart is the part of a tool a [ToolChange] is in.
type ToolPart string

// The parts of a tool.
const (
	// InTool: the tool's own fields (title, description, annotations, …),
	// or the tool as a whole (removed, unreadable).
	InTool ToolPart = "tool"
	// InInput: the tool's inputSchema.
	InInput ToolPart = "input"
	// InOutput: the tool's outputSchema.
	InOutput ToolPart = "output"
)

// ToolChange is one difference between a tool as its bundle recorded it and
// as the server lists it now, with the fields and JSON names of a change
// that `mcpbind diff -o json` reports.
type ToolChange struct {
	// Class says how much the change matters.
	Class ChangeClass `json:"class"`
	// Server names the server, as [ToolChangedError.Server] does.
	Server string `json:"server"`
	// Tool is the tool's name.
	Tool string `json:"tool,omitempty"`
	// Where is the part of the tool the change is in.
	Where ToolPart `json:"where"`
	// Pointer locates the change: a JSON pointer into the schema (InInput,
	// InOutput) or the tool object (InTool); "" for the tool as a whole.
	// It holds the server's text (property names).
	Pointer string `json:"pointer,omitempty"`
	// Code is a stable, machine-readable name of the kind of change, such
	// as "property-added" or "tool-fields-changed".
	Code string `json:"code"`
	// Message says what changed, in words; it may quote the server's text.
	Message string `json:"message"`
	// Old and New are the values before and after (JSON), when known.
	Old json.RawMessage `json:"old,omitempty"`
	New json.RawMessage `json:"new,omitempty"`
}

// PinComparer says how a pinned tool changed, for [WithPins]. Package
// composition/pinning has the one that classifies schema changes by the
// rules of `mcpbind diff`; composition itself compares digests only, so
// that a program that pins no tools does not link the diff engine.
type PinComparer interface {
	// Compare returns what differs between pinned, a tool as its bundle
	// recorded it, and live, the tool object the server lists now, whose
	// digest is not pinned.Digest; most severe change first. liveRoot is
	// where the natural result schema sits in live's outputSchema: "" (the
	// root) or, for a {"result": …} envelope, "/properties/result" (in a
	// session of the other protocol era than the bundle's, it may differ
	// from pinned.ResultPointer). None means that no difference in meaning
	// was found: see [WithPins] for what the session makes of that. The
	// session sets each change's Server and Tool. Compare must be safe for
	// concurrent use and must not keep live.
	Compare(pinned *bindimpl.Tool, live json.RawMessage, liveRoot string) []ToolChange
}

// ToolChangedError is the error of a call of a tool whose live definition
// no longer matches the digest its generated package pinned (see
// [WithPins] and [DigestFail]): the server changed the tool's description,
// title, annotations or schemas, or no longer lists it, since the bundle
// was exported. The call is not sent. Other tools of the server keep
// working.
//
// Changes come from the session's [PinComparer]. With pinning.DigestCheck
// (package composition/pinning), a schema change is classified in detail
// (JSON pointer and class, as `mcpbind diff` reports it), while a change to
// the tool's other fields is one [Cosmetic] change with Code
// "tool-fields-changed": a generated package embeds each tool's schemas but
// only the digest of the whole tool object; `mcpbind diff` of the bundle
// against a fresh export shows the values. Without a comparer a change is
// one [Breaking] "tool-changed". The codes of the engine itself:
// "tool-removed" (Removed), "tool-rewritten" (the JSON differs but the
// comparer found no difference in meaning) and "tool-undigestable" (the
// live tool has a number RFC 8785 cannot write, so it has no digest).
type ToolChangedError struct {
	// Server names the server, as [ConnectError.Server] does.
	Server string
	// Tool is the tool's name.
	Tool string
	// Removed is true when the server no longer lists the tool.
	Removed bool
	// Pinned is the tool's digest from the bundle; Live is the digest of
	// the tool the server lists now ("" when Removed or undigestable).
	Pinned, Live string
	// Changes says what changed, most severe first.
	Changes []ToolChange
}

// Error names the server, the tool, the class of its most severe change
// and the count of changes, such as `tool "greet" changed since the bundle
// was exported: 2 changes, the most severe breaking (property-added)`, with
// the change code and the digests (our words). It leaves out the changes'
// JSON pointers, messages and values, which hold the server's own text
// (property names, descriptions): a composing server that passes the error
// on must not pass on the text it guards against. Changes has them, and
// the session's warnings name the pointers.
func (e *ToolChangedError) Error() string {
	if e.Removed {
		return fmt.Sprintf("composition: %s: tool %q was removed: the server no longer lists it (breaking); re-export the bundle and regenerate the client", e.Server, e.Tool)
	}
	n := fmt.Sprintf("%d changes, the most severe", len(e.Changes))
	if len(e.Changes) == 1 {
		n = "1 change,"
	}
	worst := "(none)"
	if len(e.Changes) > 0 {
		worst = fmt.Sprintf("%s (%s)", e.Changes[0].Class, e.Changes[0].Code)
	}
	return textsafe.Escape(fmt.Sprintf("composition: %s: tool %q changed since the bundle was exported (digest %s, the bundle pinned %s): %s %s; review it (mcpbind diff), re-export the bundle and regenerate the client",
		e.Server, e.Tool, e.Live, e.Pinned, n, worst))
}

// describe is the detailed message for the session's warnings: per change
// its class, where, JSON pointer (quoted) and code.
func (e *ToolChangedError) describe() string {
	if e.Removed {
		return fmt.Sprintf("%s: tool %q was removed: the server no longer lists it (breaking); re-export the bundle and regenerate the client", e.Server, e.Tool)
	}
	parts := make([]string, 0, len(e.Changes))
	for _, c := range e.Changes {
		p := string(c.Class) + " " + string(c.Where)
		if c.Pointer != "" {
			p += " " + strconv.Quote(c.Pointer)
		}
		parts = append(parts, p+" ("+c.Code+")")
	}
	return fmt.Sprintf("%s: tool %q changed since the bundle was exported (digest %s, the bundle pinned %s): %s; review it (mcpbind diff), re-export the bundle and regenerate the client",
		e.Server, e.Tool, e.Live, e.Pinned, strings.Join(parts, "; "))
}

// pinSet is a session's per-tool pinning state: the pinned descriptors and,
// from the last comparison, the error of each tool that changed.
type pinSet struct {
	mode  DigestMode
	tools map[string]*bindimpl.Tool // pinned tools by name (Digest != ""), copies of WithPins's
	// compare classifies a changed tool (WithPins's PinComparer); nil:
	// digests only.
	compare PinComparer
	// crossEra: the session's protocol era is not the bundle's, so a tool
	// whose result the server wraps for one era only lists another
	// outputSchema; tools are then compared by meaning (compare).
	crossEra bool
	warn     func(string)    // records a warning of the session (Session.Warnings, WithWarnings)
	logger   *slog.Logger    // WithLogger's, or nil
	server   string          // the server's name in log records (a Registry's id)
	life     context.Context // ends when the session is closed or lost
	mu       sync.Mutex
	changed  map[string]*ToolChangedError
	// Re-checks coalesce: one runs at a time (running), and requests that
	// arrive meanwhile fold into one queued re-check (queued). Generations
	// count the comparisons: started is the one running (or the last
	// started), done the last completed; doneCh is closed and replaced each
	// time one completes. A call of a pinned tool waits at most for the
	// generation that covers the notifications received before it (see
	// checkPin), never for re-checks asked later.
	running, queued bool
	started, done   uint64
	doneCh          chan struct{}
	// stale is why the last re-check could not list the tools, or nil.
	// Under DigestFail a call of a pinned tool then re-checks first and
	// fails if the tools still cannot be listed: the server said they
	// changed, and they cannot be compared.
	stale error
	// seen is, per pinned tool, the live JSON of the last completed
	// comparison; a tool listed with the same bytes again keeps its
	// verdict without being digested and compared again. Only the
	// comparison that runs uses it.
	seen map[string]string
}

// pinned returns the pinned tools of dc by name, or nil when none has a
// digest.
func (dc digestCheck) pinned() map[string]*bindimpl.Tool {
	var m map[string]*bindimpl.Tool
	for _, t := range dc.tools {
		if t.Digest == "" {
			continue
		}
		if m == nil {
			m = map[string]*bindimpl.Tool{}
		}
		m[t.Name] = t
	}
	return m
}

// checkPins is the per-tool check at Connect, for a digest check that
// carries pinned tools: it compares each pinned tool with the live list and
// keeps watching notifications/tools/list_changed. A server digest that
// differs does not fail Connect: tools added, or changed tools that this
// package does not call, do not concern the client, and changed pinned
// tools fail only their own calls (DigestFail) or are warned about
// (DigestWarn). A tool list that cannot be read fails Connect under
// DigestFail, as the server-level check does; a tool that cannot be
// digested concerns only itself.
func (s *Session) checkPins(ctx context.Context, cfg *config, pins map[string]*bindimpl.Tool, crossEra bool) (*Session, error) {
	// Watch before the first listing, so that a change in between is not
	// missed: a notification during it makes recheckPins run once more.
	life, cancel := context.WithCancel(context.Background())
	go func() {
		<-s.Done()
		cancel()
	}()
	ps := &pinSet{mode: cfg.digest.mode, tools: pins, compare: cfg.digest.compare, crossEra: crossEra, warn: s.c.Warn, logger: s.observe.logger, server: s.observe.name(s.c.Server()),
		life: life, doneCh: make(chan struct{}), running: true, started: 1}
	s.pins = ps
	s.watchToolList()
	changed, serverDigest, err := s.comparePins(ctx, ps, nil)
	if err != nil {
		if ps.mode == DigestFail {
			_ = s.Close()
			return nil, fmt.Errorf("checking the tools' digests: %w", err)
		}
		ps.report(fmt.Sprintf("cannot check the digests of server %s's tools: %v", s.c.Server(), err), nil)
	}
	for _, name := range sortedKeys(changed) {
		ps.report(ps.verdict(changed[name]), changed[name])
	}
	if err == nil && len(changed) == 0 && !crossEra && serverDigest != "" && serverDigest != cfg.digest.expected && cfg.digest.expected != "" {
		ps.report(fmt.Sprintf("the tools of server %s changed since the bundle was exported (digest %s, the bundle recorded %s), but none of the %d tools the client calls did",
			s.c.Server(), serverDigest, cfg.digest.expected, len(pins)), nil)
	}
	ps.mu.Lock()
	ps.changed = changed
	again := ps.finish()
	ps.mu.Unlock()
	if again {
		go s.recheckLoop()
	}
	if cfg.pinRecheck > 0 {
		go s.recheckEvery(cfg.pinRecheck)
	}
	return s, nil
}

// finish records, with ps.mu held, that the running comparison completed,
// and wakes the calls waiting for it. It reports whether a queued re-check
// is to run next (it is then counted as started and running).
func (ps *pinSet) finish() (again bool) {
	ps.done = ps.started
	close(ps.doneCh)
	ps.doneCh = make(chan struct{})
	if ps.queued && ps.life.Err() == nil {
		ps.queued = false
		ps.started++
		return true
	}
	ps.queued, ps.running = false, false
	return false
}

// recheckEvery re-checks the pinned tools every interval (WithPinRecheck)
// until the session ends, for servers that change their tools without
// sending notifications/tools/list_changed.
func (s *Session) recheckEvery(interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-s.pins.life.Done():
			return
		case <-t.C:
			s.recheckPins()
		}
	}
}

// WithPinRecheck re-checks the pinned tools of a session every interval, as
// notifications/tools/list_changed does, for servers that change a tool
// without sending it: without it, such a silent change is seen only when
// the session reconnects. Each re-check lists the tools once (tools/list,
// every page) and compares only the pinned tools whose JSON changed since
// the last listing. interval <= 0 turns it off (the default). It applies
// only to a session with pinned tools ([WithPins]).
func WithPinRecheck(interval time.Duration) Option {
	return Option{apply: func(c *config) { c.pinRecheck = interval }}
}

// ToolStatus is one pinned tool that changed since the bundle was
// exported, in [Session.ChangedTools] and [ServerStatus.ChangedTools]. It
// holds our words only (the tool's name comes from the bundle); the
// details are in the *[ToolChangedError] of its calls.
type ToolStatus struct {
	// Tool is the tool's name.
	Tool string `json:"tool"`
	// Class is the class of its most severe change.
	Class ChangeClass `json:"class"`
	// Changes counts the changes.
	Changes int `json:"changes"`
	// Removed is true when the server no longer lists the tool.
	Removed bool `json:"removed,omitempty"`
	// Blocked is true when its calls fail with a *[ToolChangedError]
	// ([DigestFail]); under [DigestWarn] they are sent.
	Blocked bool `json:"blocked"`
}

// ChangedTools returns the pinned tools that changed, as the last
// completed comparison found them (at connect,
// notifications/tools/list_changed or [WithPinRecheck]), sorted by name;
// nil when none did or no tool is pinned.
func (s *Session) ChangedTools() []ToolStatus {
	out, _ := s.pinStatus()
	return out
}

// pinStatus is ChangedTools, and whether calls of pinned tools are
// blocked: a changed tool under DigestFail, or under DigestFail tools that
// could not be listed after the server said they changed.
func (s *Session) pinStatus() (changed []ToolStatus, blocked bool) {
	ps := s.pins
	if ps == nil {
		return nil, false
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	fail := ps.mode == DigestFail
	for _, name := range sortedKeys(ps.changed) {
		e := ps.changed[name]
		st := ToolStatus{Tool: name, Changes: len(e.Changes), Removed: e.Removed, Blocked: fail}
		if len(e.Changes) > 0 {
			st.Class = e.Changes[0].Class
		}
		changed = append(changed, st)
	}
	return changed, fail && (len(changed) > 0 || ps.stale != nil)
}

// verdict is the warning for a changed tool.
func (ps *pinSet) verdict(e *ToolChangedError) string {
	if ps.mode == DigestFail {
		return e.describe() + " — its calls fail until then"
	}
	return e.describe()
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// comparePins lists the server's tools and compares each pinned tool with
// the live one. It returns the changed tools and, at connect (prev nil),
// the server digest ("" when some tool has no digest). Only a listing that
// fails is an error: a tool that cannot be digested (a number JCS cannot
// write) concerns only itself. A re-check passes the last verdicts as
// prev: a tool whose live JSON is the same bytes as last time (ps.seen)
// keeps its verdict, so a server that says "changed" and lists the same
// tools costs one listing, not a digest and comparison per tool.
func (s *Session) comparePins(ctx context.Context, ps *pinSet, prev map[string]*ToolChangedError) (map[string]*ToolChangedError, string, error) {
	tools, err := s.ListToolsRaw(ctx)
	if err != nil {
		return nil, "", err
	}
	var server string
	if prev == nil {
		server, _ = digest.Server(tools)
	}
	live := make(map[string]json.RawMessage, len(tools))
	for _, raw := range tools {
		var head struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(raw, &head) == nil {
			live[head.Name] = raw
		}
	}
	name := s.c.Server()
	modern := s.ProtocolVersion() >= ModernProtocolVersion
	changed := map[string]*ToolChangedError{}
	seen := make(map[string]string, len(ps.tools))
	for tool, t := range ps.tools {
		raw, ok := live[tool]
		if ok {
			seen[tool] = string(raw)
			if last, was := ps.seen[tool]; was && prev != nil && last == string(raw) {
				if e := prev[tool]; e != nil {
					changed[tool] = e
				}
				continue
			}
		}
		if !ok {
			changed[tool] = &ToolChangedError{Server: name, Tool: tool, Removed: true, Pinned: t.Digest,
				Changes: []ToolChange{{Class: Breaking, Server: name, Tool: tool, Where: InTool, Code: "tool-removed", Message: "tool removed"}}}
			continue
		}
		d, err := digest.Tool(raw)
		switch {
		case err != nil:
			changed[tool] = &ToolChangedError{Server: name, Tool: tool, Pinned: t.Digest,
				Changes: []ToolChange{{Class: Breaking, Server: name, Tool: tool, Where: InTool, Code: "tool-undigestable",
					Message: "the tool has no digest (" + err.Error() + "), so it cannot be compared with the pinned one"}}}
		case d == t.Digest:
		case ps.crossEra:
			if cs := ps.changes(name, t, raw, liveRoot(t, raw, modern)); len(cs) > 0 {
				changed[tool] = &ToolChangedError{Server: name, Tool: tool, Pinned: t.Digest, Live: d, Changes: cs}
			}
		default:
			cs := ps.changes(name, t, raw, t.ResultPointer)
			if len(cs) == 0 {
				cs = []ToolChange{{Class: Cosmetic, Server: name, Tool: tool, Where: InTool, Code: "tool-rewritten",
					Message: "the tool's JSON differs from the pinned one, though no difference in meaning was found"}}
			}
			changed[tool] = &ToolChangedError{Server: name, Tool: tool, Pinned: t.Digest, Live: d, Changes: cs}
		}
	}
	ps.seen = seen
	return changed, server, nil
}

// changes says how the pinned tool t changed into live, a tool with
// another digest, by ps.compare, with each change's Server and Tool set;
// without a comparer, one Breaking change "tool-changed" (digests cannot
// say how much a change matters, so it is taken at its worst).
func (ps *pinSet) changes(server string, t *bindimpl.Tool, live json.RawMessage, liveRoot string) []ToolChange {
	if ps.compare == nil {
		return []ToolChange{{Class: Breaking, Server: server, Tool: t.Name, Where: InTool, Code: "tool-changed",
			Message: "the tool's digest differs from the pinned one (no PinComparer classifies the change)"}}
	}
	cs := slices.Clone(ps.compare.Compare(t, live, liveRoot))
	for i := range cs {
		cs[i].Server, cs[i].Tool = server, t.Name
	}
	return cs
}

// liveRoot is where the natural result schema sits in the live outputSchema
// of a session of the other era than the bundle's: under "/properties/result"
// when the server wraps the result for this session only — a session before
// 2026-07-28, a natural result that is not a plain object (SEP-2106), and
// an outputSchema of the {"result": S} envelope's shape — or in every era
// (AlwaysWraps, where the bundle's pointer holds); else at the root.
func liveRoot(t *bindimpl.Tool, live json.RawMessage, modern bool) string {
	if t.Output.AlwaysWraps {
		return t.ResultPointer
	}
	if modern || t.Output.PlainObject || t.Output.HasResultProperty {
		return ""
	}
	var tool struct {
		OutputSchema struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		} `json:"outputSchema"`
	}
	if json.Unmarshal(live, &tool) != nil {
		return ""
	}
	o := tool.OutputSchema
	if _, ok := o.Properties["result"]; ok && o.Type == "object" && len(o.Properties) == 1 && slices.Equal(o.Required, []string{"result"}) {
		return "/properties/result"
	}
	return ""
}

// checkPin returns the *ToolChangedError of a pinned tool that changed,
// under DigestFail; nil otherwise.
//
// A call is judged against a comparison that covers every
// notifications/tools/list_changed received before it: when a re-check is
// running it waits for it, and when one is queued behind it, for that one
// too — at most two listings, however many notifications arrive meanwhile
// (a flood of them never restarts what a call waits for). Requests that
// arrive after the call do not delay it: it then uses the last completed
// comparison. After a re-check that could not list the tools it asks for
// another one: if that fails too, so does the call.
func (s *Session) checkPin(ctx context.Context, name string) error {
	ps := s.pins
	if ps == nil || ps.mode != DigestFail {
		return nil
	}
	if _, ok := ps.tools[name]; !ok {
		return nil
	}
	ps.mu.Lock()
	stale := ps.stale
	ps.mu.Unlock()
	if stale != nil {
		s.recheckPins()
	}
	ps.mu.Lock()
	want := ps.done
	switch {
	case ps.queued:
		want = ps.started + 1
	case ps.running:
		want = ps.started
	}
	for ps.done < want {
		wait := ps.doneCh
		ps.mu.Unlock()
		select {
		case <-wait:
		case <-ps.life.Done():
			return fmt.Errorf("composition: calling tool %q on %s: %w", name, s.c.Server(), s.Err())
		case <-ctx.Done():
			return fmt.Errorf("composition: calling tool %q on %s: waiting for the tool list to be checked after notifications/tools/list_changed: %w", name, s.c.Server(), ctx.Err())
		}
		ps.mu.Lock()
	}
	defer ps.mu.Unlock()
	if ps.stale != nil {
		return fmt.Errorf("composition: calling tool %q on %s: the server said its tools changed (notifications/tools/list_changed), and they cannot be listed to compare them with the pinned digests: %w", name, s.c.Server(), ps.stale)
	}
	if e := ps.changed[name]; e != nil {
		return e
	}
	return nil
}

// watchToolList re-checks the pinned tools whenever the server sends
// notifications/tools/list_changed (see ClientConn.OnToolsListChanged;
// for mcp-go, Conn.OnToolsListChanged in internal/mcpconn).
func (s *Session) watchToolList() {
	err := s.c.OnToolsListChanged(s.pins.life, s.recheckPins, func(err error) {
		if s.Err() != nil {
			return // closed or lost: nothing more to watch
		}
		s.pins.report(fmt.Sprintf("server %s: notifications/tools/list_changed do not reach this session: %v", s.c.Server(), err), nil)
	})
	if err != nil {
		s.pins.report(fmt.Sprintf("server %s: cannot receive notifications/tools/list_changed: %v", s.c.Server(), err), nil)
	}
}

// report records msg as a warning of the session and, with WithLogger,
// logs it at level Warn: "mcp tool changed" with the server, tool, mode,
// and the class and code of the most severe change when e is a changed
// tool, else "mcp warning" (as other session warnings); the attribute
// "detail" holds msg.
func (ps *pinSet) report(msg string, e *ToolChangedError) {
	defer ps.warn(msg) // after the record, so that whoever waits for the warning sees both
	if ps.logger == nil {
		return
	}
	attrs := []slog.Attr{slog.String("server", ps.server), slog.String("mode", ps.mode.String())}
	title := "mcp warning"
	if e != nil {
		title = "mcp tool changed"
		attrs = append(attrs, slog.String("tool", e.Tool), slog.Bool("removed", e.Removed))
		if len(e.Changes) > 0 {
			attrs = append(attrs, slog.String("class", string(e.Changes[0].Class)), slog.String("change", e.Changes[0].Code))
		}
	}
	ps.logger.LogAttrs(ps.life, slog.LevelWarn, title, append(attrs, slog.String("detail", msg))...)
}

// recheckPins asks for a re-check of the pinned tools: it starts one
// unless one is running, else it queues one (at most one is queued; more
// requests meanwhile fold into it). The re-check runs in its own
// goroutine: the notification handler runs on the transport's reading
// goroutine, which the tools/list answer needs.
func (s *Session) recheckPins() {
	ps := s.pins
	ps.mu.Lock()
	if ps.running {
		ps.queued = true
		ps.mu.Unlock()
		return
	}
	ps.running = true
	ps.started++
	ps.mu.Unlock()
	go s.recheckLoop()
}

// recheckLoop runs the started re-check and then the queued ones, one at a
// time, until none is queued or the session ends.
func (s *Session) recheckLoop() {
	ps := s.pins
	for {
		ps.mu.Lock()
		prev := ps.changed
		ps.mu.Unlock()
		changed, _, err := s.comparePins(ps.life, ps, prev)
		ps.mu.Lock()
		if err == nil {
			ps.changed = changed
		}
		wasStale := ps.stale != nil
		if !errors.Is(err, context.Canceled) {
			ps.stale = err
		}
		again := ps.finish()
		ps.mu.Unlock()
		switch {
		case err != nil && !errors.Is(err, context.Canceled) && !wasStale && s.Err() == nil:
			ps.report(fmt.Sprintf("cannot re-check the digests of server %s's tools (after notifications/tools/list_changed or WithPinRecheck): %v", s.c.Server(), err), nil)
		case err == nil:
			ps.reportDelta(s.c.Server(), prev, changed)
		}
		if !again {
			return
		}
	}
}

// reportDelta reports the tools that changed, or changed back, since the
// last comparison.
func (ps *pinSet) reportDelta(server string, old, now map[string]*ToolChangedError) {
	for _, name := range sortedKeys(now) {
		if o := old[name]; o == nil || o.Live != now[name].Live || o.Removed != now[name].Removed {
			ps.report(ps.verdict(now[name]), now[name])
		}
	}
	for _, name := range sortedKeys(old) {
		if now[name] == nil {
			ps.report(fmt.Sprintf("%s: tool %q matches the bundle again", server, name), nil)
		}
	}
}
