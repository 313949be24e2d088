package main

import (
	"context"
	"encoding/json"
	"fmt"
	"go/scanner"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/gen"
	"github.com/mcpbind/mcpbind/ir"
	"github.com/mcpbind/mcpbind/testservers/gencheck"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// hostileCase is one contract a hostile server serves: its serverInfo and
// raw tool definitions. wantInDoc lists text the generated package must
// show (in a comment or string); wantNotInSource lists text no token of the
// generated Go outside comments and string literals may contain: the
// server's attempt to write code.
type hostileCase struct {
	name                       string
	serverName, serverVersion  string
	tools                      []map[string]any
	wantInDoc, wantNotInSource []string
}

// obj is an object schema with the given properties.
func obj(props map[string]any) map[string]any {
	return map[string]any{"type": "object", "properties": props}
}

var str = map[string]any{"type": "string"}

// hostileCases is the table of hostile servers: each class of server text
// that once reached generated source raw, or could, and each name that
// once broke the package.
func hostileCases() []hostileCase {
	// initCode compiles when a comment lets it out: it closes the struct,
	// adds an init function and opens a struct that takes the rest.
	const initCode = "\n}\nfunc init() { panic(\"pwned\") }\ntype pwned struct {\n//"
	return []hostileCase{
		{name: "format closes the struct", tools: []map[string]any{{"name": "t",
			"inputSchema": obj(map[string]any{"p": map[string]any{"type": "string", "format": "date" + initCode}})}},
			wantNotInSource: []string{"pwned", "panic"}},
		{name: "tool name with line breaks", tools: []map[string]any{{"name": "t" + initCode,
			"inputSchema": obj(map[string]any{"p": str})}}, wantNotInSource: []string{"pwned", "panic"}},
		{name: "title and description", tools: []map[string]any{{"name": "t", "title": "T\u2028//go:generate touch pwned",
			"description": "d\r//go:generate touch pwned", "inputSchema": obj(map[string]any{"p": str})}}},
		{name: "serverInfo name and version", serverName: "s\n//go:generate touch pwned\npackage pwned",
			serverVersion:   "1\u0085//line pwned.go:1\u2029func init() {}",
			tools:           []map[string]any{{"name": "t", "inputSchema": obj(map[string]any{"p": str})}},
			wantNotInSource: []string{"pwned"}},
		{name: "go:generate in serverInfo", serverName: "s\n//go:generate touch pwned", tools: []map[string]any{{"name": "t",
			"inputSchema": obj(map[string]any{"p": str})}}},
		{name: "build constraint", serverName: "\n+build ignore\n", tools: []map[string]any{{"name": "t", "description": "+build ignore",
			"inputSchema": obj(map[string]any{"p": str})}}},
		{name: "NUL, BOM and bidi in descriptions", tools: []map[string]any{{"name": "t", "description": "a\x00b\ufeffc\u202ed\u2066e\u200ff\u061cg",
			"inputSchema": obj(map[string]any{"p": map[string]any{"type": "string", "description": "x\x00\ufeff\u202a"}})}},
			wantInDoc: []string{`a\u0000b\ufeffc\u202ed\u2066e\u200ff\u061cg`}},
		{name: "line break in a $defs key", tools: []map[string]any{{"name": "t", "inputSchema": map[string]any{
			"type": "object", "properties": map[string]any{"p": map[string]any{"$ref": "#/$defs/a%0Afunc%20init()%7B%7D"}},
			"$defs": map[string]any{"a\nfunc init(){}": obj(map[string]any{"q": str})}}}},
			wantNotInSource: []string{"init"}},
		{name: "property names of generated methods and fields", tools: []map[string]any{{"name": "t", "inputSchema": obj(map[string]any{
			"validate": str, "Validate": str, "MarshalJSON": str, "UnmarshalJSON": str, "AdditionalProperties": str, "String": str,
			"objectRules": str, "Rest": str})}}},
		{name: "tagged union variants named like methods", tools: []map[string]any{{"name": "t", "inputSchema": obj(map[string]any{
			"u": map[string]any{"oneOf": []any{
				map[string]any{"type": "object", "properties": map[string]any{"k": map[string]any{"const": "validate"}}, "required": []any{"k"}},
				map[string]any{"type": "object", "properties": map[string]any{"k": map[string]any{"const": "MarshalJSON"}}, "required": []any{"k"}},
			}}})}}},
		{name: "outputTypeName collides", tools: outputTypeNameTools("error", "string", "json", "context", "_", "ServerDigest", "Foo Bar", "init", "Client", "schemas", "DigestCheck")},
		{name: "punctuation in type names", tools: []map[string]any{{"name": "t.x/y", "inputSchema": obj(map[string]any{
			"p": map[string]any{"title": "Foo.Bar/Baz!", "type": "object", "properties": map[string]any{"q": str}}}),
			"outputSchema": map[string]any{"title": "a b-c", "type": "object", "properties": map[string]any{"r": str}}}}},
	}
}

// outputTypeNameTools returns one tool per name, each with an object
// outputSchema whose pmcp:outputTypeName (in _meta) is that name.
func outputTypeNameTools(names ...string) []map[string]any {
	var tools []map[string]any
	for i, n := range names {
		tools = append(tools, map[string]any{"name": fmt.Sprintf("t%d", i), "inputSchema": obj(map[string]any{"p": str}),
			"outputSchema": obj(map[string]any{"r": str}), "_meta": map[string]any{"pmcp:outputTypeName": n}})
	}
	return tools
}

// TestHostileServers exports each hostile contract from a real mcp-go
// server over stdio, generates its package (exit 0), builds and vets all
// packages in one temporary module, and checks that each declares only what
// the IR planned and holds no directive or init function.
func TestHostileServers(t *testing.T) {
	bin := testenv.Build(t, "./cmd/mcpbind")
	server := testenv.Build(t, "./testservers/hostileserver")
	root := testenv.ModuleRoot(t)
	mod := t.TempDir()
	g, err := gen.New()
	if err != nil {
		t.Fatal(err)
	}
	cases := hostileCases()
	plans := map[string]*ir.Package{}
	for i, tc := range cases {
		spec := map[string]any{"serverInfo": map[string]string{"name": tc.serverName, "version": tc.serverVersion}, "tools": tc.tools}
		specFile := filepath.Join(t.TempDir(), "spec.json")
		data, err := json.Marshal(spec)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(specFile, data, 0o644); err != nil {
			t.Fatal(err)
		}
		pkg := fmt.Sprintf("hostile%d", i)
		raw := mustExport(t, bin, nil, "--id", "hostile", "--env", "MCPBIND_HOSTILE_SPEC="+specFile, "--", server)
		bundlePath := filepath.Join(t.TempDir(), "bundle.json")
		if err := os.WriteFile(bundlePath, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		r := runBinary(t, bin, nil, "generate", bundlePath, "-o", mod, "--package", pkg)
		if r.code != 0 {
			t.Errorf("%s: generate: exit %d\n%s", tc.name, r.code, r.stderr)
			continue
		}
		b, err := bundle.Parse(raw, bundlePath)
		if err != nil {
			t.Fatal(err)
		}
		outs, err := g.Bundle(b, gen.Options{Package: pkg})
		if err != nil {
			t.Fatal(err)
		}
		plans[pkg] = outs[0].IR
		checkHostileOutput(t, tc, filepath.Join(mod, pkg), outs[0].IR)
	}
	goMod := fmt.Sprintf("module hostiletest\n\ngo 1.26.0\n\nrequire github.com/mcpbind/mcpbind v0.0.0-00010101000000-000000000000\n\nreplace github.com/mcpbind/mcpbind => %s\n", root)
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte(goMod), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mod, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"build", "./..."}, {"vet", "./..."}} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Dir = mod
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Errorf("go %s in the module of the hostile packages: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// checkHostileOutput reads one generated package and checks it with
// gencheck.OnlyPlanned against its IR, then looks for the text the case
// wants shown.
func checkHostileOutput(t *testing.T, tc hostileCase, dir string, p *ir.Package) {
	t.Helper()
	var files []gencheck.File
	var all strings.Builder
	for _, name := range []string{"client.go", "types.go", "schemas.go"} {
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		all.Write(src)
		files = append(files, gencheck.File{Name: name, Content: src})
	}
	for _, err := range gencheck.OnlyPlanned(p, files) {
		t.Errorf("%s: %v", tc.name, err)
	}
	for _, w := range tc.wantInDoc {
		if !strings.Contains(all.String(), w) {
			t.Errorf("%s: the generated package does not show %q", tc.name, w)
		}
	}
	for _, name := range []string{"client.go", "types.go", "schemas.go"} {
		for _, tok := range codeTokens(t, filepath.Join(dir, name)) {
			for _, w := range tc.wantNotInSource {
				if strings.Contains(tok, w) {
					t.Errorf("%s: %s has the token %q, which holds the server's %q", tc.name, name, tok, w)
				}
			}
		}
	}
}

// codeTokens returns the tokens of the Go file at path other than comments
// and string and character literals: the code.
func codeTokens(t *testing.T, path string) []string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var s scanner.Scanner
	s.Init(fset.AddFile(path, -1, len(src)), src, func(pos token.Position, msg string) { t.Errorf("%s: %s", pos, msg) }, 0)
	var toks []string
	for {
		_, tok, lit := s.Scan()
		switch {
		case tok == token.EOF:
			return toks
		case tok == token.STRING || tok == token.CHAR:
		case lit != "":
			toks = append(toks, lit)
		default:
			toks = append(toks, tok.String())
		}
	}
}
