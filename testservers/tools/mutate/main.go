// Command mutate is a small mutation tester for the rule files of packages
// whose whole test suite is too slow to run once per mutant (composition
// starts real servers): it makes one-token mutations in the functions of one
// file, runs a chosen set of that package's tests (or of -pkg, for a package
// tested through another) against each mutant with -count=1, and prints
// which mutants the tests killed.
//
// Usage (from the module root):
//
//	go run ./testservers/tools/mutate -file composition/registry.go -func 'CallTool' \
//	    -run 'TestRegistry' [-pkg ./composition] [-timeout 3m] [-list]
//
// The mutants are those of go-gremlins (github.com/go-gremlins/gremlins),
// which `make mutate` runs on the faster packages, plus one it lacks:
//   - CONDITIONALS_NEGATION: == and !=, < and >=, > and <= swapped;
//   - CONDITIONALS_BOUNDARY: < and <=, > and >= swapped;
//   - INVERT_LOGICAL: && and || swapped;
//   - REMOVE_NOT: !x becomes x;
//   - DROP_OPERAND: a && b (or a || b) becomes a, and becomes b — dropping
//     one half of a rule, as in "retry when not sent, or read-only, or
//     idempotent".
//
// Mutants are applied in a copy of the module's tracked files (git
// ls-files) in a temporary folder, with testservers/node_modules linked in,
// so the work tree is never changed. A mutant that does not compile is
// reported and not counted. A mutant whose tests time out counts as killed
// (the suite noticed a hang) and is reported as such.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// mutant is one change to the file: the bytes [start, end) become repl.
type mutant struct {
	kind       string
	pos        token.Position
	start, end int
	repl       string
}

// status is what the tests made of a mutant.
type status string

const (
	killed   status = "KILLED"
	lived    status = "LIVED"
	timedOut status = "TIMED OUT"
	notBuilt status = "NOT BUILT"
)

func main() {
	file := flag.String("file", "", "the Go file to mutate, relative to the module root (required)")
	funcs := flag.String("func", ".", "regexp: mutate only inside functions (or methods) whose name matches")
	run := flag.String("run", ".", "go test -run pattern of the tests to run against each mutant")
	pkg := flag.String("pkg", "", "the package whose tests run (default: the file's own, as ./DIR)")
	timeout := flag.Duration("timeout", 3*time.Minute, "go test -timeout for each mutant")
	list := flag.Bool("list", false, "list the mutants without running the tests")
	flag.Parse()
	if *file == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: mutate -file PATH [-func REGEXP] [-run PATTERN] [-pkg ./DIR] [-timeout D] [-list]")
		os.Exit(2)
	}
	if *pkg == "" {
		*pkg = "./" + filepath.ToSlash(filepath.Dir(*file))
	}
	if err := mutate(*file, *funcs, *run, *pkg, *timeout, *list, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(1)
	}
}

func mutate(file, funcs, run, pkg string, timeout time.Duration, list bool, out io.Writer) error {
	match, err := regexp.Compile(funcs)
	if err != nil {
		return fmt.Errorf("-func: %w", err)
	}
	src, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	ms, err := mutants(file, src, match)
	if err != nil {
		return err
	}
	if list {
		for _, m := range ms {
			fmt.Fprintf(out, "%s:%d:%d %s → %q\n", file, m.pos.Line, m.pos.Column, m.kind, m.repl)
		}
		return nil
	}
	work, err := os.MkdirTemp("", "mutate-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	if err := copyModule(work); err != nil {
		return err
	}
	target := filepath.Join(work, file)
	counts := map[status]int{}
	for _, m := range ms {
		mutated := append(append(append([]byte{}, src[:m.start]...), m.repl...), src[m.end:]...)
		if err := os.WriteFile(target, mutated, 0o644); err != nil {
			return err
		}
		start := time.Now()
		st, detail := test(work, pkg, run, timeout)
		counts[st]++
		fmt.Fprintf(out, "%-9s %-21s %s:%d:%d → %q (%.1fs)%s\n", st, m.kind, file, m.pos.Line, m.pos.Column, m.repl, time.Since(start).Seconds(), detail)
	}
	if err := os.WriteFile(target, src, 0o644); err != nil {
		return err
	}
	k, l, t := counts[killed], counts[lived], counts[timedOut]
	rate := 0.0
	if k+l+t > 0 {
		rate = 100 * float64(k+t) / float64(k+l+t)
	}
	fmt.Fprintf(out, "%s (-func %q, -run %q, -pkg %s): %d mutants: %d killed, %d timed out, %d lived, %d not built; kill rate %.1f%%\n",
		file, funcs, run, pkg, len(ms), k, t, l, counts[notBuilt], rate)
	return nil
}

// test runs the tests of pkg in the module copy at work and classifies the
// outcome; detail names the failing top-level tests.
func test(work, pkg, run string, timeout time.Duration) (status, string) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout+time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "test", "-count=1", "-timeout", timeout.String(), "-run", run, pkg)
	cmd.Dir = work
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	outText := buf.String()
	switch {
	case err == nil:
		return lived, ""
	case strings.Contains(outText, "[build failed]") || strings.Contains(outText, "[setup failed]"):
		return notBuilt, ""
	case strings.Contains(outText, "panic: test timed out") || ctx.Err() != nil:
		return timedOut, ""
	}
	var failed []string
	for _, m := range regexp.MustCompile(`(?m)^--- FAIL: (\S+)`).FindAllStringSubmatch(outText, -1) {
		failed = append(failed, m[1])
	}
	if len(failed) == 0 {
		return killed, ""
	}
	return killed, " by " + strings.Join(failed, ", ")
}

// mutants lists the mutants of the functions of src whose name matches.
func mutants(name string, src []byte, match *regexp.Regexp) ([]mutant, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, 0)
	if err != nil {
		return nil, err
	}
	off := func(p token.Pos) int { return fset.Position(p).Offset }
	text := func(n ast.Node) string { return string(src[off(n.Pos()):off(n.End())]) }
	swap := map[token.Token][]struct {
		kind string
		to   token.Token
	}{
		token.EQL:  {{"CONDITIONALS_NEGATION", token.NEQ}},
		token.NEQ:  {{"CONDITIONALS_NEGATION", token.EQL}},
		token.LSS:  {{"CONDITIONALS_NEGATION", token.GEQ}, {"CONDITIONALS_BOUNDARY", token.LEQ}},
		token.GTR:  {{"CONDITIONALS_NEGATION", token.LEQ}, {"CONDITIONALS_BOUNDARY", token.GEQ}},
		token.LEQ:  {{"CONDITIONALS_NEGATION", token.GTR}, {"CONDITIONALS_BOUNDARY", token.LSS}},
		token.GEQ:  {{"CONDITIONALS_NEGATION", token.LSS}, {"CONDITIONALS_BOUNDARY", token.GTR}},
		token.LAND: {{"INVERT_LOGICAL", token.LOR}},
		token.LOR:  {{"INVERT_LOGICAL", token.LAND}},
	}
	var ms []mutant
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil || !match.MatchString(fd.Name.Name) {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			switch e := n.(type) {
			case *ast.BinaryExpr:
				at := off(e.OpPos)
				for _, s := range swap[e.Op] {
					ms = append(ms, mutant{kind: s.kind, pos: fset.Position(e.OpPos), start: at, end: at + len(e.Op.String()), repl: s.to.String()})
				}
				if e.Op == token.LAND || e.Op == token.LOR {
					for _, keep := range []ast.Expr{e.X, e.Y} {
						ms = append(ms, mutant{kind: "DROP_OPERAND", pos: fset.Position(e.Pos()), start: off(e.Pos()), end: off(e.End()), repl: text(keep)})
					}
				}
			case *ast.UnaryExpr:
				if e.Op == token.NOT {
					ms = append(ms, mutant{kind: "REMOVE_NOT", pos: fset.Position(e.Pos()), start: off(e.Pos()), end: off(e.End()), repl: text(e.X)})
				}
			}
			return true
		})
	}
	if len(ms) == 0 {
		return nil, errors.New("no mutants: no function matches -func, or they hold no condition")
	}
	return ms, nil
}

// copyModule copies the module's tracked files into work and links the
// npm test servers' node_modules, which the tests start.
func copyModule(work string) error {
	files, err := exec.Command("git", "ls-files", "-z").Output()
	if err != nil {
		return fmt.Errorf("git ls-files (run mutate from the module root): %w", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(files), "\x00"), "\x00") {
		data, err := os.ReadFile(name)
		if errors.Is(err, os.ErrNotExist) {
			continue // deleted in the work tree
		}
		if err != nil {
			return err
		}
		dst := filepath.Join(work, name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return err
		}
	}
	modules, err := filepath.Abs(filepath.Join("testservers", "node_modules"))
	if err != nil {
		return err
	}
	if _, err := os.Stat(modules); err != nil {
		return fmt.Errorf("the npm test servers are not installed (run: npm ci --prefix testservers): %w", err)
	}
	return os.Symlink(modules, filepath.Join(work, "testservers", "node_modules"))
}
