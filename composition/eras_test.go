package composition

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcpbind/mcpbind/composition/bindimpl"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// TestMCPGoEras connects to mcp-go servers restricted to one protocol era,
// over stdio and Streamable HTTP: "legacy" refuses server/discover (and over
// HTTP advertises only versions before 2026-07-28), "modern" refuses
// initialize.
func TestMCPGoEras(t *testing.T) {
	t.Parallel()
	bin := buildTestServer(t)
	legacyURL := startHTTPServer(t, bin, "-eras", "legacy")
	modernURL := startHTTPServer(t, bin, "-eras", "modern")

	for _, tc := range []struct {
		name string
		tr   Transport
		pin  string
		want string // negotiated version; "" when Connect must fail
		fail string // in the error when it must
	}{
		{"legacy/stdio", Stdio(bin, "-eras", "legacy"), "", mcp.LATEST_LEGACY_PROTOCOL_VERSION, ""},
		{"legacy/stdio/pinned", Stdio(bin, "-eras", "legacy"), "2025-06-18", "2025-06-18", ""},
		{"legacy/http", HTTP(legacyURL), "", mcp.LATEST_LEGACY_PROTOCOL_VERSION, ""},
		{"legacy/http/pinned", HTTP(legacyURL), "2025-03-26", "2025-03-26", ""},
		{"modern/stdio", Stdio(bin, "-eras", "modern"), "", ModernProtocolVersion, ""},
		{"modern/stdio/pinned legacy", Stdio(bin, "-eras", "modern"), "2025-06-18", "", "initialize is not supported"},
		{"modern/http", HTTP(modernURL), "", ModernProtocolVersion, ""},
		{"modern/http/pinned legacy", HTTP(modernURL), "2025-06-18", "", "initialize is not supported"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			s, err := Connect(ctx, tc.tr, WithProtocolVersion(tc.pin))
			if tc.want == "" {
				if err == nil {
					s.Close()
					t.Fatalf("Connect succeeded at %s", s.ProtocolVersion())
				}
				var ce *ConnectError
				if !errors.As(err, &ce) || ce.Stage != "initialize" || !strings.Contains(err.Error(), tc.fail) {
					t.Errorf("err = %v, want a *ConnectError at initialize saying %q", err, tc.fail)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if s.ProtocolVersion() != tc.want {
				t.Errorf("ProtocolVersion() = %q, want %q", s.ProtocolVersion(), tc.want)
			}
			if w := s.Warnings(); w != nil {
				t.Errorf("Warnings() = %q; a server that answers the probe needs none", w)
			}
			var info struct{ Name string }
			if err := json.Unmarshal(s.ServerInfo(), &info); err != nil || info.Name != "mcpbind-testserver" {
				t.Errorf("ServerInfo() = %s", s.ServerInfo())
			}
			tools, err := s.ListToolsRaw(ctx)
			if err != nil || len(tools) != len(testServerTools) {
				t.Fatalf("ListToolsRaw: %d tools, %v", len(tools), err)
			}
			var n int64
			if err := s.Invoke(ctx, &bindimpl.Tool{Name: "integer"}, nil, &n); err != nil || n != 42 {
				t.Errorf("integer = %d, %v", n, err)
			}
			// nullable_row wraps for legacy sessions only; Call gives the
			// row either way.
			type Row struct {
				ID   int64  `json:"id"`
				Name string `json:"name"`
			}
			var row *Row
			if err := s.Invoke(ctx, &bindimpl.Tool{Name: "nullable_row", Output: bindimpl.Output{CanBeObject: true}}, nil, &row); err != nil || row == nil || row.Name != "row" {
				t.Errorf("nullable_row = %+v, %v", row, err)
			}
		})
	}
}

// TestTSSDKv2 connects to a server written with the TypeScript SDK v2
// (testservers/ts-sdk-v2-server.mjs). Served through serveStdio(factory) it
// speaks both eras: the default connect negotiates 2026-07-28 and sees the
// natural schemas and values, a 2025-06-18 session the {"result": …}
// envelopes, which Call unwraps. Connected with McpServer.connect(new
// StdioServerTransport()) it speaks only the initialize handshake.
func TestTSSDKv2(t *testing.T) {
	t.Parallel()
	type Row struct {
		ID   int64  `json:"id"`
		Name string `json:"name"`
	}
	type Stats struct {
		Tables int64 `json:"tables"`
		Rows   int64 `json:"rows"`
	}
	// The natural output types, as generated code describes them.
	listTags := bindimpl.Tool{Name: "list_tags"}
	count := bindimpl.Tool{Name: "count"}
	findRow := bindimpl.Tool{Name: "find_row", Output: bindimpl.Output{CanBeObject: true}}
	stats := bindimpl.Tool{Name: "stats", Output: bindimpl.Output{PlainObject: true, CanBeObject: true}}

	for _, tc := range []struct {
		name    string
		mode    string // TSSDKv2Server's
		pin     string
		version string
		wrapped bool // whether the session sees envelopes
	}{
		{"serveStdio/default", "", "", ModernProtocolVersion, false},
		{"serveStdio/2025-06-18", "", "2025-06-18", "2025-06-18", true},
		{"connect/default", "legacy", "", mcp.LATEST_LEGACY_PROTOCOL_VERSION, true},
		{"connect/2025-06-18", "legacy", "2025-06-18", "2025-06-18", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			node, args := testenv.TSSDKv2Server(t, tc.mode)
			ctx, cancel := context.WithTimeout(t.Context(), 40*time.Second)
			defer cancel()
			var stderr syncBuffer
			s, err := Connect(ctx, Stdio(node, args...), WithProtocolVersion(tc.pin), WithStderr(&stderr))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if s.ProtocolVersion() != tc.version {
				t.Errorf("ProtocolVersion() = %q, want %q", s.ProtocolVersion(), tc.version)
			}
			if w := s.Warnings(); w != nil {
				t.Errorf("Warnings() = %q, want none", w)
			}

			tools, err := s.ListToolsRaw(ctx)
			if err != nil {
				t.Fatal(err)
			}
			schemas := map[string]map[string]json.RawMessage{}
			for _, raw := range tools {
				var tool struct {
					Name         string
					OutputSchema map[string]json.RawMessage
				}
				if err := json.Unmarshal(raw, &tool); err != nil {
					t.Fatal(err)
				}
				schemas[tool.Name] = tool.OutputSchema
			}
			for _, name := range []string{"list_tags", "count", "find_row"} {
				_, hasResult := schemas[name]["properties"]
				wrapped := hasResult && string(schemas[name]["type"]) == `"object"` && strings.Contains(string(schemas[name]["properties"]), `"result"`)
				if wrapped != tc.wrapped {
					t.Errorf("%s outputSchema wrapped = %v, want %v: %v", name, wrapped, tc.wrapped, schemas[name])
				}
			}
			if !tc.wrapped {
				if got := string(schemas["list_tags"]["type"]); got != `"array"` {
					t.Errorf("list_tags outputSchema type = %s, want \"array\"", got)
				}
				if got := string(schemas["count"]["type"]); got != `"integer"` {
					t.Errorf("count outputSchema type = %s, want \"integer\"", got)
				}
			}
			if got := string(schemas["stats"]["type"]); got != `"object"` || strings.Contains(string(schemas["stats"]["properties"]), `"result"`) {
				t.Errorf("stats outputSchema = %v; a plain object schema is never wrapped", schemas["stats"])
			}

			res, err := s.CallResult(ctx, "list_tags", nil)
			if err != nil {
				t.Fatal(err)
			}
			wantRaw := `["alpha","beta","gamma"]`
			if tc.wrapped {
				wantRaw = `{"result":["alpha","beta","gamma"]}`
			}
			if string(res.StructuredContent) != wantRaw {
				t.Errorf("list_tags structuredContent = %s, want %s", res.StructuredContent, wantRaw)
			}

			var tags []string
			if err := s.Invoke(ctx, &listTags, nil, &tags); err != nil || !reflect.DeepEqual(tags, []string{"alpha", "beta", "gamma"}) {
				t.Errorf("list_tags = %q, %v", tags, err)
			}
			var n int64
			if err := s.Invoke(ctx, &count, map[string]int64{"n": 7}, &n); err != nil || n != 7 {
				t.Errorf("count = %d, %v", n, err)
			}
			var row *Row
			if err := s.Invoke(ctx, &findRow, nil, &row); err != nil || row == nil || *row != (Row{ID: 7, Name: "row"}) {
				t.Errorf("find_row = %+v, %v", row, err)
			}
			row = &Row{}
			if err := s.Invoke(ctx, &findRow, map[string]bool{"missing": true}, &row); err != nil || row != nil {
				t.Errorf("find_row missing = %+v, %v; want nil", row, err)
			}
			var st Stats
			if err := s.Invoke(ctx, &stats, nil, &st); err != nil || st != (Stats{Tables: 3, Rows: 120}) {
				t.Errorf("stats = %+v, %v", st, err)
			}
			if err := s.Close(); err != nil {
				t.Errorf("Close: %v (stderr: %s)", err, stderr.String())
			}
		})
	}
}

// TestDiscoverProbeFaults checks the stdio retry: a server that exits when
// probed with server/discover is started again at the newest version before
// 2026-07-28, one that ignores the probe is connected with initialize after
// the discover timeout; both with a warning. The faults are injected into
// the mcp-go test server's stdin (-on-discover).
func TestDiscoverProbeFaults(t *testing.T) {
	t.Parallel()
	bin := buildTestServer(t)
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Fatalf("this test needs /bin/sh: %v", err)
	}

	for _, tc := range []struct {
		name    string
		tr      Transport
		opts    []Option
		version string   // "" when Connect must fail
		warn    []string // in the one warning; none when empty
		fail    []string // in the error
		stderr  string   // in StderrTail(err)
	}{
		{
			name: "exits", tr: Stdio(bin, "-on-discover", "exit"),
			version: mcp.LATEST_LEGACY_PROTOCOL_VERSION,
			warn:    []string{bin, "exited (exit status 3) when probed with server/discover", "started it again", mcp.LATEST_LEGACY_PROTOCOL_VERSION},
		},
		{
			name: "ignores", tr: Stdio(bin, "-on-discover", "ignore"), opts: []Option{WithDiscoverTimeout(300 * time.Millisecond)},
			version: mcp.LATEST_LEGACY_PROTOCOL_VERSION,
			warn:    []string{bin, "did not answer the server/discover probe within 300ms", "initialize"},
		},
		{
			name: "pinned legacy: no probe", tr: Stdio(bin, "-on-discover", "exit"), opts: []Option{WithProtocolVersion("2025-06-18")},
			version: "2025-06-18",
		},
		{
			// mcp-go probes even when 2026-07-28 is pinned, and falls back
			// like for the newest version.
			name: "pinned modern", tr: Stdio(bin, "-on-discover", "exit"), opts: []Option{WithProtocolVersion(ModernProtocolVersion)},
			version: mcp.LATEST_LEGACY_PROTOCOL_VERSION,
			warn:    []string{"exited (exit status 3) when probed with server/discover"},
		},
		{
			name: "exits on everything", tr: Stdio("sh", "-c", "read line; echo 'bye' >&2; exit 4"),
			// It exits again when retried: a start-up failure, reported
			// as it is (its stderr in StderrTail), with no warning about a
			// retry.
			fail: []string{"exited (exit status 4)"}, stderr: "bye",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			var w warnings
			// ctx bounds a hang; a server that ignores the probe is
			// caught by the option's 300ms, else Connect fails with
			// ctx's deadline.
			s, err := Connect(ctx, tc.tr, append(tc.opts, w.option())...)
			t.Logf("warnings %q, err %v", w.get(), err)
			got := w.get()
			switch {
			case len(tc.warn) == 0 && len(got) != 0:
				t.Errorf("warnings = %q, want none", got)
			case len(tc.warn) > 0 && len(got) != 1:
				t.Errorf("warnings = %q, want one", got)
			case len(tc.warn) > 0:
				for _, want := range tc.warn {
					if !strings.Contains(got[0], want) {
						t.Errorf("warning %q does not say %q", got[0], want)
					}
				}
			}
			if tc.version == "" {
				if err == nil {
					s.Close()
					t.Fatal("Connect succeeded")
				}
				for _, want := range tc.fail {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error does not say %q", want)
					}
				}
				if tail := StderrTail(err); !strings.Contains(tail, tc.stderr) || tc.stderr != "" && strings.Contains(err.Error(), tc.stderr) {
					t.Errorf("stderr tail %q, want %q in it and not in the error", tail, tc.stderr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if s.ProtocolVersion() != tc.version {
				t.Errorf("ProtocolVersion() = %q, want %q", s.ProtocolVersion(), tc.version)
			}
			if !reflect.DeepEqual(s.Warnings(), got) && !(len(got) == 0 && s.Warnings() == nil) {
				t.Errorf("Warnings() = %q, the callback got %q", s.Warnings(), got)
			}
			var n int64
			if err := s.Invoke(ctx, &bindimpl.Tool{Name: "integer"}, nil, &n); err != nil || n != 42 {
				t.Errorf("integer = %d, %v", n, err)
			}
		})
	}
}
