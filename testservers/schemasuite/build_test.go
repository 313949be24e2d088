package schemasuite

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/gen"
	"github.com/mcpbind/mcpbind/ir"
)

// toolJSON is a tool whose outputSchema is schema, byte for byte.
func toolJSON(name string, schema json.RawMessage) json.RawMessage {
	n, _ := json.Marshal(name)
	return json.RawMessage(`{"name":` + string(n) + `,"inputSchema":{"type":"object"},"outputSchema":` + string(schema) + `}`)
}

// suiteBundle is a bundle with one server holding one tool per group,
// written and read back through bundle.Marshal and bundle.Parse as a real
// bundle file would be.
func suiteBundle(groups []*suiteGroup) (*bundle.Bundle, error) {
	srv := bundle.Server{
		ID:              serverID,
		ServerInfo:      json.RawMessage(`{"name":"json-schema-test-suite","version":"draft2020-12"}`),
		ProtocolVersion: "2026-07-28",
		Transport:       bundle.TransportStdio,
	}
	for _, sg := range groups {
		tool, err := bundle.NewTool(toolJSON(sg.tool, sg.Schema))
		if err != nil {
			return nil, err
		}
		srv.Tools = append(srv.Tools, tool)
	}
	data, err := (&bundle.Bundle{BundleVersion: bundle.Version, Servers: []bundle.Server{srv}}).Marshal()
	if err != nil {
		return nil, err
	}
	return bundle.Parse(data, "suite.json")
}

// generate runs the real generator on the bundle of groups. A panic is an
// error too: one schema must not stop the run.
func generate(g *gen.Generator, groups []*suiteGroup) (files []gen.File, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("generator panic: %v", r)
		}
	}()
	b, err := suiteBundle(groups)
	if err != nil {
		return nil, err
	}
	outs, err := g.Bundle(b, gen.Options{Package: genPackage})
	if err != nil {
		return nil, err
	}
	if len(outs) != 1 {
		return nil, fmt.Errorf("generator returned %d packages for one server", len(outs))
	}
	return outs[0].Files, nil
}

// buildIR builds the IR of the combined server, as gen.Bundle does, to read
// each tool's natural result type.
func buildIR(groups []*suiteGroup) (p *ir.Package, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	b, err := suiteBundle(groups)
	if err != nil {
		return nil, err
	}
	return ir.BuildServer(&b.Servers[0], genPackage, ir.DefaultConfig())
}

// exports maps import paths to their export data files.
type exports map[string]string

func (e exports) lookup(path string) (io.ReadCloser, error) {
	f, ok := e[path]
	if !ok {
		return nil, fmt.Errorf("no export data for %q", path)
	}
	return os.Open(f)
}

// exportData asks the go tool for the export data of paths and their
// dependencies (building them into the build cache if needed).
func exportData(root string, paths []string) (exports, error) {
	args := append([]string{"list", "-export", "-deps", "-f", "{{if .Export}}{{.ImportPath}}\t{{.Export}}{{end}}"}, paths...)
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -export %s: %v\n%s", strings.Join(paths, " "), err, stderr.Bytes())
	}
	e := exports{}
	for line := range strings.Lines(string(out)) {
		if p, f, ok := strings.Cut(strings.TrimSpace(line), "\t"); ok {
			e[p] = f
		}
	}
	return e, nil
}

// checker type-checks generated packages in-process.
type checker struct {
	fset *token.FileSet
	imp  types.Importer
}

// check parses and type-checks files as the package genPackage. The error is
// the first one found.
func (c *checker) check(files []gen.File) (*types.Package, []*ast.File, error) {
	var parsed []*ast.File
	for _, f := range files {
		af, err := parser.ParseFile(c.fset, f.Name, f.Content, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, nil, err
		}
		parsed = append(parsed, af)
	}
	var first error
	conf := types.Config{Importer: c.imp, Error: func(err error) {
		if first == nil {
			first = err
		}
	}}
	pkg, _ := conf.Check(driverModule+"/"+genPackage, c.fset, parsed, nil)
	if first != nil {
		return nil, nil, first
	}
	return pkg, parsed, nil
}

// checkDriver type-checks the driver's main package against the checked
// generated package.
func (c *checker) checkDriver(pkg *types.Package, src []byte) error {
	af, err := parser.ParseFile(c.fset, "main.go", src, parser.SkipObjectResolution)
	if err != nil {
		return err
	}
	conf := types.Config{Importer: importerFunc(func(path string) (*types.Package, error) {
		if path == pkg.Path() {
			return pkg, nil
		}
		return c.imp.Import(path)
	})}
	_, err = conf.Check(driverModule, c.fset, []*ast.File{af}, nil)
	return err
}

type importerFunc func(string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// isolate returns the groups that can be generated and type-checked
// together. When all of them can (the usual case) that is one check;
// otherwise halves are checked apart and the groups that fail are marked
// excluded.
func isolate(g *gen.Generator, c *checker, groups []*suiteGroup) []*suiteGroup {
	if len(groups) == 0 {
		return nil
	}
	files, err := generate(g, groups)
	if err == nil {
		_, _, err = c.check(files)
	}
	if err == nil {
		return groups
	}
	if len(groups) == 1 {
		groups[0].excluded = err
		return nil
	}
	mid := len(groups) / 2
	a := isolate(g, c, groups[:mid])
	b := isolate(g, c, groups[mid:])
	both := append(slices.Clone(a), b...)
	files, err = generate(g, both)
	if err == nil {
		_, _, err = c.check(files)
	}
	if err == nil {
		return both
	}
	for _, sg := range b {
		sg.excluded = fmt.Errorf("type-checks alone but not together with other groups: %w", err)
	}
	return a
}

// driverSource writes the driver: it reads the cases, decodes each instance
// into its tool's natural result type (ir.Tool.ResultGoType), calls
// Validate() when that type (or a pointer to it) has one, encodes the value
// back and prints one JSON line per instance; decoding and encoding go
// through the package's Unmarshal and Marshal, or through encoding/json
// when its third argument is "std". A tool whose result type the
// generated package does not declare as the IR says is marked excluded and
// left out.
func driverSource(fset *token.FileSet, pkg *types.Package, files []*ast.File, p *ir.Package, byTool map[string]*suiteGroup) ([]byte, error) {
	var client *ast.File
	for _, f := range files {
		if filepath.Base(fset.File(f.Pos()).Name()) == "client.go" {
			client = f
		}
	}
	if client == nil {
		return nil, errors.New("the generated package has no client.go")
	}
	// Package-qualified names in result types get driver-local aliases.
	aliases := map[string]string{} // import path → alias
	qualify := func(other *types.Package) string {
		if other == pkg {
			return genPackage
		}
		a := "rt_" + other.Name()
		aliases[other.Path()] = a
		return a
	}
	clientObj := pkg.Scope().Lookup("Client")
	if clientObj == nil {
		return nil, errors.New("the generated package declares no Client")
	}
	var entries strings.Builder
	for _, tool := range p.Tools {
		sg := byTool[tool.Name]
		if sg == nil {
			return nil, fmt.Errorf("the IR has a tool %q that no group made", tool.Name)
		}
		sg.wrapped = tool.Wrapped
		// A tool whose IR and generated code disagree is excluded, not
		// fatal: the rest of the run goes on.
		tv, err := types.Eval(fset, pkg, client.Name.Pos(), tool.ResultGoType())
		if err != nil || !tv.IsType() {
			sg.excluded = fmt.Errorf("ResultGoType %q does not name a type in the generated package: %v", tool.ResultGoType(), err)
			continue
		}
		obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(clientObj.Type()), false, pkg, tool.Method)
		fn, ok := obj.(*types.Func)
		if !ok {
			sg.excluded = fmt.Errorf("the generated Client has no method %s", tool.Method)
			continue
		}
		if res := fn.Signature().Results(); res.Len() != 2 || !types.Identical(res.At(0).Type(), tv.Type) {
			sg.excluded = fmt.Errorf("Client.%s returns %s, but the IR's ResultGoType is %s", tool.Method, res, tool.ResultGoType())
			continue
		}
		sg.goType = types.TypeString(tv.Type, qualify)
		fmt.Fprintf(&entries, "\t%q: check[%s],\n", tool.Name, sg.goType)
	}
	var imps strings.Builder
	for _, path := range slices.Sorted(maps.Keys(aliases)) {
		fmt.Fprintf(&imps, "\t%s %q\n", aliases[path], path)
	}
	src := fmt.Sprintf(driverTemplate, imps.String(), driverModule+"/"+genPackage, entries.String())
	return []byte(src), nil
}

const driverTemplate = `// Command driver checks the JSON-Schema-Test-Suite instances against the
// types mcpbind generated; written by testservers/schemasuite.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strconv"
%s
	suite %q
)

type instance struct {
	Tool    string          ` + "`json:\"tool\"`" + `
	Data    json.RawMessage ` + "`json:\"data\"`" + `
	Wrapped bool            ` + "`json:\"wrapped\"`" + `
}

type outcome struct {
	Index     int             ` + "`json:\"i\"`" + `
	Stage     string          ` + "`json:\"stage\"`" + `
	Err       string          ` + "`json:\"err,omitempty\"`" + `
	Out       json.RawMessage ` + "`json:\"out,omitempty\"`" + `
	Validated bool            ` + "`json:\"validated,omitempty\"`" + `
}

type validator interface{ Validate() error }

// check decodes data into a T, validates and encodes it back: with the
// package's Unmarshal and Marshal, or, when std is set, with encoding/json
// (which reaches them through the generated MarshalJSON and UnmarshalJSON).
func check[T any](data []byte, wrapped, std bool) (o outcome) {
	defer func() {
		if r := recover(); r != nil {
			o = outcome{Stage: "panic", Err: fmt.Sprint(r)}
		}
	}()
	if wrapped {
		var env map[string]json.RawMessage
		if err := json.Unmarshal(data, &env); err != nil {
			return outcome{Stage: "unmarshal", Err: err.Error()}
		}
		inner, ok := env["result"]
		if !ok || len(env) != 1 {
			return outcome{Stage: "unmarshal", Err: "not a {\"result\": v} envelope"}
		}
		data = inner
	}
	var v T
	unmarshal, marshal := suite.Unmarshal, suite.Marshal
	if std {
		unmarshal, marshal = json.Unmarshal, json.Marshal
	}
	if err := unmarshal(data, &v); err != nil {
		return outcome{Stage: "unmarshal", Err: err.Error()}
	}
	var val validator
	if rv := reflect.ValueOf(&v).Elem(); rv.Kind() == reflect.Pointer && rv.IsNil() {
		// JSON null decoded into a pointer: nothing to call Validate on.
	} else if x, ok := any(v).(validator); ok {
		val = x
	} else if x, ok := any(&v).(validator); ok {
		val = x
	}
	if val != nil {
		if err := val.Validate(); err != nil {
			return outcome{Stage: "validate", Err: err.Error(), Validated: true}
		}
	}
	out, err := marshal(v)
	if err != nil {
		return outcome{Stage: "marshal", Err: err.Error(), Validated: val != nil}
	}
	if wrapped {
		out, _ = json.Marshal(map[string]json.RawMessage{"result": out})
	}
	return outcome{Stage: "ok", Out: out, Validated: val != nil}
}

var checks = map[string]func([]byte, bool, bool) outcome{
%s}

func main() {
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	start, _ := strconv.Atoi(os.Args[2])
	std := len(os.Args) > 3 && os.Args[3] == "std"
	var cases []instance
	if err := json.Unmarshal(data, &cases); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	w := bufio.NewWriter(os.Stdout)
	for i := start; i < len(cases); i++ {
		c := cases[i]
		f, ok := checks[c.Tool]
		if !ok {
			fmt.Fprintln(os.Stderr, "no check for tool", c.Tool)
			os.Exit(2)
		}
		o := f(c.Data, c.Wrapped, std)
		o.Index = i
		line, err := json.Marshal(o)
		if err != nil {
			line, _ = json.Marshal(outcome{Index: i, Stage: "marshal", Err: "driver: " + err.Error()})
		}
		w.Write(line)
		w.WriteByte('\n')
		w.Flush()
	}
}
`

// writeModule lays out the temporary module: go.mod requiring this module
// through a replace directive, this module's go.sum (so nothing new is
// fetched), the generated package and the driver.
func writeModule(dir, root string, files []gen.File, driver []byte) error {
	const pseudo = "v0.0.0-00010101000000-000000000000"
	goMod := fmt.Sprintf("module %s\n\ngo 1.26.0\n\nrequire github.com/mcpbind/mcpbind %s\n\nreplace github.com/mcpbind/mcpbind => %s\n",
		driverModule, pseudo, root)
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		return err
	}
	pkgDir := filepath.Join(dir, genPackage)
	if err := os.MkdirAll(pkgDir, 0o755); err != nil {
		return err
	}
	writes := map[string][]byte{
		filepath.Join(dir, "go.mod"):  []byte(goMod),
		filepath.Join(dir, "go.sum"):  sum,
		filepath.Join(dir, "main.go"): driver,
	}
	for _, f := range files {
		writes[filepath.Join(pkgDir, f.Name)] = f.Content
	}
	for path, data := range writes {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func writeJSON(path string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// goBuild builds the driver once: -mod=mod lets the go tool complete go.mod
// from the module cache; GOWORK=off keeps any workspace out.
func goBuild(ctx context.Context, dir, bin string) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -mod=mod"), "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("go build of the combined package in %s: %v\n%s", dir, err, out)
	}
	return nil
}

// runDriver runs the driver over every case, with the package's Unmarshal
// and Marshal, or with encoding/json's when std is set. Should it die on one
// (a stack overflow in generated code cannot be recovered), that case is
// recorded as a crash and the driver restarts after it.
func runDriver(t *testing.T, bin, casesFile string, n int, std bool) []outcome {
	t.Helper()
	outcomes := make([]outcome, n)
	next := 0
	for restarts := 0; next < n; restarts++ {
		if restarts > 50 {
			t.Fatalf("the driver crashed more than 50 times")
		}
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		args := []string{casesFile, strconv.Itoa(next)}
		if std {
			args = append(args, "std")
		}
		cmd := exec.CommandContext(ctx, bin, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var o outcome
			if err := json.Unmarshal(sc.Bytes(), &o); err != nil || o.Index != next {
				t.Fatalf("driver printed %q (expected the outcome of case %d): %v", sc.Text(), next, err)
			}
			outcomes[next] = o
			next++
		}
		err = cmd.Wait()
		cancel()
		if err == nil && next == n {
			break
		}
		if next >= n {
			t.Fatalf("driver: %v\n%s", err, stderr.Bytes())
		}
		if stderr.Len() > 0 && bytes.HasPrefix(stderr.Bytes(), []byte("no check for tool")) {
			t.Fatalf("driver: %s", stderr.Bytes())
		}
		outcomes[next] = outcome{Index: next, Stage: "crash", Err: fmt.Sprintf("%v: %s", err, firstLine(stderr.String()))}
		next++
	}
	return outcomes
}
