package composition

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpbind/mcpbind/composition/bindimpl"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/internal/digest"
	"github.com/mcpbind/mcpbind/internal/mcpconn"
	"github.com/mcpbind/mcpbind/internal/schema"
	"github.com/mcpbind/mcpbind/testservers/pinserver"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// buildPinServer builds testservers/pinserver/serve.
func buildPinServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "pinserver")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	cmd := exec.Command(goTool(), "build", "-o", bin, "./testservers/pinserver/serve")
	cmd.Dir = moduleRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the pin server: %v\n%s", err, out)
	}
	return bin
}

// pinnedBundle is what export records and generate embeds for a server:
// the server digest, and per tool its digest and its schemas as listed.
type pinnedBundle struct {
	server string
	tools  map[string]bindimpl.Tool
}

// pins is what a generated package's Pins holds for the tools named: b's
// server digest, version (the bundle's protocol version) and copies of the
// tools' descriptors.
func (b pinnedBundle) pins(version string, names ...string) Pins {
	p := Pins{Digest: b.server, ProtocolVersion: version}
	for _, n := range names {
		t := b.tools[n]
		p.Tools = append(p.Tools, &t)
	}
	return p
}

// check is pinning.DigestCheck of b.pins(version, names...): the pinning
// programs use, with changes classified as `mcpbind diff` does.
func (b pinnedBundle) check(version string, mode DigestMode, names ...string) Option {
	return PinningDigestCheck(b.pins(version, names...), mode)
}

// exportPins lists the tools of a fresh session as `mcpbind export` does
// (ListToolsRaw) and builds the descriptors a generated package would hold:
// the digests of internal/digest, which export records under x-mcpbind, and
// the raw schemas, which generate embeds in the package's SchemaSet.
func exportPins(ctx context.Context, t testing.TB, tr Transport, opts ...Option) pinnedBundle {
	t.Helper()
	s, err := Connect(ctx, tr, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	raw, err := s.ListToolsRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	server, each, err := digest.All(raw)
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]string{}
	set := bindimpl.NewSchemaSet(docs)
	b := pinnedBundle{server: server, tools: map[string]bindimpl.Tool{}}
	for i, r := range raw {
		var l struct {
			Name         string          `json:"name"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		}
		if err := json.Unmarshal(r, &l); err != nil {
			t.Fatal(err)
		}
		tool := bindimpl.Tool{Name: l.Name, Schemas: set, Digest: each[i]}
		if l.InputSchema != nil {
			tool.InputDoc = l.Name + "#inputSchema"
			docs[tool.InputDoc] = string(l.InputSchema)
		}
		if l.OutputSchema != nil {
			tool.OutputDoc = l.Name + "#outputSchema"
			docs[tool.OutputDoc] = string(l.OutputSchema)
			// As the IR decides: an envelope listed before 2026-07-28
			// holds the natural result under /properties/result; an
			// object is a plain object; any other result is natural.
			var head struct {
				Type string `json:"type"`
			}
			_ = json.Unmarshal(l.OutputSchema, &head)
			if doc, err := schema.Load(l.OutputSchema); err == nil && isEnvelope(doc) {
				tool.ResultPointer = "/properties/result"
			} else if head.Type == "object" {
				tool.Output = bindimpl.Output{PlainObject: true, CanBeObject: true}
			}
		}
		b.tools[l.Name] = tool
	}
	return b
}

// warnings collects WithWarnings messages from any goroutine.
type pinWarnings chan string

func (w pinWarnings) option() Option { return WithWarnings(func(m string) { w <- m }) }

// waitFor returns the first warning containing every part; it fails the
// test when ctx ends first.
func (w pinWarnings) waitFor(ctx context.Context, t *testing.T, parts ...string) string {
	t.Helper()
	for {
		select {
		case m := <-w:
			ok := true
			for _, p := range parts {
				ok = ok && strings.Contains(m, p)
			}
			if ok {
				return m
			}
			t.Logf("warning: %s", m)
		case <-ctx.Done():
			t.Fatalf("no warning containing %q: %v", parts, ctx.Err())
		}
	}
}

// TestPinning connects to the pin server over stdio, in sessions of both
// protocol eras, with tools pinned by their digests; mutate then changes
// greet's description, then its inputSchema, then removes add, each time
// sending notifications/tools/list_changed mid-session. Under DigestFail the
// changed tool's calls fail with a *ToolChangedError naming the tool and
// the change while the others work; under DigestWarn every call works and
// each change is a warning.
func TestPinning(t *testing.T) {
	bin := buildPinServer(t)
	transports := []struct {
		name   string
		new    func(t *testing.T) Transport // a server in its original state
		legacy bool                         // speaks only versions before 2026-07-28
	}{
		{"stdio", func(*testing.T) Transport { return Stdio(bin) }, false},
		{"http", func(t *testing.T) Transport { return HTTP(startHTTPServer(t, bin)) }, false},
		{"sse", func(t *testing.T) Transport {
			url, _, _ := startServerProcess(t, bin, "-sse", "127.0.0.1:0")
			return SSE(url)
		}, true},
		{"in-process", func(*testing.T) Transport { return InProcess(pinserver.New(nil)) }, false},
	}
	for _, tr := range transports {
		for _, version := range []string{"2025-11-25", ModernProtocolVersion} {
			if tr.legacy && version >= ModernProtocolVersion {
				continue
			}
			for _, mode := range []DigestMode{DigestFail, DigestWarn} {
				t.Run(tr.name+"/"+version+"/"+mode.String(), func(t *testing.T) {
					testPinning(t, tr.new(t), version, mode)
				})
			}
		}
	}
}

// testPinning is one case of TestPinning: transport, version and mode.
func testPinning(t *testing.T, tr Transport, version string, mode DigestMode) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pins := exportPins(ctx, t, tr, WithProtocolVersion(version))
	warned := make(pinWarnings, 64)
	var logged syncBuffer
	s, err := Connect(ctx, tr, WithProtocolVersion(version), warned.option(), WithLogger(slog.New(slog.NewTextHandler(&logged, nil))),
		pins.check(version, mode, "greet", "add"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.ProtocolVersion() != version {
		t.Fatalf("negotiated %s, want %s", s.ProtocolVersion(), version)
	}
	if w := s.Warnings(); len(w) != 0 {
		t.Fatalf("warnings at connect: %q", w)
	}
	greet := func() error {
		var out struct{ Greeting string }
		err := s.Invoke(ctx, new(pins.tools["greet"]), map[string]string{"name": "Ada"}, &out)
		if err == nil && out.Greeting != "hello, Ada" {
			t.Errorf("greet: %+v", out)
		}
		return err
	}
	add := func() error {
		var out struct{ Sum int64 }
		err := s.Invoke(ctx, new(pins.tools["add"]), map[string]int{"a": 2, "b": 3}, &out)
		if err == nil && out.Sum != 5 {
			t.Errorf("add: %+v", out)
		}
		return err
	}
	mutate := func(change string) {
		t.Helper()
		if _, err := s.CallResult(ctx, "mutate", map[string]string{"change": change}); err != nil {
			t.Fatalf("mutate %s: %v", change, err)
		}
	}
	// changed asserts what a call of a changed tool does in this mode; want
	// is every change as "class where code", most severe first.
	changed := func(call func() error, tool string, removed bool, want ...string) {
		t.Helper()
		err := call()
		if mode == DigestWarn {
			if err != nil {
				t.Errorf("%s under DigestWarn: %v", tool, err)
			}
			return
		}
		var tc *ToolChangedError
		if !errors.As(err, &tc) {
			t.Fatalf("%s: want a *ToolChangedError, got %v", tool, err)
		}
		if tc.Tool != tool || tc.Server != tr.String() || tc.Removed != removed || tc.Pinned != pins.tools[tool].Digest {
			t.Errorf("error %+v", tc)
		}
		var got []string
		for _, c := range tc.Changes {
			got = append(got, string(c.Class)+" "+string(c.Where)+" "+c.Code)
		}
		if !slices.Equal(got, want) {
			t.Errorf("changes %q, want %q (%+v)", got, want, tc.Changes)
		}
		if msg := err.Error(); !strings.Contains(msg, tr.String()) || !strings.Contains(msg, `tool "`+tool+`"`) || !removed && !strings.Contains(msg, "("+tc.Changes[0].Code+")") {
			t.Errorf("message %q", msg)
		}
		// The message names the tool, the class and the count of changes;
		// the server-chosen pointers (property names) stay in Changes.
		if msg := err.Error(); !removed && (!strings.Contains(msg, string(tc.Changes[0].Class)) || !strings.Contains(msg, fmt.Sprint(len(tc.Changes))+" change")) {
			t.Errorf("message %q lacks the class or the count of changes", msg)
		}
		for _, c := range tc.Changes {
			if msg := err.Error(); c.Pointer != "" && strings.Contains(msg, c.Pointer) {
				t.Errorf("message %q holds the pointer %q", msg, c.Pointer)
			}
		}
		t.Logf("%s: %v", tool, err)
	}

	if err := greet(); err != nil {
		t.Fatal(err)
	}
	if err := add(); err != nil {
		t.Fatal(err)
	}

	// A rug pull: greet's description changes.
	mutate("description")
	t.Logf("warning: %s", warned.waitFor(ctx, t, `tool "greet" changed`, "cosmetic tool (tool-fields-changed)"))
	changed(greet, "greet", false, "cosmetic tool tool-fields-changed")
	if got := s.ChangedTools(); !slices.Equal(got, []ToolStatus{{Tool: "greet", Class: Cosmetic, Changes: 1, Blocked: mode == DigestFail}}) {
		t.Errorf("ChangedTools %+v", got)
	}
	if log := logged.String(); !strings.Contains(log, `level=WARN msg="mcp tool changed"`) || !strings.Contains(log, "tool=greet") ||
		!strings.Contains(log, "mode="+mode.String()) || !strings.Contains(log, "change=tool-fields-changed") {
		t.Errorf("log:\n%s", log)
	}
	if err := add(); err != nil {
		t.Errorf("add after greet changed: %v", err)
	}

	// greet's inputSchema gains a required property, and its description is
	// the original again: only the schema changed.
	mutate("input")
	t.Logf("warning: %s", warned.waitFor(ctx, t, `tool "greet" changed`, `breaking input "/properties/language" (property-added)`))
	changed(func() error {
		_, err := s.CallResult(ctx, "greet", map[string]string{"name": "Ada", "language": "en"})
		return err
	}, "greet", false, "breaking input property-added")

	// greet's inputSchema is the original again, written in another form.
	mutate("rewrite")
	t.Logf("warning: %s", warned.waitFor(ctx, t, `tool "greet" changed`, "(tool-rewritten)"))
	changed(greet, "greet", false, "cosmetic tool tool-rewritten")

	// add is removed.
	mutate("remove")
	t.Logf("warning: %s", warned.waitFor(ctx, t, `tool "add" was removed`))
	if mode == DigestFail {
		changed(add, "add", true, "breaking tool tool-removed")
	} else if err := add(); err == nil || errors.As(err, new(*ToolChangedError)) {
		t.Errorf("add after its removal under DigestWarn: want the server's error, got %v", err)
	}
}

// TestPinningAtConnect pins one tool with a digest the server no longer
// matches: Connect succeeds in both modes (the server digest differs, but
// per-tool digests decide), under DigestFail only that tool's calls fail,
// and under DigestWarn Connect warns about it.
func TestPinningAtConnect(t *testing.T) {
	bin := buildPinServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pins := exportPins(ctx, t, Stdio(bin))
	stale := pins.tools["greet"]
	stale.Digest = digest.Of([]byte("the greet of an older export"))
	for _, mode := range []DigestMode{DigestFail, DigestWarn} {
		p := pins.pins("", "add")
		p.Digest, p.Tools = digest.Of([]byte("an older server")), append(p.Tools, &stale)
		s, err := Connect(ctx, Stdio(bin), PinningDigestCheck(p, mode))
		if err != nil {
			t.Fatalf("%v: %v", mode, err)
		}
		defer s.Close()
		_, err = s.CallResult(ctx, "greet", map[string]string{"name": "Ada"})
		var tc *ToolChangedError
		if got := errors.As(err, &tc); got != (mode == DigestFail) {
			t.Errorf("%v: greet: %v", mode, err)
		}
		if tc != nil && (tc.Live != pins.tools["greet"].Digest || len(tc.Changes) != 1 || tc.Changes[0].Code != "tool-fields-changed") {
			t.Errorf("%v: %+v", mode, tc)
		}
		if _, err := s.CallResult(ctx, "add", map[string]int{"a": 1, "b": 2}); err != nil {
			t.Errorf("%v: add: %v", mode, err)
		}
		w := s.Warnings()
		if len(w) != 1 || !strings.Contains(w[0], `tool "greet" changed`) {
			t.Errorf("%v: warnings %q", mode, w)
		}
	}
}

// TestPinningReconnect changes greet while no session is connected, as a
// server restarted with another contract does between a registry's
// reconnects: the next session's Connect compares the tools again, so
// greet's calls fail from the start under DigestFail, add keeps working,
// and Connect itself succeeds although the server digest differs.
func TestPinningReconnect(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv := pinserver.New(nil)
	pins := exportPins(ctx, t, InProcess(srv))
	first, err := Connect(ctx, InProcess(srv), pins.check(ModernProtocolVersion, DigestFail, "greet", "add"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.CallResult(ctx, "greet", map[string]string{"name": "Ada"}); err != nil {
		t.Fatal(err)
	}
	if _, err := first.CallResult(ctx, "mutate", map[string]string{"change": "description"}); err != nil {
		t.Fatal(err)
	}
	_ = first.Close()

	s, err := Connect(ctx, InProcess(srv), pins.check(ModernProtocolVersion, DigestFail, "greet", "add"))
	if err != nil {
		t.Fatalf("reconnect: %v", err)
	}
	defer s.Close()
	var tc *ToolChangedError
	if _, err := s.CallResult(ctx, "greet", map[string]string{"name": "Ada"}); !errors.As(err, &tc) || tc.Tool != "greet" || tc.Changes[0].Code != "tool-fields-changed" {
		t.Errorf("greet after reconnect: %v", err)
	}
	if _, err := s.CallResult(ctx, "add", map[string]int{"a": 1, "b": 2}); err != nil {
		t.Errorf("add after reconnect: %v", err)
	}
	if w := s.Warnings(); len(w) != 1 || !strings.Contains(w[0], `tool "greet" changed`) {
		t.Errorf("warnings %q", w)
	}
}

// TestPinningUnlistable: a tool no digest can be computed for concerns only
// itself (the pinned tools are still compared), and when the server says
// its tools changed but they can no longer be listed (here: more pages than
// the session allows), DigestFail fails the pinned tools' calls — each
// call first tries the listing again — until the list can be read, while
// DigestWarn warns once and goes on.
func TestPinningUnlistable(t *testing.T) {
	for _, mode := range []DigestMode{DigestFail, DigestWarn} {
		t.Run(mode.String(), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			srv := pinserver.New(nil)
			pins := exportPins(ctx, t, InProcess(srv))
			warned := make(pinWarnings, 64)
			s, err := Connect(ctx, InProcess(srv), connOption(mcpconn.WithMaxPages(3)), warned.option(),
				pins.check("", mode, "greet", "add"))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			mutate := func(change string) {
				t.Helper()
				if _, err := s.CallResult(ctx, "mutate", map[string]string{"change": change}); err != nil {
					t.Fatalf("mutate %s: %v", change, err)
				}
			}
			add := func() error {
				_, err := s.CallResult(ctx, "add", map[string]int{"a": 1, "b": 2})
				return err
			}

			// weird has no digest; greet's change is still seen.
			mutate("weird")
			mutate("description")
			warned.waitFor(ctx, t, `tool "greet" changed`)
			if err := add(); err != nil {
				t.Errorf("add beside an undigestable tool: %v", err)
			}

			// Seven tools at two per page: more than three pages.
			mutate("flood")
			warned.waitFor(ctx, t, "cannot re-check the digests", "more than 3 pages")
			err = add()
			if mode == DigestWarn {
				if err != nil {
					t.Errorf("add under DigestWarn while the tools cannot be listed: %v", err)
				}
			} else if err == nil || !strings.Contains(err.Error(), "cannot be listed to compare them with the pinned digests") {
				t.Errorf("add while the tools cannot be listed: %v", err)
			} else {
				t.Logf("add: %v", err)
			}
			mutate("unflood")
			if err := add(); err != nil {
				t.Errorf("add once the tools can be listed again: %v", err)
			}
		})
	}
}

// TestPinningAcrossEras pins tools exported at 2026-07-28 in sessions
// before it, and the other way round: the tools are compared by meaning
// (the pin server lists the same tools in both eras), so nothing is
// reported — not even for count, whose listing differs between the eras —
// until mutate changes greet's inputSchema, whose calls then fail,
// both in the session that gets notifications/tools/list_changed and in a
// session connected after the change.
func TestPinningAcrossEras(t *testing.T) {
	for _, era := range []struct{ exported, session string }{
		{ModernProtocolVersion, "2025-11-25"},
		{"2025-11-25", ModernProtocolVersion},
	} {
		t.Run(era.exported+"-in-"+era.session, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			srv := pinserver.New(nil)
			pins := exportPins(ctx, t, InProcess(srv), WithProtocolVersion(era.exported))
			warned := make(pinWarnings, 64)
			s, err := Connect(ctx, InProcess(srv), WithProtocolVersion(era.session), warned.option(),
				pins.check(era.exported, DigestFail, "greet", "add", "count"))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if w := s.Warnings(); len(w) != 0 {
				t.Fatalf("warnings at connect: %q", w)
			}
			// count is listed wrapped in one era and natural in the other:
			// another digest, the same meaning.
			if pins.tools["count"].Digest == digestOf(ctx, t, s, "count") {
				t.Fatal("count has the same digest in both eras: the test no longer crosses eras")
			}
			if _, err := s.CallResult(ctx, "count", nil); err != nil {
				t.Errorf("count: %v", err)
			}
			if _, err := s.CallResult(ctx, "mutate", map[string]string{"change": "input"}); err != nil {
				t.Fatal(err)
			}
			// A new session compares the pins before Connect returns, so a
			// comparison that misses the change fails here at once rather
			// than when waitFor's context ends.
			fresh, err := Connect(ctx, InProcess(srv), WithProtocolVersion(era.session),
				pins.check(era.exported, DigestFail, "greet", "add", "count"))
			if err != nil {
				t.Fatal(err)
			}
			defer fresh.Close()
			if w := fresh.Warnings(); len(w) != 1 || !strings.Contains(w[0], `tool "greet" changed`) || !strings.Contains(w[0], "(property-added)") {
				t.Fatalf("warnings at a connect after the change: %q, want greet's property-added", w)
			}
			var changed *ToolChangedError
			if _, err := fresh.CallResult(ctx, "greet", map[string]string{"name": "Ada", "language": "en"}); !errors.As(err, &changed) {
				t.Fatalf("greet on a session connected after the change: %v, want a *ToolChangedError", err)
			}
			warned.waitFor(ctx, t, `tool "greet" changed`, "(property-added)")
			var tc *ToolChangedError
			if _, err := s.CallResult(ctx, "greet", map[string]string{"name": "Ada", "language": "en"}); !errors.As(err, &tc) {
				t.Errorf("greet: %v", err)
			}
			if _, err := s.CallResult(ctx, "add", map[string]int{"a": 1, "b": 2}); err != nil {
				t.Errorf("add: %v", err)
			}
		})
	}
}

// digestOf is the digest of the tool name as s lists it now.
func digestOf(ctx context.Context, t *testing.T, s *Session, name string) string {
	t.Helper()
	raw, err := s.ListToolsRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range raw {
		var head struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(r, &head) == nil && head.Name == name {
			d, err := digest.Tool(r)
			if err != nil {
				t.Fatal(err)
			}
			return d
		}
	}
	t.Fatalf("%s is not listed", name)
	return ""
}

// TestPinsAreExportsPins: the pins the other tests build from a live
// listing are those `mcpbind export` records in a bundle for the same
// server (x-mcpbind digests) and those `mcpbind generate` embeds (the
// tools' schemas as listed), in both eras.
func TestPinsAreExportsPins(t *testing.T) {
	bin := buildPinServer(t)
	mcpbind := testenv.Build(t, "./cmd/mcpbind")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, version := range []string{"2025-11-25", ModernProtocolVersion} {
		out := filepath.Join(t.TempDir(), "bundle.json")
		cmd := exec.CommandContext(ctx, mcpbind, "export", "--protocol-version", version, "-o", out, "--", bin)
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("mcpbind export: %v\n%s", err, msg)
		}
		b, err := bundle.Load(out)
		if err != nil {
			t.Fatal(err)
		}
		srv := &b.Servers[0]
		pins := exportPins(ctx, t, Stdio(bin), WithProtocolVersion(version))
		if srv.Digest() != pins.server || srv.ProtocolVersion != version {
			t.Errorf("%s: server digest %s in the bundle (at %s), %s from the listing", version, srv.Digest(), srv.ProtocolVersion, pins.server)
		}
		for _, bt := range srv.Tools {
			p := pins.tools[bt.Name]
			if d := srv.ToolDigest(bt.Name); d == "" || d != p.Digest {
				t.Errorf("%s: %s: digest %q in the bundle, %q from the listing", version, bt.Name, d, p.Digest)
			}
			var schemas struct{ InputSchema, OutputSchema json.RawMessage }
			if err := json.Unmarshal(bt.Raw, &schemas); err != nil {
				t.Fatal(err)
			}
			if got, _ := p.Schemas.Doc(p.InputDoc); !jsonEqual(t, got, string(schemas.InputSchema)) {
				t.Errorf("%s: %s: inputSchema %s in the bundle, %s from the listing", version, bt.Name, schemas.InputSchema, got)
			}
			if got, _ := p.Schemas.Doc(p.OutputDoc); schemas.OutputSchema != nil && !jsonEqual(t, got, string(schemas.OutputSchema)) {
				t.Errorf("%s: %s: outputSchema %s in the bundle, %s from the listing", version, bt.Name, schemas.OutputSchema, got)
			}
		}
		if len(srv.Tools) != len(pins.tools) {
			t.Errorf("%s: %d tools in the bundle, %d listed", version, len(srv.Tools), len(pins.tools))
		}
	}
}

// jsonEqual reports whether two JSON texts have the same canonical form.
func jsonEqual(t *testing.T, a, b string) bool {
	t.Helper()
	ca, err := digest.Canonical(json.RawMessage(a))
	if err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	cb, err := digest.Canonical(json.RawMessage(b))
	if err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return string(ca) == string(cb)
}

// isEnvelope reports whether doc is a {"result": …} envelope by the one
// rule (schema.Document.Envelope), unmarked.
func isEnvelope(doc *schema.Document) bool {
	_, ok := doc.Envelope(false)
	return ok
}

// TestPinsByDigestOnly: WithPins without a PinComparer (a program that
// does not link the diff engine) still pins each tool by its digest: after
// greet's description changes, its calls fail under DigestFail with one
// Breaking "tool-changed" (a digest cannot say how much a change matters)
// and add keeps working. In a session of the other era, where digests
// differ in form, the tools are not compared: Connect warns so and the
// calls go on.
func TestPinsByDigestOnly(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv := pinserver.New(nil)
	pins := exportPins(ctx, t, InProcess(srv), WithProtocolVersion(ModernProtocolVersion))
	p := pins.pins(ModernProtocolVersion, "greet", "add", "count")

	other, err := Connect(ctx, InProcess(srv), WithProtocolVersion("2025-11-25"), WithPins(p, DigestFail, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if w := other.Warnings(); len(w) != 1 || !strings.Contains(w[0], "are not compared in this 2025-11-25 session") {
		t.Errorf("warnings in the other era: %q", w)
	}
	if _, err := other.CallResult(ctx, "count", nil); err != nil {
		t.Errorf("count in the other era: %v", err)
	}

	warned := make(pinWarnings, 64)
	s, err := Connect(ctx, InProcess(srv), WithProtocolVersion(ModernProtocolVersion), warned.option(), WithPins(p, DigestFail, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if w := s.Warnings(); len(w) != 0 {
		t.Fatalf("warnings at connect: %q", w)
	}
	if _, err := s.CallResult(ctx, "mutate", map[string]string{"change": "description"}); err != nil {
		t.Fatal(err)
	}
	warned.waitFor(ctx, t, `tool "greet" changed`, "breaking tool (tool-changed)")
	var tc *ToolChangedError
	if _, err := s.CallResult(ctx, "greet", map[string]string{"name": "Ada"}); !errors.As(err, &tc) ||
		len(tc.Changes) != 1 || tc.Changes[0].Class != Breaking || tc.Changes[0].Code != "tool-changed" || tc.Changes[0].Tool != "greet" {
		t.Errorf("greet after its change: %v (%+v)", err, tc)
	}
	if _, err := s.CallResult(ctx, "add", map[string]int{"a": 1, "b": 2}); err != nil {
		t.Errorf("add: %v", err)
	}
	if _, err := other.CallResult(ctx, "greet", map[string]string{"name": "Ada"}); err != nil {
		t.Errorf("greet in the other era, not compared: %v", err)
	}
}
