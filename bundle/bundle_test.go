package bundle

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func readCanonical(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "canonical.json"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestRoundTripByteIdentical(t *testing.T) {
	want := readCanonical(t)
	b, err := Parse(want, "canonical.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := b.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("round trip changed the bytes:\n%s", diffLines(want, got))
	}
	// Load from disk too.
	b2, err := Load(filepath.Join("testdata", "canonical.json"))
	if err != nil {
		t.Fatal(err)
	}
	got2, err := b2.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got2, want) {
		t.Fatal("Load+Marshal differs from the file")
	}
}

func TestParseKeepsRawToolsExactly(t *testing.T) {
	b, err := Parse(readCanonical(t), "canonical.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{b.Servers[0].ID, b.Servers[1].ID}; !slices.Equal(got, []string{"notes", "sqlite-explorer"}) {
		t.Fatalf("server ids %v", got)
	}
	tool := b.Servers[0].Tools[0]
	if tool.Name != "read_note" {
		t.Fatalf("name %q", tool.Name)
	}
	// Key order, number literals, string escapes: all as in the file.
	for _, want := range []string{
		`{"name":"read_note","inputSchema":{"type":"object","properties":{"zeta":`,
		`"maximum":1e400,"default":1.50`,
		`\u0026 more \u2028 line\nnext \"quoted\" é \u00e9`,
		`"x-unknown":true`,
	} {
		if !bytes.Contains(tool.Raw, []byte(want)) {
			t.Errorf("raw tool lacks %s:\n%s", want, tool.Raw)
		}
	}
	if got := string(b.Servers[0].ServerInfo); got != `{"version":"1.0.0","name":"notes <&> server"}` {
		t.Errorf("serverInfo %s", got)
	}
	s := b.Servers[1]
	if s.Instructions != "Query <the> database & more." || s.Transport != TransportStdio || s.ProtocolVersion != "2026-07-28" {
		t.Errorf("server fields %+v", s)
	}
	var names []string
	for _, tl := range s.Tools {
		names = append(names, tl.Name)
	}
	if !slices.Equal(names, []string{"count_rows", "list_tables", "query"}) {
		t.Errorf("tools %v", names)
	}
}

func TestMarshalDeterministicAndSorted(t *testing.T) {
	want := readCanonical(t)
	b, err := Parse(want, "x")
	if err != nil {
		t.Fatal(err)
	}
	// Reverse every list: Marshal must sort them back.
	rev := &Bundle{BundleVersion: b.BundleVersion, Servers: slices.Clone(b.Servers)}
	slices.Reverse(rev.Servers)
	for i := range rev.Servers {
		rev.Servers[i].Tools = slices.Clone(rev.Servers[i].Tools)
		slices.Reverse(rev.Servers[i].Tools)
	}
	for i := 0; i < 3; i++ {
		got, err := rev.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("run %d differs:\n%s", i, diffLines(want, got))
		}
	}
	// Marshal did not modify its receiver.
	if rev.Servers[0].ID != "sqlite-explorer" || rev.Servers[0].Tools[0].Name != "query" {
		t.Fatal("Marshal reordered the caller's slices")
	}
}

func TestParseNormalizesLayout(t *testing.T) {
	// Unsorted, compact, odd spacing, BundleVersion 1.0: Parse accepts it;
	// Marshal gives the canonical layout; a second trip is byte-identical.
	in := `{"servers":[ {"tools":[{"name":"b","inputSchema":{"b":1,  "a":2}},{"name":"a"}],"transport":"sse",` +
		`"protocolVersion":"2024-11-05","serverInfo":{"name":"Z"},"id":"z"},` +
		`{"id":"a","serverInfo":{"name":"A","version":"1"},"protocolVersion":"2025-03-26","transport":"stdio","tools":[]}],` +
		`"bundleVersion":1.0}`
	b, err := Parse([]byte(in), "in.json")
	if err != nil {
		t.Fatal(err)
	}
	out, err := b.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "bundleVersion": 1,
  "servers": [
    {
      "id": "a",
      "serverInfo": {
        "name": "A",
        "version": "1"
      },
      "protocolVersion": "2025-03-26",
      "transport": "stdio",
      "tools": []
    },
    {
      "id": "z",
      "serverInfo": {
        "name": "Z"
      },
      "protocolVersion": "2024-11-05",
      "transport": "sse",
      "tools": [
        {
          "name": "a"
        },
        {
          "name": "b",
          "inputSchema": {
            "b": 1,
            "a": 2
          }
        }
      ]
    }
  ]
}
`
	if string(out) != want {
		t.Fatalf("got:\n%s", diffLines([]byte(want), out))
	}
	b2, err := Parse(out, "out.json")
	if err != nil {
		t.Fatal(err)
	}
	out2, err := b2.Marshal()
	if err != nil || !bytes.Equal(out, out2) {
		t.Fatalf("second trip differs (err %v)", err)
	}
}

func TestMarshalEmptyBundle(t *testing.T) {
	out, err := (&Bundle{}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"bundleVersion\": 1,\n  \"servers\": []\n}\n"; string(out) != want {
		t.Fatalf("got %q", out)
	}
}

func TestToolJSON(t *testing.T) {
	var tools []Tool
	if err := json.Unmarshal([]byte(`[ {"name" : "x", "inputSchema": {"z":1,"a":[1, 2]}} ]`), &tools); err != nil {
		t.Fatal(err)
	}
	if tools[0].Name != "x" || string(tools[0].Raw) != `{"name":"x","inputSchema":{"z":1,"a":[1,2]}}` {
		t.Fatalf("%+v %s", tools[0], tools[0].Raw)
	}
	out, err := json.Marshal(tools[0])
	if err != nil || string(out) != string(tools[0].Raw) {
		t.Fatalf("%s %v", out, err)
	}
	for _, bad := range []string{`[]`, `{}`, `{"name":1}`, `{"name":""}`, `{"Name":"x"}`, `{`} {
		if _, err := NewTool(json.RawMessage(bad)); err == nil {
			t.Errorf("NewTool(%s): no error", bad)
		}
	}
}

// bundleWith returns a one-server bundle whose server object has extra
// members spliced in and the given tools.
func bundleWith(serverExtra, tools string) string {
	return `{"bundleVersion":1,"servers":[{"id":"s","serverInfo":{"name":"s"},"protocolVersion":"2025-06-18",` +
		`"transport":"stdio"` + serverExtra + `,"tools":[` + tools + `]}]}`
}

func TestParseErrors(t *testing.T) {
	okServer := `{"id":"s","serverInfo":{"name":"s"},"protocolVersion":"p","transport":"stdio","tools":[]}`
	cases := []struct {
		name, in string
		kind     Kind
		want     string // substring of Error()
	}{
		{"empty", "", KindSyntax, "f.json:1:1: empty file"},
		{"blank", " \n\t", KindSyntax, "empty file"},
		{"not json", "hello", KindSyntax, "f.json:1:1: invalid character 'h' looking for beginning of value (byte offset 1)"},
		{"truncated", "{\n  \"bundleVersion\": 1,\n  \"servers\": [", KindSyntax, "f.json:3:14: unexpected end of JSON input (truncated file?) (byte offset 38)"},
		{"trailing", `{"bundleVersion":1,"servers":[]} x`, KindSyntax, "invalid character 'x' after top-level value"},
		{"duplicate key", `{"bundleVersion":1,"servers":[],"servers":[]}`, KindSyntax, `f.json: duplicate key "servers"`},
		{"duplicate key in tool", bundleWith("", `{"name":"a","inputSchema":{"type":"object","type":"string"}}`), KindSyntax,
			`f.json: /servers/0/tools/0/inputSchema: duplicate key "type"`},
		{"version 2", `{"bundleVersion":2,"servers":[]}`, KindVersion,
			"f.json: /bundleVersion: unsupported bundleVersion 2: this build of mcpbind reads bundleVersion 1 (the bundle was written by a newer mcpbind)"},
		{"version 2 other shape", `{"bundleVersion":2,"things":{}}`, KindVersion, "reads bundleVersion 1"},
		{"version 0", `{"bundleVersion":0,"servers":[]}`, KindVersion, "unsupported bundleVersion 0: this build of mcpbind reads bundleVersion 1"},
		{"version string", `{"bundleVersion":"1","servers":[]}`, KindSchema, "/bundleVersion: value must be 1"},
		{"no version", `{"servers":[]}`, KindSchema, "missing property 'bundleVersion'"},
		{"array root", `[]`, KindSchema, "got array, want object"},
		{"unknown top member", `{"bundleVersion":1,"servers":[],"extra":1}`, KindSchema, "'extra'"},
		{"missing tool name", bundleWith("", `{"name":"a"},{"inputSchema":{}}`), KindSchema, "f.json: /servers/0/tools/1: missing property 'name'"},
		{"tool name not string", bundleWith("", `{"name":7}`), KindSchema, "f.json: /servers/0/tools/0/name: got number, want string"},
		{"bad transport", strings.Replace(bundleWith("", ""), `"stdio"`, `"carrier-pigeon"`, 1), KindSchema, "/servers/0/transport"},
		{"bad id", strings.Replace(bundleWith("", ""), `"id":"s"`, `"id":"../etc"`, 1), KindSchema, "/servers/0/id"},
		{"stored command", bundleWith(`,"command":"node server.js"`, ""), KindSchema, "/servers/0: additional properties 'command' not allowed"},
		{"stored url", bundleWith(`,"url":"http://x"`, ""), KindSchema, "additional properties 'url' not allowed"},
		{"schema not object", bundleWith("", `{"name":"a","inputSchema":"x"}`), KindSchema, "/servers/0/tools/0/inputSchema"},
		{"duplicate server id", `{"bundleVersion":1,"servers":[` + okServer + `,` + okServer + `]}`, KindInvalid,
			`f.json: /servers/1/id: duplicate server id "s" (also at /servers/0)`},
		{"duplicate tool name", bundleWith("", `{"name":"a"},{"name":"b"},{"name":"a"}`), KindInvalid,
			`f.json: /servers/0/tools/2/name: duplicate tool name "a" (also at /servers/0/tools/0)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Parse([]byte(tc.in), "f.json")
			if err == nil {
				t.Fatalf("no error; got %+v", b)
			}
			var be *Error
			if !errors.As(err, &be) {
				t.Fatalf("error %T %v is not *Error", err, err)
			}
			if be.Kind != tc.kind {
				t.Errorf("kind %v, want %v (%v)", be.Kind, tc.kind, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error\n  %v\nlacks\n  %s", err, tc.want)
			}
			if be.Source != "f.json" {
				t.Errorf("source %q", be.Source)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.json")
	_, err := Load(missing)
	var be *Error
	if !errors.As(err, &be) || be.Kind != KindIO || !strings.HasPrefix(err.Error(), missing+": cannot read bundle") {
		t.Fatalf("missing file: %v", err)
	}
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("error does not wrap ErrNotExist: %v", err)
	}

	trunc := filepath.Join(dir, "trunc.json")
	data := readCanonical(t)
	if err := os.WriteFile(trunc, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load(trunc)
	if !errors.As(err, &be) || be.Kind != KindSyntax || !strings.HasPrefix(err.Error(), trunc+":") ||
		!strings.Contains(err.Error(), "unexpected end of JSON input") || be.Line == 0 {
		t.Fatalf("truncated file: %v", err)
	}
}

func TestMarshalErrors(t *testing.T) {
	tool := func(raw string) Tool {
		tl, err := NewTool(json.RawMessage(raw))
		if err != nil {
			t.Fatal(err)
		}
		return tl
	}
	srv := func(id string, tools ...Tool) Server {
		return Server{ID: id, ServerInfo: json.RawMessage(`{"name":"n"}`), ProtocolVersion: "p", Transport: TransportStdio, Tools: tools}
	}
	cases := []struct {
		name string
		b    Bundle
		want string
	}{
		{"version", Bundle{BundleVersion: 2}, "cannot write bundleVersion 2"},
		{"duplicate id", Bundle{Servers: []Server{srv("a"), srv("a")}}, `/servers/1/id: duplicate server id "a"`},
		{"duplicate tool", Bundle{Servers: []Server{srv("a", tool(`{"name":"t"}`), tool(`{"name":"t","x":1}`))}}, `/servers/0/tools/1/name: duplicate tool name "t"`},
		{"name mismatch", Bundle{Servers: []Server{srv("a", Tool{Name: "u", Raw: json.RawMessage(`{"name":"t"}`)})}}, `differs from the name "t"`},
		{"raw missing", Bundle{Servers: []Server{srv("a", Tool{Name: "u"})}}, `/servers/0/tools/0: tool "u"`},
		{"bad serverInfo", Bundle{Servers: []Server{{ID: "a", ServerInfo: json.RawMessage(`{`), ProtocolVersion: "p", Transport: "stdio"}}}, "/servers/0/serverInfo: not valid JSON"},
		{"no serverInfo", Bundle{Servers: []Server{{ID: "a", ProtocolVersion: "p", Transport: "stdio"}}}, "/servers/0/serverInfo"},
		{"bad transport", Bundle{Servers: []Server{{ID: "a", ServerInfo: json.RawMessage(`{"name":"n"}`), ProtocolVersion: "p", Transport: "tcp"}}}, "/servers/0/transport"},
		{"bad id", Bundle{Servers: []Server{srv("")}}, "/servers/0/id"},
		{"key twice in a tool", Bundle{Servers: []Server{srv("a", Tool{Name: "t", Raw: json.RawMessage(`{"name":"t","x":1,"x":2}`)})}}, `/servers/0/tools/0: tool "t"`},
		{"key twice in serverInfo", Bundle{Servers: []Server{{ID: "a", ServerInfo: json.RawMessage(`{"name":"n","name":"m"}`), ProtocolVersion: "p", Transport: "stdio"}}}, "/servers/0/serverInfo"},
		{"tool the schema rejects", Bundle{Servers: []Server{srv("a", tool(`{"name":"t","inputSchema":{"type":"object"},"title":5}`))}}, "/servers/0/tools/0/title"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := tc.b.Marshal()
			if err == nil {
				t.Fatalf("no error:\n%s", out)
			}
			if out != nil {
				t.Error("bytes returned with an error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v lacks %s", err, tc.want)
			}
			if cerr := tc.b.Check(); cerr == nil || cerr.Error() != err.Error() {
				t.Errorf("Check: %v, Marshal: %v", cerr, err)
			}
		})
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "b.json")
	if err := WriteFile(p, []byte("one\n")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("new file: %v %v", fi.Mode(), err)
	}
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("two\n")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != "two\n" {
		t.Fatalf("content %q", got)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode not kept: %v", fi.Mode())
	}

	// Through a symlink: the target is replaced, the link kept.
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink("b.json", link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, []byte("three\n")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("symlink replaced")
	}
	if got, _ := os.ReadFile(p); string(got) != "three\n" {
		t.Fatalf("target content %q", got)
	}

	// Failures leave nothing behind.
	if err := WriteFile(filepath.Join(dir, "no", "such", "dir.json"), []byte("x")); err == nil {
		t.Fatal("no error for a missing directory")
	}
	if err := WriteFile(dir, []byte("x")); err == nil {
		t.Fatal("no error for a directory")
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"b.json", "link.json"}) {
		t.Fatalf("directory holds %v", names)
	}
}

func TestSchemaIsEmbedded(t *testing.T) {
	var v map[string]any
	if err := json.Unmarshal(Schema(), &v); err != nil || v["$id"] != schemaURL {
		t.Fatalf("schema: %v %v", v["$id"], err)
	}
	if _, err := compiledSchema(); err != nil {
		t.Fatal(err)
	}
}

func diffLines(want, got []byte) string {
	w := strings.Split(string(want), "\n")
	g := strings.Split(string(got), "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return "line " + strconv.Itoa(i+1) + ":\n want " + a + "\n  got " + b
		}
	}
	return "(equal)"
}

func TestCheckIDAgreesWithSchema(t *testing.T) {
	for _, id := range []string{"a", "sqlite-explorer", "A.b_c-9", "9", "", "-a", ".a", "a/b", "a b", "é", "a\n", "_x", "a..b"} {
		srv := `{"id":` + strconv.Quote(id) + `,"serverInfo":{"name":"n"},"protocolVersion":"p","transport":"stdio","tools":[]}`
		_, perr := Parse([]byte(`{"bundleVersion":1,"servers":[`+srv+`]}`), "x")
		cerr := CheckID(id)
		if (perr == nil) != (cerr == nil) {
			t.Errorf("id %q: schema says %v, CheckID says %v", id, perr, cerr)
		}
	}
}

// TestRoundTripRealBundle round-trips a bundle exported from
// @modelcontextprotocol/server-everything.
func TestRoundTripRealBundle(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("testdata", "everything.json"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse(want, "everything.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := b.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("round trip changed the bytes:\n%s", diffLines(want, got))
	}
}

func benchBundle(b *testing.B) []byte {
	data, err := os.ReadFile(filepath.Join("testdata", "everything.json"))
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkParse parses the server-everything bundle.
func BenchmarkParse(b *testing.B) {
	data := benchBundle(b)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse(data, "everything.json"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMarshal writes the server-everything bundle.
func BenchmarkMarshal(b *testing.B) {
	bun, err := Parse(benchBundle(b), "everything.json")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := bun.Marshal(); err != nil {
			b.Fatal(err)
		}
	}
}
