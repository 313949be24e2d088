package composition

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpbind/mcpbind/internal/digest"
	"github.com/mcpbind/mcpbind/internal/tooldiff"
)

// ChangeClass is how much a change to a tool matters, as `mcpbind diff`
// classifies it: [Breaking], [Compatible] or [Cosmetic].
type ChangeClass = tooldiff.Class

// The classes of a [ToolChange].
const (
	// Breaking: clients generated against the bundle may fail (an argument
	// the server now rejects, a result the decoder does not expect, the tool
	// removed).
	Breaking = tooldiff.Breaking
	// Compatible: the contract changed in a way generated clients tolerate.
	Compatible = tooldiff.Compatible
	// Cosmetic: documentation and metadata only (description, title,
	// annotations, …). A changed description is still what a model reads,
	// so pinning treats it as a change like any other.
	Cosmetic = tooldiff.Cosmetic
)

// ToolChange is one difference between a tool as its bundle recorded it and
// as the server lists it now, classified as `mcpbind diff` does: Class,
// Where ("tool", "input" or "output"), Pointer (a JSON pointer into the
// schema or tool object), Code (such as "property-added" or
// "tool-fields-changed"), Message, and Old and New values when known.
type ToolChange = tooldiff.Change

// ToolChangedError is the error of a call of a tool whose live definition
// no longer matches the digest its generated package pinned (see
// [WithDigestCheckAt] with tools and [DigestFail]): the server changed the
// tool's description, title, annotations or schemas, or no longer lists
// it, since the bundle was exported. The call is not sent. Other tools of
// the server keep working.
//
// A generated package embeds each tool's inputSchema and outputSchema and
// only the digest of the whole tool object, so a schema change is
// classified in detail (JSON pointer and class, as `mcpbind diff` reports
// it), while a change to the tool's other fields is one [Cosmetic] change
// with Code "tool-fields-changed"; `mcpbind diff` of the bundle against a
// fresh export shows the values.
type ToolChangedError struct {
	// Server names the server, as [ConnectError.Server] does.
	Server string
	// Tool is the tool's name.
	Tool string
	// Removed is true when the server no longer lists the tool.
	Removed bool
	// Pinned is the tool's digest from the bundle; Live is the digest of
	// the tool the server lists now ("" when Removed).
	Pinned, Live string
	// Changes says what changed, most severe first.
	Changes []ToolChange
}

// Error names the server, the tool and what changed.
func (e *ToolChangedError) Error() string {
	return "composition: " + e.describe()
}

// describe is the message without the package prefix, for warnings.
func (e *ToolChangedError) describe() string {
	if e.Removed {
		return fmt.Sprintf("%s: tool %q was removed: the server no longer lists it (breaking); re-export the bundle and regenerate the client", e.Server, e.Tool)
	}
	parts := make([]string, 0, len(e.Changes))
	for _, c := range e.Changes {
		p := string(c.Class) + " " + string(c.Where)
		if c.Pointer != "" {
			p += " " + c.Pointer
		}
		parts = append(parts, p+": "+c.Message)
	}
	return fmt.Sprintf("%s: tool %q changed since the bundle was exported (digest %s, the bundle pinned %s): %s; review it (mcpbind diff), re-export the bundle and regenerate the client",
		e.Server, e.Tool, e.Live, e.Pinned, strings.Join(parts, "; "))
}

// pinSet is a session's per-tool pinning state: the pinned descriptors and,
// from the last comparison, the error of each tool that changed.
type pinSet struct {
	mode    DigestMode
	tools   map[string]Tool // pinned tools by name (Digest != "")
	warn    func(string)    // records a warning of the session (Session.Warnings, WithWarnings)
	life    context.Context // ends when the session is closed or lost
	mu      sync.Mutex
	changed map[string]*ToolChangedError
	// ready is closed when no re-check is under way; a call of a pinned
	// tool waits for it, so a call made after notifications/tools/list_changed
	// arrived is judged against the new list.
	ready   chan struct{}
	pending bool // another re-check was asked for while one ran
}

// pinned returns the pinned tools of dc by name, or nil when none has a
// digest.
func (dc digestCheck) pinned() map[string]Tool {
	var m map[string]Tool
	for _, t := range dc.tools {
		if t.Digest == "" {
			continue
		}
		if m == nil {
			m = map[string]Tool{}
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
// (DigestWarn). A tool list that cannot be read or digested fails Connect
// under DigestFail, as the server-level check does.
func (s *Session) checkPins(ctx context.Context, cfg *config, pins map[string]Tool) (*Session, error) {
	warn := s.warnLogged
	// Watch before the first listing, so that a change in between is not
	// missed: a notification during it makes recheckPins run once more.
	life, cancel := context.WithCancel(context.Background())
	go func() {
		<-s.Done()
		cancel()
	}()
	ps := &pinSet{mode: cfg.digest.mode, tools: pins, warn: warn, life: life, ready: make(chan struct{})}
	s.pins = ps
	s.watchToolList()
	changed, serverDigest, err := s.comparePins(ctx, pins)
	if err != nil {
		if ps.mode == DigestFail {
			_ = s.Close()
			return nil, fmt.Errorf("checking the tools' digests: %w", err)
		}
		warn(fmt.Sprintf("cannot check the digests of server %s's tools: %v", s.c.Server(), err))
	}
	for _, name := range sortedKeys(changed) {
		warn(ps.verdict(changed[name]))
	}
	if err == nil && len(changed) == 0 && serverDigest != cfg.digest.expected && cfg.digest.expected != "" {
		warn(fmt.Sprintf("the tools of server %s changed since the bundle was exported (digest %s, the bundle recorded %s), but none of the %d tools the client calls did",
			s.c.Server(), serverDigest, cfg.digest.expected, len(pins)))
	}
	ps.mu.Lock()
	ps.changed = changed
	again := ps.pending
	ps.pending = false
	close(ps.ready)
	ps.mu.Unlock()
	if again {
		s.recheckPins()
	}
	return s, nil
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
// the live one. It returns the changed tools and the server digest.
func (s *Session) comparePins(ctx context.Context, pins map[string]Tool) (map[string]*ToolChangedError, string, error) {
	tools, err := s.ListToolsRaw(ctx)
	if err != nil {
		return nil, "", err
	}
	server, each, err := digest.All(tools)
	if err != nil {
		return nil, "", fmt.Errorf("composition: %s: the tools have no digest: %w", s.c.Server(), err)
	}
	live := make(map[string]int, len(tools))
	for i, raw := range tools {
		var head struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(raw, &head) == nil {
			live[head.Name] = i
		}
	}
	changed := map[string]*ToolChangedError{}
	for name, t := range pins {
		i, ok := live[name]
		switch {
		case !ok:
			changed[name] = &ToolChangedError{Server: s.c.Server(), Tool: name, Removed: true, Pinned: t.Digest,
				Changes: []ToolChange{{Class: Breaking, Server: s.c.Server(), Tool: name, Where: tooldiff.InTool, Code: "tool-removed", Message: "tool removed"}}}
		case each[i] != t.Digest:
			changed[name] = &ToolChangedError{Server: s.c.Server(), Tool: name, Pinned: t.Digest, Live: each[i],
				Changes: classifyChange(s.c.Server(), t, tools[i])}
		}
	}
	return changed, server, nil
}

// classifyChange says what changed in a pinned tool whose live digest
// differs: its schemas, compared with those the package embeds by the rules
// of `mcpbind diff` (package internal/tooldiff), and its other fields, which
// changed when the live tool with the embedded schemas put back still has
// another digest than the pinned one.
func classifyChange(server string, t Tool, live json.RawMessage) []ToolChange {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(live, &members); err != nil {
		return []ToolChange{{Class: Breaking, Server: server, Tool: t.Name, Where: tooldiff.InTool, Code: "tool-unreadable",
			Message: "the tool is not a readable JSON object; it changed"}}
	}
	set := t.schemaSet()
	doc := func(key string) (json.RawMessage, bool) {
		if set == nil || key == "" {
			return nil, false
		}
		d, ok := set.docs[key]
		return json.RawMessage(d), ok
	}
	var out []ToolChange
	add := func(cs []ToolChange, err error) {
		for _, c := range cs {
			c.Server, c.Tool = server, t.Name
			out = append(out, c)
		}
	}
	oldIn, inKnown := doc(t.InputDoc)
	if inKnown {
		newIn, ok := members["inputSchema"]
		if !ok {
			newIn = json.RawMessage("true")
		}
		add(tooldiff.CompareSchemaAt(oldIn, newIn, "", "", tooldiff.Input))
	}
	oldOut, outKnown := doc(t.OutputDoc)
	newOut, liveOut := members["outputSchema"]
	switch {
	case set == nil:
	case !outKnown && liveOut:
		add([]ToolChange{{Class: Compatible, Where: tooldiff.InOutput, Code: "output-schema-added",
			Message: "the tool now declares an outputSchema", New: newOut}}, nil)
	case outKnown && !liveOut:
		add([]ToolChange{{Class: Breaking, Where: tooldiff.InOutput, Code: "output-schema-removed",
			Message: "the tool no longer declares an outputSchema: its results are no longer typed"}}, nil)
	case outKnown:
		add(tooldiff.CompareSchemaAt(oldOut, newOut, t.ResultPointer, t.ResultPointer, tooldiff.Output))
	}
	// The other fields: put the embedded schemas back and compare digests.
	fieldsChanged := true
	if set != nil && inKnown {
		members["inputSchema"] = oldIn
		delete(members, "outputSchema")
		if outKnown {
			members["outputSchema"] = oldOut
		}
		if raw, err := json.Marshal(members); err == nil {
			if d, err := digest.Tool(raw); err == nil && d == t.Digest {
				fieldsChanged = false
			}
		}
	}
	if fieldsChanged {
		msg := "the tool's own fields (title, description, annotations, …) changed"
		if set == nil || !inKnown {
			msg = "the tool changed (the client embeds no schemas to compare)"
		}
		out = append(out, ToolChange{Class: Cosmetic, Server: server, Tool: t.Name, Where: tooldiff.InTool, Code: "tool-fields-changed", Message: msg})
	}
	slices.SortStableFunc(out, func(a, b ToolChange) int { return classRank(a.Class) - classRank(b.Class) })
	return out
}

// classRank orders classes from most to least severe.
func classRank(c ChangeClass) int {
	switch c {
	case Breaking:
		return 0
	case Compatible:
		return 1
	}
	return 2
}

// checkPin returns the *ToolChangedError of a pinned tool that changed,
// under DigestFail; nil otherwise. It first waits for a re-check under way.
func (s *Session) checkPin(ctx context.Context, name string) error {
	ps := s.pins
	if ps == nil || ps.mode != DigestFail {
		return nil
	}
	if _, ok := ps.tools[name]; !ok {
		return nil
	}
	ps.mu.Lock()
	ready := ps.ready
	ps.mu.Unlock()
	select {
	case <-ready:
	case <-ctx.Done():
		return fmt.Errorf("composition: calling tool %q on %s: waiting for the tool list to be checked after notifications/tools/list_changed: %w", name, s.c.Server(), ctx.Err())
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if e := ps.changed[name]; e != nil {
		return e
	}
	return nil
}

// watchToolList re-checks the pinned tools whenever the server sends
// notifications/tools/list_changed. For a 2026-07-28 session, whose
// notifications are opt-in (SEP-2575), it opens a subscriptions/listen
// stream for them when the server advertises tools.listChanged.
func (s *Session) watchToolList() {
	s.c.Client().OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationToolsListChanged) {
			s.recheckPins()
		}
	})
	if s.ProtocolVersion() < ModernProtocolVersion || !advertisesToolsListChanged(s.Capabilities()) {
		return
	}
	_, err := s.c.Client().ListenAsync(s.pins.life, mcp.SubscriptionFilter{ToolsListChanged: true}, func(err error) {
		s.pins.report(fmt.Sprintf("server %s: the subscriptions/listen stream for notifications/tools/list_changed ended: %v", s.c.Server(), err))
	})
	if err != nil {
		s.pins.report(fmt.Sprintf("server %s: cannot subscribe to notifications/tools/list_changed: %v", s.c.Server(), err))
	}
}

// advertisesToolsListChanged reports whether server capabilities declare
// tools.listChanged.
func advertisesToolsListChanged(capabilities json.RawMessage) bool {
	var c struct {
		Tools *struct {
			ListChanged bool `json:"listChanged"`
		} `json:"tools"`
	}
	return json.Unmarshal(capabilities, &c) == nil && c.Tools != nil && c.Tools.ListChanged
}

// report records a warning of the session.
func (ps *pinSet) report(msg string) { ps.warn(msg) }

// recheckPins starts a re-check of the pinned tools, unless one is under
// way (which then runs once more). It runs in its own goroutine: the
// notification handler runs on the transport's reading goroutine, which
// the tools/list answer needs.
func (s *Session) recheckPins() {
	ps := s.pins
	ps.mu.Lock()
	select {
	case <-ps.ready:
	default:
		ps.pending = true
		ps.mu.Unlock()
		return
	}
	ps.ready = make(chan struct{})
	ps.mu.Unlock()
	go func() {
		for {
			changed, _, err := s.comparePins(ps.life, ps.tools)
			ps.mu.Lock()
			old := ps.changed
			if err == nil {
				ps.changed = changed
			}
			again := ps.pending && ps.life.Err() == nil
			ps.pending = false
			if !again {
				close(ps.ready)
			}
			ps.mu.Unlock()
			switch {
			case err != nil && !errors.Is(err, context.Canceled):
				ps.report(fmt.Sprintf("cannot re-check the digests of server %s's tools after notifications/tools/list_changed: %v", s.c.Server(), err))
			case err == nil:
				ps.reportDelta(s.c.Server(), old, changed)
			}
			if !again {
				return
			}
		}
	}()
}

// reportDelta reports the tools that changed, or changed back, since the
// last comparison.
func (ps *pinSet) reportDelta(server string, old, now map[string]*ToolChangedError) {
	for _, name := range sortedKeys(now) {
		if o := old[name]; o == nil || o.Live != now[name].Live || o.Removed != now[name].Removed {
			ps.report(ps.verdict(now[name]))
		}
	}
	for _, name := range sortedKeys(old) {
		if now[name] == nil {
			ps.report(fmt.Sprintf("%s: tool %q matches the bundle again", server, name))
		}
	}
}
