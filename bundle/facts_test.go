package bundle

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/internal/digest"
)

// testServer returns a server with the given raw tools.
func testServer(t *testing.T, tools ...string) Server {
	t.Helper()
	s := Server{ID: "s", ServerInfo: json.RawMessage(`{"name":"s"}`), ProtocolVersion: "2026-07-28", Transport: TransportStdio}
	for _, raw := range tools {
		tl, err := NewTool(json.RawMessage(raw))
		if err != nil {
			t.Fatal(err)
		}
		s.Tools = append(s.Tools, tl)
	}
	return s
}

func TestFactsRoundTrip(t *testing.T) {
	s := testServer(t,
		`{"name":"count","outputSchema":{"type":"integer"}}`,
		`{"name":"wrapped","outputSchema":{"type":"object","properties":{"result":{"type":"array"}},"required":["result"]}}`,
		`{"name":"plain"}`)
	d := digest.Of([]byte("x"))
	f := Facts{Digest: d, Tools: map[string]ToolFacts{
		"wrapped": {Digest: d, Envelope: &Evidence{AlwaysWraps: true, NaturalOutputSchema: json.RawMessage(`{"type": "array", "description": "<&>"}`),
			ProbedVersions: []string{"2025-11-25", "2026-07-28"}}},
		"count": {Digest: d, Envelope: &Evidence{LegacyWraps: true, ProbedVersions: []string{"2025-11-25", "2026-07-28"}}},
		"plain": {Digest: d},
	}}
	if err := s.SetFacts(f); err != nil {
		t.Fatal(err)
	}
	// Keys in a fixed order, tools sorted, no HTML escaping.
	want := `{"digest":"` + d + `","tools":{` +
		`"count":{"digest":"` + d + `","envelope":{"alwaysWraps":false,"legacyWraps":true,"probedVersions":["2025-11-25","2026-07-28"]}},` +
		`"plain":{"digest":"` + d + `"},` +
		`"wrapped":{"digest":"` + d + `","envelope":{"alwaysWraps":true,"legacyWraps":false,"naturalOutputSchema":{"type":"array","description":"<&>"},"probedVersions":["2025-11-25","2026-07-28"]}}}}`
	if string(s.Extensions) != want {
		t.Fatalf("x-mcpbind:\n got %s\nwant %s", s.Extensions, want)
	}
	if s.Digest() != d || s.ToolDigest("plain") != d || s.ToolDigest("nope") != "" {
		t.Error("digest accessors")
	}

	// ToolEvidence fills in the natural schema from the tool's own
	// outputSchema when the file omits it.
	ev, ok := s.ToolEvidence("count")
	if !ok || !ev.LegacyWraps || ev.AlwaysWraps || string(ev.NaturalOutputSchema) != `{"type":"integer"}` {
		t.Errorf("count: %+v %v (natural %s)", ev, ok, ev.NaturalOutputSchema)
	}
	ev, ok = s.ToolEvidence("wrapped")
	if !ok || !ev.AlwaysWraps || string(ev.NaturalOutputSchema) != `{"type":"array","description":"<&>"}` {
		t.Errorf("wrapped: %+v %v (natural %s)", ev, ok, ev.NaturalOutputSchema)
	}
	ev.ProbedVersions[0] = "changed"
	if again, _ := s.ToolEvidence("wrapped"); again.ProbedVersions[0] != "2025-11-25" {
		t.Error("ToolEvidence shares memory with the server")
	}
	if _, ok := s.ToolEvidence("plain"); ok {
		t.Error("evidence for a tool without any")
	}

	// Decoded once, the facts answer for every tool alike (what the IR
	// reads: one decoding per server, not per tool).
	fs, err := s.Facts()
	if err != nil {
		t.Fatal(err)
	}
	if fs.ToolDigest("plain") != d || fs.ToolDigest("nope") != "" {
		t.Error("Facts.ToolDigest")
	}
	own := json.RawMessage(`{"type":"integer"}`)
	if ev, ok := fs.ToolEvidence("count", own); !ok || !ev.LegacyWraps || string(ev.NaturalOutputSchema) != `{"type":"integer"}` {
		t.Errorf("Facts.ToolEvidence(count): %+v %v", ev, ok)
	} else if own[0] = '['; ev.NaturalOutputSchema[0] != '{' {
		t.Error("Facts.ToolEvidence shares memory with the outputSchema given")
	}
	if _, ok := fs.ToolEvidence("plain", nil); ok {
		t.Error("Facts.ToolEvidence: evidence for a tool without any")
	}

	// The facts survive a bundle round trip, byte for byte.
	out, err := (&Bundle{Servers: []Server{s}}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse(out, "b.json")
	if err != nil {
		t.Fatal(err)
	}
	if string(b.Servers[0].Extensions) != want {
		t.Errorf("after a round trip: %s", b.Servers[0].Extensions)
	}

	if err := s.SetFacts(Facts{}); err != nil || s.Extensions != nil {
		t.Errorf("zero facts: %s %v", s.Extensions, err)
	}
}

func TestSetFactsErrors(t *testing.T) {
	s := testServer(t, `{"name":"a"}`)
	for _, tc := range []struct {
		f    Facts
		want string
	}{
		{Facts{Tools: map[string]ToolFacts{"b": {}}}, `names tool "b", which the server does not have`},
		{Facts{Digest: "sha256:00"}, `digest "sha256:00" is not sha256:<64 hex digits>`},
		{Facts{Tools: map[string]ToolFacts{"a": {Digest: "md5:1"}}}, `tool "a": x-mcpbind digest "md5:1"`},
	} {
		if err := s.SetFacts(tc.f); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("SetFacts(%+v): %v, want %s", tc.f, err, tc.want)
		}
	}
	if s.Extensions != nil {
		t.Error("a failed SetFacts changed the server")
	}
}

func TestParseChecksFacts(t *testing.T) {
	d := `"` + digest.Of(nil) + `"`
	cases := []struct {
		name, facts, want string
		kind              Kind
	}{
		{"short digest", `{"digest":"sha256:00"}`, "/servers/0/x-mcpbind/digest", KindSchema},
		{"envelope without probedVersions", `{"tools":{"a":{"envelope":{"alwaysWraps":true,"legacyWraps":false}}}}`,
			"/servers/0/x-mcpbind/tools/a/envelope: missing property 'probedVersions'", KindSchema},
		{"envelope with an unknown member", `{"tools":{"a":{"envelope":{"alwaysWraps":true,"legacyWraps":false,"probedVersions":["v"],"wraps":1}}}}`,
			"additional properties 'wraps' not allowed", KindSchema},
		{"natural schema a string", `{"tools":{"a":{"envelope":{"alwaysWraps":true,"legacyWraps":false,"probedVersions":["v"],"naturalOutputSchema":"x"}}}}`,
			"/servers/0/x-mcpbind/tools/a/envelope/naturalOutputSchema", KindSchema},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(bundleWith(`,"x-mcpbind":`+tc.facts, `{"name":"a"}`)), "f.json")
			var be *Error
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %s", err, tc.want)
			}
			if !asError(err, &be) || be.Kind != tc.kind {
				t.Errorf("kind %v, want %v", be.Kind, tc.kind)
			}
		})
	}
	// Facts about a tool the server does not have (a hand-edited bundle)
	// are dropped with a warning; the rest is kept as it was.
	b, err := Parse([]byte(bundleWith(`,"x-mcpbind":{"digest":`+d+`,"tools":{"zz":{"digest":`+d+`},"a":{"digest":`+d+`}}}`, `{"name":"a"}`)), "f.json")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b.Servers[0].Extensions), `{"digest":`+d+`,"tools":{"a":{"digest":`+d+`}}}`; got != want {
		t.Errorf("x-mcpbind = %s, want %s", got, want)
	}
	if len(b.Warnings) != 1 || !strings.Contains(b.Warnings[0], `/servers/0/x-mcpbind/tools/zz: facts about tool "zz"`) {
		t.Errorf("warnings %q", b.Warnings)
	}

	// Unknown members are allowed (facts of a later mcpbind) and kept.
	in := bundleWith(`,"x-mcpbind":{"later":{"x":1},"tools":{"a":{"other":true}}}`, `{"name":"a"}`)
	b, err = Parse([]byte(in), "f.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b.Servers[0].Extensions); got != `{"later":{"x":1},"tools":{"a":{"other":true}}}` {
		t.Errorf("x-mcpbind %s", got)
	}
}

func asError(err error, target **Error) bool {
	e, ok := err.(*Error)
	if ok {
		*target = e
	}
	return ok
}

func TestRecordAndCheckDigests(t *testing.T) {
	s := testServer(t, `{"name":"b","inputSchema":{"type":"object"}}`, `{"name":"a"}`)
	if err := s.SetFacts(Facts{Tools: map[string]ToolFacts{"a": {Envelope: &Evidence{ProbedVersions: []string{"2026-07-28"}}}}}); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordDigests(); err != nil {
		t.Fatal(err)
	}
	want, _ := digest.Server([]json.RawMessage{s.Tools[0].Raw, s.Tools[1].Raw})
	wantA, _ := digest.Tool(json.RawMessage(`{"name":"a"}`))
	if s.Digest() != want || s.ToolDigest("a") != wantA {
		t.Errorf("digests %s %s", s.Digest(), s.ToolDigest("a"))
	}
	if _, ok := s.ToolEvidence("a"); !ok {
		t.Error("RecordDigests dropped the envelope evidence")
	}
	if f := s.CheckDigests(); len(f) != 0 {
		t.Errorf("findings on fresh digests: %v", f)
	}
	// Edit a tool after the fact: both its digest and the server's are off.
	s.Tools[0], _ = NewTool(json.RawMessage(`{"name":"b","inputSchema":{"type":"object","properties":{}}}`))
	f := s.CheckDigests()
	if len(f) != 2 || f[0].Tool != "b" || !strings.Contains(f[0].String(), `server "s", tool "b", x-mcpbind: recorded digest`) ||
		f[1].Tool != "" || !strings.Contains(f[1].Msg, "recorded server digest") {
		t.Errorf("findings %v", f)
	}
	// A number without a canonical form: no digest, an error.
	s.Tools[0], _ = NewTool(json.RawMessage(`{"name":"b","inputSchema":{"type":"object","maximum":1e400}}`))
	if err := s.RecordDigests(); err == nil || !strings.Contains(err.Error(), `server "s", tool "b"`) {
		t.Errorf("1e400: %v", err)
	}
}
