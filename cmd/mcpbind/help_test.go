package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/mcpbind/mcpbind/internal/digest"
)

// TestEveryCommandHasExamples walks the command tree: every command people
// run (not cobra's hidden ones, nor help) has an Examples block in --help.
func TestEveryCommandHasExamples(t *testing.T) {
	var walk func(cmd *cobra.Command)
	n := 0
	walk = func(cmd *cobra.Command) {
		if cmd.Hidden || cmd.Name() == "help" {
			return
		}
		n++
		stdout, _, code := runInProcess(append(strings.Fields(strings.TrimPrefix(cmd.CommandPath(), "mcpbind")), "--help"), nil)
		if code != 0 || !strings.Contains(stdout, "\nExamples:\n  ") {
			t.Errorf("%s --help has no Examples block (exit %d)", cmd.CommandPath(), code)
		}
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(&cli{}))
	if n < 12 {
		t.Errorf("walked %d commands; want the root, seven commands, completion and its four shells", n)
	}
}

// TestCompletion: `mcpbind completion SHELL` prints a script for each
// shell; bash's parses (bash -n).
func TestCompletion(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		stdout, stderr, code := runInProcess([]string{"completion", shell}, nil)
		if code != 0 || !strings.Contains(stdout, "mcpbind") {
			t.Errorf("completion %s: exit %d, %d bytes\n%s", shell, code, len(stdout), stderr)
		}
		if shell != "bash" {
			continue
		}
		bash, err := exec.LookPath("bash")
		if err != nil {
			t.Fatalf("this test needs bash: %v", err)
		}
		script := writeFile(t, t.TempDir(), "mcpbind.bash", stdout)
		if out, err := exec.Command(bash, "-n", script).CombinedOutput(); err != nil {
			t.Errorf("bash -n on the bash completion script: %v\n%s", err, out)
		}
	}
}

// TestVerboseFlag: -v means --verbose everywhere, before the command too;
// --version has no short form.
func TestVerboseFlag(t *testing.T) {
	path := writeFile(t, t.TempDir(), "b.json", `{"bundleVersion":1,"servers":[]}`)
	if _, stderr, code := runInProcess([]string{"-v", "diff", path, path}, nil); code != 0 {
		t.Errorf("mcpbind -v diff a b: exit %d\n%s", code, stderr)
	}
	if stdout, _, code := runInProcess([]string{"-v"}, nil); code != 0 || strings.Contains(stdout, "mcpbind version") {
		t.Errorf("mcpbind -v: exit %d, printed the version:\n%s", code, stdout)
	}
}

// TestDiffStaleFacts: a bundle edited by hand after a tool was removed,
// whose x-mcpbind still has facts about it, is compared with a warning.
func TestDiffStaleFacts(t *testing.T) {
	dir := t.TempDir()
	d := `"` + digest.Of(nil) + `"`
	server := func(tools, facts string) string {
		return `{"bundleVersion":1,"servers":[{"id":"s","serverInfo":{"name":"s"},"protocolVersion":"2025-11-25","transport":"stdio","tools":[` +
			tools + `],"x-mcpbind":{"tools":{` + facts + `}}}]}`
	}
	a := `{"name":"a","inputSchema":{"type":"object"}}`
	b := `{"name":"b","inputSchema":{"type":"object"}}`
	facts := `"a":{"digest":` + d + `},"b":{"digest":` + d + `}`
	old := writeFile(t, dir, "old.json", server(a+","+b, facts))
	edited := writeFile(t, dir, "new.json", server(a, facts))
	stdout, stderr, code := runInProcess([]string{"diff", old, edited}, nil)
	if code != exitBreaking || !strings.Contains(stdout, "s/b") || !strings.Contains(stderr, `warning: `+edited+`: /servers/0/x-mcpbind/tools/b: facts about tool "b"`) {
		t.Errorf("diff: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

// TestShowProgress: progress lines with -v, never with -q, and otherwise
// only when stderr is a terminal (a buffer or a pipe is not).
func TestShowProgress(t *testing.T) {
	c := &cli{stderr: &strings.Builder{}}
	for _, tc := range []struct {
		f    serverFlags
		want bool
	}{{serverFlags{}, false}, {serverFlags{verbose: true}, true}, {serverFlags{quiet: true}, false}} {
		if got := c.showProgress(&tc.f); got != tc.want {
			t.Errorf("verbose %v quiet %v: showProgress = %v", tc.f.verbose, tc.f.quiet, got)
		}
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if (&cli{stderr: w}).showProgress(&serverFlags{}) {
		t.Error("progress into a pipe")
	}
}
