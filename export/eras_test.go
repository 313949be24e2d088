package export

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/internal/digest"
	"github.com/mcpbind/mcpbind/internal/protocol"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// era builds an Era from raw tools.
func era(t *testing.T, version string, tools ...string) Era {
	t.Helper()
	e := Era{Version: version}
	for _, raw := range tools {
		tl, err := bundle.NewTool(json.RawMessage(raw))
		if err != nil {
			t.Fatal(err)
		}
		e.Tools = append(e.Tools, tl)
	}
	return e
}

func TestCompareEras(t *testing.T) {
	const legacyV, modernV = "2025-11-25", "2026-07-28"
	// The TypeScript SDK v2 wraps a natural schema with $refs, copying
	// $schema to the envelope and re-pointing the refs.
	tsNatural := `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"array","items":{"$ref":"#/$defs/Item"},"default":[{"$ref":"#/not/a/ref"}],"$defs":{"Item":{"type":"object","properties":{"next":{"$ref":"#"}}}}}`
	tsLegacy := `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"result":` +
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"array","items":{"$ref":"#/properties/result/$defs/Item"},"default":[{"$ref":"#/not/a/ref"}],"$defs":{"Item":{"type":"object","properties":{"next":{"$ref":"#/properties/result"}}}}}` +
		`},"required":["result"]}`
	modern := era(t, modernV,
		`{"name":"ts","outputSchema":`+tsNatural+`}`,
		`{"name":"int","outputSchema":{"type":"integer"}}`,
		`{"name":"csharp","outputSchema":{"type":["object","null"],"properties":{"a":{"type":"string"}}}}`,
		`{"name":"python","outputSchema":{"$defs":{"R":{"type":"object"}},"properties":{"result":{"anyOf":[{"$ref":"#/$defs/R"},{"type":"null"}]}},"required":["result"],"title":"pyOutput","type":"object"}}`,
		`{"name":"fastmcp","outputSchema":{"type":"object","properties":{"result":{"type":"object"}},"required":["result"],"x-fastmcp-wrap-result":true}}`,
		`{"name":"natural_result","outputSchema":{"type":"object","properties":{"result":{"type":"object","properties":{"n":{"type":"integer"}}}},"required":["result"]}}`,
		`{"name":"nothing"}`,
		`{"name":"modern_only","outputSchema":{"type":"string"}}`,
		`{"name":"changed","outputSchema":{"type":"integer"}}`,
	)
	legacy := era(t, legacyV,
		`{"name":"ts","outputSchema":`+tsLegacy+`}`,
		`{"name":"int","outputSchema":{"required":["result"],"properties":{"result":{"type":"integer"}},"type":"object"}}`,
		`{"name":"csharp","outputSchema":{"type":"object","properties":{"a":{"type":"string"}}}}`,
		`{"name":"python","outputSchema":{"$defs":{"R":{"type":"object"}},"properties":{"result":{"anyOf":[{"$ref":"#/$defs/R"},{"type":"null"}]}},"required":["result"],"title":"pyOutput","type":"object"}}`,
		`{"name":"fastmcp","outputSchema":{"type":"object","properties":{"result":{"type":"object"}},"required":["result"],"x-fastmcp-wrap-result":true}}`,
		`{"name":"natural_result","outputSchema":{"type":"object","properties":{"result":{"type":"object","properties":{"n":{"type":"integer"}}}},"required":["result"]}}`,
		`{"name":"nothing"}`,
		`{"name":"changed","outputSchema":{"type":"object","properties":{"result":{"type":"number"}},"required":["result"]}}`,
	)
	both := []string{legacyV, modernV}
	type want struct {
		legacy, always bool
		natural        string // "" when the file omits it
		versions       []string
	}
	wants := map[string]want{
		"ts":             {legacy: true, versions: both},
		"int":            {legacy: true, versions: both},
		"csharp":         {versions: both}, // rewritten, not wrapped
		"python":         {always: true, natural: `{"anyOf":[{"$ref":"#/$defs/R"},{"type":"null"}],"$defs":{"R":{"type":"object"}}}`, versions: both},
		"fastmcp":        {always: true, natural: `{"type":"object"}`, versions: both},
		"natural_result": {versions: both}, // its result is a plain object: no SDK wraps that
		"modern_only":    {versions: []string{modernV}},
		"changed":        {versions: both}, // the legacy schema wraps another schema
	}
	check := func(t *testing.T, got map[string]bundle.Evidence, wants map[string]want, own func(string) string) {
		t.Helper()
		if !slices.Equal(slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(wants))) {
			t.Errorf("evidence for %v, want %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(wants)))
		}
		for name, w := range wants {
			ev := got[name]
			natural := string(ev.NaturalOutputSchema)
			if ev.LegacyWraps != w.legacy || ev.AlwaysWraps != w.always || natural != w.natural || !slices.Equal(ev.ProbedVersions, w.versions) {
				t.Errorf("%s: legacy %v always %v natural %s versions %v; want %+v", name, ev.LegacyWraps, ev.AlwaysWraps, natural, ev.ProbedVersions, w)
			}
		}
	}

	t.Run("modern primary", func(t *testing.T) {
		got, warnings := CompareEras(modern, legacy)
		check(t, got, wants, nil)
		if len(warnings) != 1 || !strings.Contains(warnings[0], "listed at 2026-07-28 but not at 2025-11-25, so not compared: modern_only") {
			t.Errorf("warnings %q", warnings)
		}
	})

	t.Run("legacy primary", func(t *testing.T) {
		// The bundle keeps the legacy tools: the natural schema is then
		// recorded wherever it differs from the legacy outputSchema.
		got, _ := CompareEras(legacy, modern)
		w := maps.Clone(wants)
		delete(w, "modern_only")
		w["ts"] = want{legacy: true, natural: tsNatural, versions: both}
		w["int"] = want{legacy: true, natural: `{"type":"integer"}`, versions: both}
		w["csharp"] = want{natural: `{"type":["object","null"],"properties":{"a":{"type":"string"}}}`, versions: both}
		w["changed"] = want{natural: `{"type":"integer"}`, versions: both}
		check(t, got, w, nil)
	})

	t.Run("one era: modern", func(t *testing.T) {
		got, warnings := CompareEras(modern, era(t, modernV))
		if len(warnings) != 1 || !strings.Contains(warnings[0], "modern era only") {
			t.Errorf("warnings %q", warnings)
		}
		w := map[string]want{}
		for name, x := range wants {
			// Nothing to compare with: no legacy wrapping is possible.
			w[name] = want{always: x.always, natural: x.natural, versions: []string{modernV}}
		}
		check(t, got, w, nil)
	})

	t.Run("one era: legacy", func(t *testing.T) {
		got, warnings := CompareEras(legacy, era(t, "2025-06-18"))
		if len(warnings) != 1 || !strings.Contains(warnings[0], "legacy era only") {
			t.Errorf("warnings %q", warnings)
		}
		// Only the FastMCP marker is conclusive without a modern listing.
		check(t, got, map[string]want{"fastmcp": {always: true, natural: `{"type":"object"}`, versions: []string{legacyV}}}, nil)
	})
}

func TestRawEqual(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{`{"a":1,"b":[1,2]}`, `{"b":[1,2.0],"a":1e0}`, true},
		{`{"a":1}`, `{"a":1,"b":null}`, false},
		{`[1,2]`, `[2,1]`, false},
		{`"x"`, `"x"`, true},
		{`1e99999`, `1e99999`, true},
		{`1e99999`, `10e99998`, false}, // too big to compare exactly: unequal
		{``, ``, false},
	} {
		if got := rawEqual(json.RawMessage(tc.a), json.RawMessage(tc.b)); got != tc.want {
			t.Errorf("rawEqual(%s, %s) = %v", tc.a, tc.b, got)
		}
	}
}

// connectBoth connects to a stdio server twice: at the version it
// negotiates by default, and at the version of the other era.
func connectBoth(t *testing.T, command string, args []string, opts ...composition.Option) (primary, probe *composition.Session) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	primary, err := composition.Connect(ctx, composition.Stdio(command, args...), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = primary.Close() })
	probe, err = composition.Connect(ctx, composition.Stdio(command, args...),
		append(opts, composition.WithProtocolVersion(ProbeVersion(primary.ProtocolVersion())))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = probe.Close() })
	return primary, probe
}

// exportProbed exports a server with a probe and returns it and the
// warnings.
func exportProbed(t *testing.T, primary, probe Session) (*bundle.Server, []string) {
	t.Helper()
	var warnings []string
	srv, err := Export(context.Background(), primary, Options{Probe: probe, Warn: func(m string) { warnings = append(warnings, m) }})
	if err != nil {
		t.Fatal(err)
	}
	return srv, warnings
}

// evidenceSummary renders a server's evidence as "tool:legacy/always" lines.
func evidenceSummary(srv *bundle.Server) string {
	var lines []string
	for _, tl := range srv.Tools {
		ev, ok := srv.ToolEvidence(tl.Name)
		if !ok {
			lines = append(lines, tl.Name+":none")
			continue
		}
		lines = append(lines, tl.Name+":"+map[bool]string{true: "wraps", false: "-"}[ev.LegacyWraps]+"/"+map[bool]string{true: "always", false: "-"}[ev.AlwaysWraps])
	}
	slices.Sort(lines)
	return strings.Join(lines, " ")
}

func outputSchemaOf(t *testing.T, srv *bundle.Server, tool string) string {
	t.Helper()
	for _, tl := range srv.Tools {
		if tl.Name == tool {
			return string(tl.Member("outputSchema"))
		}
	}
	t.Fatalf("no tool %s", tool)
	return ""
}

// TestProbeErasSQLiteExplorer probes sqlite-explorer, which wraps
// non-object results for legacy clients as the TypeScript SDK v2 does.
func TestProbeErasSQLiteExplorer(t *testing.T) {
	command, args := testenv.SQLiteExplorerStdio(t)

	t.Run("modern primary", func(t *testing.T) {
		primary, probe := connectBoth(t, command, args)
		if primary.ProtocolVersion() != protocol.ModernVersion || probe.ProtocolVersion() != protocol.NewestLegacyVersion {
			t.Fatalf("versions %s, %s", primary.ProtocolVersion(), probe.ProtocolVersion())
		}
		srv, warnings := exportProbed(t, primary, probe)
		if len(warnings) != 0 {
			t.Errorf("warnings %q", warnings)
		}
		want := "count_rows:wraps/- describe_table:-/- find_row:wraps/- insert_row:-/- list_tables:wraps/- query:-/-"
		if got := evidenceSummary(srv); got != want {
			t.Errorf("evidence\n got %s\nwant %s", got, want)
		}
		// The bundle keeps the modern tools; the natural schema is then
		// the tool's own and the file does not repeat it.
		ev, _ := srv.ToolEvidence("list_tables")
		if string(ev.NaturalOutputSchema) != `{"type":"array","items":{"type":"string"}}` || outputSchemaOf(t, srv, "list_tables") != string(ev.NaturalOutputSchema) {
			t.Errorf("natural %s", ev.NaturalOutputSchema)
		}
		if strings.Contains(string(srv.Extensions), "naturalOutputSchema") {
			t.Errorf("x-mcpbind repeats the tools' schemas: %s", srv.Extensions)
		}
		if !slices.Equal(ev.ProbedVersions, []string{protocol.NewestLegacyVersion, protocol.ModernVersion}) {
			t.Errorf("probed %v", ev.ProbedVersions)
		}
		checkDigests(t, srv)

		// The runtime computes the same digest from the live server, and
		// a legacy session, which lists wrapped schemas, another one.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		s, err := composition.Connect(ctx, composition.Stdio(command, args...), composition.WithDigestCheck(srv.Digest(), composition.DigestFail))
		if err != nil {
			t.Fatalf("digest check against the exported digest: %v", err)
		}
		_ = s.Close()
		_, err = composition.Connect(ctx, composition.Stdio(command, args...), composition.WithProtocolVersion(protocol.NewestLegacyVersion),
			composition.WithDigestCheck(srv.Digest(), composition.DigestFail))
		var dm *composition.DigestMismatchError
		if !errors.As(err, &dm) || dm.Expected != srv.Digest() {
			t.Errorf("legacy session: %v", err)
		}
	})

	t.Run("legacy primary", func(t *testing.T) {
		primary, probe := connectBoth(t, command, args, composition.WithProtocolVersion("2025-06-18"))
		if primary.ProtocolVersion() != "2025-06-18" || probe.ProtocolVersion() != protocol.ModernVersion {
			t.Fatalf("versions %s, %s", primary.ProtocolVersion(), probe.ProtocolVersion())
		}
		srv, _ := exportProbed(t, primary, probe)
		if got, want := evidenceSummary(srv), "count_rows:wraps/- describe_table:-/- find_row:wraps/- insert_row:-/- list_tables:wraps/- query:-/-"; got != want {
			t.Errorf("evidence\n got %s\nwant %s", got, want)
		}
		// The bundle keeps the legacy (wrapped) tools; the evidence holds
		// the natural schema.
		if got := outputSchemaOf(t, srv, "count_rows"); got != `{"type":"object","properties":{"result":{"type":"integer"}},"required":["result"]}` {
			t.Errorf("count_rows outputSchema %s", got)
		}
		ev, _ := srv.ToolEvidence("find_row")
		if string(ev.NaturalOutputSchema) != `{"anyOf":[{"type":"object","additionalProperties":true},{"type":"null"}]}` {
			t.Errorf("find_row natural %s", ev.NaturalOutputSchema)
		}
		if !slices.Equal(ev.ProbedVersions, []string{"2025-06-18", protocol.ModernVersion}) {
			t.Errorf("probed %v", ev.ProbedVersions)
		}
	})
}

// TestProbeErasMCPGo probes two mcp-go servers: one that never wraps, and
// one that wraps non-object results in every version like the Python SDK.
func TestProbeErasMCPGo(t *testing.T) {
	bin := testenv.Build(t, "./testservers/erasserver")

	t.Run("never wraps", func(t *testing.T) {
		primary, probe := connectBoth(t, bin, []string{"-wrap", "never"})
		srv, warnings := exportProbed(t, primary, probe)
		if len(warnings) != 0 {
			t.Errorf("warnings %q", warnings)
		}
		if got, want := evidenceSummary(srv), "count:-/- find:-/- marked:-/- names:-/- stats:-/-"; got != want {
			t.Errorf("evidence\n got %s\nwant %s", got, want)
		}
		ev, _ := srv.ToolEvidence("find")
		if string(ev.NaturalOutputSchema) != outputSchemaOf(t, srv, "find") {
			t.Errorf("find natural %s", ev.NaturalOutputSchema)
		}
		checkDigests(t, srv)
	})

	t.Run("always wraps", func(t *testing.T) {
		primary, probe := connectBoth(t, bin, []string{"-wrap", "always"})
		srv, warnings := exportProbed(t, primary, probe)
		if len(warnings) != 0 {
			t.Errorf("warnings %q", warnings)
		}
		// stats returns an object with a "result" property and another
		// one: a natural schema, not an envelope.
		if got, want := evidenceSummary(srv), "count:-/always find:-/always marked:-/always names:-/always stats:-/-"; got != want {
			t.Errorf("evidence\n got %s\nwant %s", got, want)
		}
		for tool, natural := range map[string]string{
			"count":  `{"minimum":0,"title":"Result","type":"integer"}`,
			"names":  `{"items":{"type":"string"},"title":"Result","type":"array"}`,
			"find":   `{"anyOf":[{"$ref":"#/$defs/Row"},{"type":"null"}],"$defs":{"Row":{"type":"object","properties":{"id":{"type":"integer"},"name":{"type":"string"}},"required":["id","name"]}}}`,
			"marked": `{"type":"boolean"}`,
		} {
			ev, _ := srv.ToolEvidence(tool)
			if string(ev.NaturalOutputSchema) != natural {
				t.Errorf("%s natural\n got %s\nwant %s", tool, ev.NaturalOutputSchema, natural)
			}
		}
		// The natural schemas are recorded and valid.
		if f := srv.CheckSchemas(); len(f) != 0 {
			t.Errorf("findings %v", f)
		}
	})
}

// TestProbeErasLegacyOnlyServer probes @modelcontextprotocol/server-everything,
// which speaks the legacy era only: Export warns and records what it can.
func TestProbeErasLegacyOnlyServer(t *testing.T) {
	node, args := testenv.ServerEverything(t)
	primary, probe := connectBoth(t, node, args)
	if protocol.IsModern(primary.ProtocolVersion()) || protocol.IsModern(probe.ProtocolVersion()) {
		t.Fatalf("versions %s, %s: server-everything now speaks 2026-07-28; pick another legacy-only server", primary.ProtocolVersion(), probe.ProtocolVersion())
	}
	srv, warnings := exportProbed(t, primary, probe)
	if len(warnings) == 0 || !strings.Contains(strings.Join(warnings, "\n"), "speaks the legacy era only") {
		t.Errorf("warnings %q", warnings)
	}
	for _, tl := range srv.Tools {
		if _, ok := srv.ToolEvidence(tl.Name); ok {
			t.Errorf("evidence for %s without a modern listing or a marker", tl.Name)
		}
	}
	checkDigests(t, srv)
}

// checkDigests checks the digests an export recorded against
// internal/digest.
func checkDigests(t *testing.T, srv *bundle.Server) {
	t.Helper()
	var raws []json.RawMessage
	for _, tl := range srv.Tools {
		raws = append(raws, tl.Raw)
		want, err := digest.Tool(tl.Raw)
		if err != nil || srv.ToolDigest(tl.Name) != want {
			t.Errorf("tool %s digest %q, want %q (%v)", tl.Name, srv.ToolDigest(tl.Name), want, err)
		}
	}
	want, err := digest.Server(raws)
	if err != nil || srv.Digest() != want {
		t.Errorf("server digest %q, want %q (%v)", srv.Digest(), want, err)
	}
}
