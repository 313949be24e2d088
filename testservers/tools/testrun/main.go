// Command testrun runs go test with -json and the given arguments, and
// prints what a reader of a CI log needs: the complete output of every test
// that failed or was skipped, the packages' own lines ("ok  pkg 1.2s",
// "FAIL pkg", build errors), and a closing summary. It fails (exit status 1)
// when go test fails and also when any test was skipped: a skipped test
// proves nothing, and this repository's tests fail, never skip, when a
// server or runtime they need is missing.
//
// Usage:
//
//	go run ./testservers/tools/testrun [go test flags and packages]
//
// for example `go run ./testservers/tools/testrun -count=1 ./...`. The output
// of passing tests is not printed (as with go test without -v).
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

func main() {
	os.Exit(run("", os.Args[1:], os.Stdout, os.Stderr))
}

// goTool returns the go command of the toolchain that built testrun (the
// one `go run` used), else the go on PATH.
func goTool() string {
	p := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	return "go"
}

// event is one line of go test -json (see go doc cmd/test2json), or of the
// build events it interleaves (go help buildjson: ImportPath and the
// actions build-output and build-fail).
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string
}

// testID names a test within its package.
type testID struct{ pkg, test string }

// report accumulates the stream of events.
type report struct {
	out      io.Writer
	pending  map[testID]*strings.Builder // output of tests still running
	passed   int
	failed   []testID
	skipped  []testID
	pkgFails []string
}

// run runs go test -json with args in dir ("": the current directory),
// writes the report to stdout and returns the exit status.
func run(dir string, args []string, stdout, stderr io.Writer) int {
	cmd := exec.Command(goTool(), append([]string{"test", "-json"}, args...)...)
	cmd.Dir = dir
	cmd.Stderr = stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(stderr, "testrun:", err)
		return 2
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(stderr, "testrun: starting go test:", err)
		return 2
	}
	r := &report{out: stdout, pending: map[testID]*strings.Builder{}}
	readErr := r.read(pipe)
	waitErr := cmd.Wait()
	r.flushPending()
	return r.close(readErr, waitErr)
}

// read consumes the JSON stream. A line that is not JSON is copied as it is.
func (r *report) read(in io.Reader) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			fmt.Fprintf(r.out, "%s\n", line)
			continue
		}
		r.handle(e)
	}
	return sc.Err()
}

func (r *report) handle(e event) {
	switch {
	case e.ImportPath != "": // a build event
		if e.Action == "build-output" {
			fmt.Fprint(r.out, e.Output)
		}
		return
	case e.Test == "": // the package's own events
		switch e.Action {
		case "output":
			if e.Output != "PASS\n" {
				fmt.Fprint(r.out, e.Output)
			}
		case "fail":
			r.pkgFails = append(r.pkgFails, e.Package)
			// Tests that never ended (a panic, a timeout) show what
			// they wrote.
			r.flushPackage(e.Package)
		}
		return
	}
	id := testID{e.Package, e.Test}
	switch e.Action {
	case "run":
		r.pending[id] = new(strings.Builder)
	case "output":
		b := r.pending[id]
		if b == nil {
			b = new(strings.Builder)
			r.pending[id] = b
		}
		b.WriteString(e.Output)
	case "pass":
		r.passed++
		delete(r.pending, id)
	case "fail":
		r.failed = append(r.failed, id)
		r.print(id)
	case "skip":
		r.skipped = append(r.skipped, id)
		r.print(id)
	}
}

// print writes the output of test id and forgets it.
func (r *report) print(id testID) {
	if b := r.pending[id]; b != nil {
		fmt.Fprint(r.out, b.String())
	}
	delete(r.pending, id)
}

// flushPackage prints the output of the tests of pkg that never ended.
func (r *report) flushPackage(pkg string) {
	var ids []testID
	for id := range r.pending {
		if id.pkg == pkg {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(a, b testID) int { return strings.Compare(a.test, b.test) })
	for _, id := range ids {
		fmt.Fprintf(r.out, "--- output of %s (%s), which did not finish:\n", id.test, id.pkg)
		r.print(id)
	}
}

// flushPending prints the output of every test that never ended.
func (r *report) flushPending() {
	var pkgs []string
	for id := range r.pending {
		if !slices.Contains(pkgs, id.pkg) {
			pkgs = append(pkgs, id.pkg)
		}
	}
	slices.Sort(pkgs)
	for _, p := range pkgs {
		r.flushPackage(p)
	}
}

// close writes the summary and returns the exit status.
func (r *report) close(readErr, waitErr error) int {
	fmt.Fprintf(r.out, "\ntestrun: %d passed, %d failed, %d skipped\n", r.passed, len(r.failed), len(r.skipped))
	status := 0
	if len(r.failed) > 0 {
		fmt.Fprintln(r.out, "testrun: failed:")
		for _, id := range r.failed {
			fmt.Fprintf(r.out, "\t%s %s\n", id.pkg, id.test)
		}
		status = 1
	}
	if len(r.skipped) > 0 {
		fmt.Fprintln(r.out, "testrun: skipped (a skipped test proves nothing: make it run, or fail with what is missing):")
		for _, id := range r.skipped {
			fmt.Fprintf(r.out, "\t%s %s\n", id.pkg, id.test)
		}
		status = 1
	}
	if len(r.pkgFails) > 0 {
		fmt.Fprintf(r.out, "testrun: %d package(s) failed: %s\n", len(r.pkgFails), strings.Join(r.pkgFails, " "))
		status = 1
	}
	if readErr != nil {
		fmt.Fprintln(r.out, "testrun: reading go test's output:", readErr)
		status = 1
	}
	var exit *exec.ExitError
	switch {
	case waitErr == nil:
	case errors.As(waitErr, &exit):
		status = 1
	default:
		fmt.Fprintln(r.out, "testrun: go test:", waitErr)
		status = 1
	}
	if status == 0 {
		fmt.Fprintln(r.out, "testrun: PASS")
	} else {
		fmt.Fprintln(r.out, "testrun: FAIL")
	}
	return status
}
