package diff

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// server builds a bundle server from tool objects (JSON).
func server(t *testing.T, id string, tools ...string) bundle.Server {
	t.Helper()
	s := bundle.Server{ID: id, ServerInfo: json.RawMessage(`{"name":"` + id + `","version":"1"}`),
		ProtocolVersion: "2026-07-28", Transport: bundle.TransportStdio}
	for _, raw := range tools {
		tl, err := bundle.NewTool(json.RawMessage(raw))
		if err != nil {
			t.Fatalf("tool %s: %v", raw, err)
		}
		s.Tools = append(s.Tools, tl)
	}
	slices.SortFunc(s.Tools, func(a, b bundle.Tool) int { return strings.Compare(a.Name, b.Name) })
	return s
}

func bundleOf(servers ...bundle.Server) *bundle.Bundle {
	return &bundle.Bundle{BundleVersion: bundle.Version, Servers: servers}
}

// lines renders changes as "class where pointer code" lines in report order.
func lines(r Report) []string {
	var out []string
	for _, c := range r.Changes {
		out = append(out, strings.Join([]string{string(c.Class), c.Location(), string(c.Where), c.Pointer, c.Code}, " "))
	}
	return out
}

const queryTool = `{"name":"query","description":"Run SQL.","inputSchema":{"type":"object","properties":{"sql":{"type":"string"}},"required":["sql"],"additionalProperties":false},
 "outputSchema":{"type":"object","properties":{"rows":{"type":"array","items":{"type":"string"}},"mode":{"type":"string","enum":["ro","rw"]}},"required":["rows"]}}`

const countTool = `{"name":"count_rows","inputSchema":{"type":"object","properties":{"table":{"type":"string"}},"required":["table"]},"outputSchema":{"type":"integer"}}`

func TestCompareToolsAndServers(t *testing.T) {
	old := bundleOf(server(t, "db", queryTool, countTool), server(t, "gone"))
	cur := bundleOf(server(t, "db", queryTool, `{"name":"list_tables","inputSchema":{"type":"object"},"outputSchema":{"type":"array","items":{"type":"string"}}}`), server(t, "fresh"))
	got := lines(Compare(old, cur))
	want := []string{
		"breaking db/count_rows tool  tool-removed",
		"api db/count_rows go Client.CountRows go-method-removed",
		"api db/count_rows go CountRowsArgs go-type-removed",
		"compatible db/list_tables tool  tool-added",
		"api db/list_tables go Client.ListTables go-method-added",
		"compatible fresh server  server-added",
		"api fresh go fresh go-package-added",
		"breaking gone server  server-removed",
		"api gone go gone go-package-removed",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestCompareToolFieldsAreCosmetic(t *testing.T) {
	old := bundleOf(server(t, "db", queryTool))
	edited := strings.Replace(queryTool, `"description":"Run SQL."`, `"description":"Run one SQL statement.","title":"Query","annotations":{"readOnlyHint":true}`, 1)
	cur := bundleOf(server(t, "db", edited))
	cur.Servers[0].Instructions = "Use query."
	r := Compare(old, cur)
	got := lines(r)
	want := []string{
		"cosmetic db server /instructions field-added",
		"cosmetic db/query tool /description field-changed",
		"cosmetic db/query tool /title field-added",
		"cosmetic db/query tool /annotations field-added",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if r.Has(Breaking) || r.Has(API) || r.Count(Cosmetic) != 4 {
		t.Errorf("summary %s", r.Summary())
	}
}

func TestCompareGoAPI(t *testing.T) {
	old := bundleOf(server(t, "db", queryTool))
	cases := []struct {
		name, tool string
		want       []string
	}{
		{"optional argument", strings.Replace(queryTool, `"sql":{"type":"string"}},`, `"sql":{"type":"string"},"limit":{"type":"integer"}},`, 1), []string{
			"compatible db/query input /properties/limit property-added",
			"api db/query go QueryArgs.Limit go-field-added",
		}},
		{"argument made required", strings.Replace(strings.Replace(queryTool, `"sql":{"type":"string"}},`, `"sql":{"type":"string"},"limit":{"type":"integer"}},`, 1),
			`"required":["sql"]`, `"required":["sql","limit"]`, 1), []string{
			"breaking db/query input /properties/limit property-added",
			"api db/query go QueryArgs.Limit go-field-added",
		}},
		{"result enum widened", strings.Replace(queryTool, `"enum":["ro","rw"]`, `"enum":["ro","rw","admin"]`, 1), []string{
			"breaking db/query output /properties/mode/enum enum-widened",
			"api db/query go ModeAdmin go-const-added",
		}},
		{"result field removed", strings.Replace(queryTool, `,"mode":{"type":"string","enum":["ro","rw"]}`, ``, 1), []string{
			"breaking db/query output /properties/mode property-removed",
			"api db/query go QueryResult.Mode go-field-removed",
			"api db/query go Mode go-type-removed",
		}},
		{"result type named by its title", strings.Replace(queryTool, `"outputSchema":{"type":"object",`, `"outputSchema":{"title":"Rows","type":"object",`, 1), []string{
			"cosmetic db/query output /title annotation-added",
			"api db/query go Rows go-type-renamed", // a nested type's name no longer repeats its parent's
		}},
		{"result no longer required", strings.Replace(queryTool, `"required":["rows"]`, `"required":[]`, 1), []string{
			"breaking db/query output /properties/rows required-widened",
		}},
		{"argument retyped", strings.Replace(queryTool, `"sql":{"type":"string"}`, `"sql":{"type":["string","null"]}`, 1), []string{
			"compatible db/query input /properties/sql/type type-widened",
			"api db/query go QueryArgs.SQL go-field-type-changed",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := lines(Compare(old, bundleOf(server(t, "db", tc.tool))))
			if !slices.Equal(got, tc.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestCompareGenerateFailure(t *testing.T) {
	old := bundleOf(server(t, "db", queryTool))
	bad := strings.Replace(queryTool, `"sql":{"type":"string"}`, `"sql":{"$ref":"other.json"}`, 1)
	r := Compare(old, bundleOf(server(t, "db", bad)))
	if !r.Has(API) || !slices.ContainsFunc(r.Changes, func(c Change) bool { return c.Code == "go-generate-failed" }) {
		t.Errorf("no go-generate-failed:\n%s", strings.Join(lines(r), "\n"))
	}
	if !r.Has(Breaking) {
		t.Errorf("an unresolvable $ref replacing a string is breaking:\n%s", strings.Join(lines(r), "\n"))
	}
}

// The golden bundles of sqlite-explorer were exported from the same server
// at 2026-07-28 and at 2025-06-18, where it wraps non-object results in
// {"result": …}: the contract and the Go API are the same.
func TestCompareProtocolEras(t *testing.T) {
	root := testenv.ModuleRoot(t)
	modern, err := bundle.Load(filepath.Join(root, "golden", "sqlite-explorer", "bundle.json"))
	if err != nil {
		t.Fatal(err)
	}
	legacy, err := bundle.Load(filepath.Join(root, "golden", "sqlite-explorer-2025-06-18", "bundle.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, pair := range [][2]*bundle.Bundle{{modern, legacy}, {legacy, modern}} {
		r := Compare(pair[0], pair[1])
		if r.Count(Cosmetic) != len(r.Changes) || len(r.Changes) == 0 {
			t.Errorf("want only cosmetic changes:\n%s", strings.Join(lines(r), "\n"))
		}
		for _, c := range r.Changes {
			if c.Code != "envelope-changed" && c.Pointer != "/protocolVersion" {
				t.Errorf("unexpected change %+v", c)
			}
		}
	}
	for _, name := range []string{"sqlite-explorer", "everything", "hostile"} {
		b, err := bundle.Load(filepath.Join(root, "golden", name, "bundle.json"))
		if err != nil {
			t.Fatal(err)
		}
		if r := Compare(b, b); len(r.Changes) != 0 {
			t.Errorf("%s against itself:\n%s", name, strings.Join(lines(r), "\n"))
		}
	}
}

func TestFormats(t *testing.T) {
	old := bundleOf(server(t, "sqlite-explorer", queryTool))
	cur := bundleOf(server(t, "sqlite-explorer", strings.Replace(strings.Replace(queryTool,
		`"sql":{"type":"string"}},`, `"sql":{"type":"string"},"limit":{"type":"integer"}},`, 1),
		`"required":["sql"]`, `"required":["sql","limit"]`, 1)))
	r := Compare(old, cur)
	r.Old, r.New = "old.json", "new.json"

	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	wantText := "breaking  sqlite-explorer/query  input /properties/limit: new required property\n" +
		"api       sqlite-explorer/query  go QueryArgs.Limit: field added: Limit int64\n"
	if text.String() != wantText {
		t.Errorf("text:\n%s\nwant:\n%s", text.String(), wantText)
	}

	var js bytes.Buffer
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		FormatVersion int             `json:"formatVersion"`
		Old           string          `json:"old"`
		New           string          `json:"new"`
		Summary       map[string]int  `json:"summary"`
		Verdict       map[string]bool `json:"verdict"`
		Changes       []Change        `json:"changes"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, js.String())
	}
	if doc.FormatVersion != 1 || doc.Summary["breaking"] != 1 || doc.Summary["api"] != 1 || !doc.Verdict["breaking"] || !doc.Verdict["apiChanged"] ||
		doc.Old != "old.json" || doc.New != "new.json" ||
		len(doc.Changes) != 2 || doc.Changes[0].Pointer != "/properties/limit" || compact(doc.Changes[0].New) != `{"type":"integer"}` {
		t.Errorf("json:\n%s", js.String())
	}
	if golden := filepath.Join("testdata", "report.json"); os.Getenv("UPDATE_DIFF_GOLDEN") != "" {
		_ = os.WriteFile(golden, js.Bytes(), 0o644)
	} else if want, err := os.ReadFile(golden); err != nil || !bytes.Equal(want, js.Bytes()) {
		t.Errorf("json differs from %s (UPDATE_DIFF_GOLDEN=1 rewrites it):\n%s", golden, js.String())
	}

	var md bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# Contract changes: `old.json` → `new.json`",
		"1 breaking, 0 compatible, 0 cosmetic, 1 Go API change.",
		"## sqlite-explorer",
		"| class | tool | where | pointer | change |",
		"| **breaking** | `query` | input | `/properties/limit` | new required property |",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}

	empty := Compare(old, old)
	var et, ej bytes.Buffer
	_ = empty.WriteText(&et)
	_ = empty.WriteJSON(&ej)
	if et.Len() != 0 || !strings.Contains(ej.String(), `"changes": []`) {
		t.Errorf("empty report: text %q json %s", et.String(), ej.String())
	}
}

func compact(raw []byte) string {
	var b bytes.Buffer
	_ = json.Compact(&b, raw)
	return b.String()
}
