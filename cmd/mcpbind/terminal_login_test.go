package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/mcpbind/mcpbind/internal/tokenstore"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// TestExportLoginOnTerminal runs the built `mcpbind export` as a person
// would, on a terminal and without --login, against the authorization
// server of the conformance suite's auth/metadata-default scenario: the
// server's first 401 must start the authorization-code flow because stdin
// and stderr are a terminal (a pseudo-terminal, github.com/creack/pty),
// and the export must succeed on the first try. The suite runs in its
// interactive mode (`conformance client --scenario S` without --command),
// which starts the scenario's servers, prints their URL and writes the
// scenario's checks when it gets SIGTERM; so one scenario server sees
// three mcpbind runs, in this order:
//
//  1. export without a terminal (stdin /dev/null, stderr a pipe), no
//     login kept: fails with the `mcpbind login URL` to run, writes no
//     bundle, opens no browser;
//  2. export on a terminal, $BROWSER = testservers/test-browser.cjs, which
//     follows the authorization server's redirect to mcpbind's loopback
//     callback: succeeds, writes the bundle, opens the browser once;
//  3. export on a terminal again, $BROWSER = a script that records its
//     call and stops mcpbind: the kept login is used, no browser opens.
//
// Then every check of the scenario must pass, the authorization server
// must have seen one authorization and one token request, and no secret of the
// scenario may appear in the terminal's output, the first run's stderr or
// the bundle; the kept login file is 0600.
func TestExportLoginOnTerminal(t *testing.T) {
	root, node, suite := conformanceSuite(t)
	bin := testenv.Build(t, "./cmd/mcpbind")
	home := t.TempDir()
	out := t.TempDir()
	const scenario = "auth/metadata-default"

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	serverURL, stop := startScenarioServer(t, ctx, root, node, suite, scenario, out)

	env := append(os.Environ(),
		tokenstore.EnvStore+"=file",
		"XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"HOME="+home)
	browser := "BROWSER=" + node + " " + filepath.Join(root, "testservers", "test-browser.cjs")
	bundle := filepath.Join(home, "bundle.json")
	var shown [][]byte // everything mcpbind wrote, for the secret check

	// 1. Without a terminal: no flow, the command to run instead.
	noTTY := exec.CommandContext(ctx, bin, "export", "-o", bundle, serverURL)
	noTTY.Env = append(env, browser)
	var stdout, stderr bytes.Buffer
	noTTY.Stdout, noTTY.Stderr = &stdout, &stderr
	if err := noTTY.Run(); err == nil {
		t.Errorf("export without a terminal and without a kept login succeeded; stderr:\n%s", &stderr)
	}
	shown = append(shown, stdout.Bytes(), stderr.Bytes())
	if want := "needs an OAuth login (no stored login): run `mcpbind login " + serverURL + "`"; !strings.Contains(stderr.String(), want) {
		t.Errorf("export without a terminal did not say %q; stderr:\n%s", want, &stderr)
	}
	if strings.Contains(stderr.String(), "opening a browser") {
		t.Errorf("export without a terminal opened a browser; stderr:\n%s", &stderr)
	}
	if _, err := os.Stat(bundle); err == nil {
		t.Errorf("export without a terminal wrote %s", bundle)
	}

	// 2. On a terminal, first try: the flow runs, the bundle is written.
	first, err := runOnTerminal(ctx, append(env, browser), bin, "export", "-o", bundle, serverURL)
	shown = append(shown, first)
	if err != nil {
		t.Fatalf("export on a terminal, first try: %v; terminal:\n%s", err, first)
	}
	if n := strings.Count(string(first), "opening a browser to log in"); n != 1 {
		t.Errorf("export on a terminal opened the browser %d times, want once; terminal:\n%s", n, first)
	}
	data, err := os.ReadFile(bundle)
	if err != nil {
		t.Fatalf("export on a terminal succeeded but wrote no bundle: %v; terminal:\n%s", err, first)
	}
	shown = append(shown, data)
	if !bytes.Contains(data, []byte(`"test-tool"`)) {
		t.Errorf("the bundle has no tool test-tool of the scenario's server:\n%s", data)
	}

	// 3. On a terminal again: the kept login is used, no browser.
	opened := filepath.Join(home, "browser-opened")
	recorder := filepath.Join(home, "recording-browser")
	// The script records the URL and stops its parent, mcpbind, so that a
	// second authorization fails at once instead of waiting for a callback.
	script := "#!/bin/sh\nprintf '%s\\n' \"$1\" >> " + shellQuote(opened) + "\nkill $PPID\nexit 1\n"
	if err := os.WriteFile(recorder, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(bundle); err != nil {
		t.Fatal(err)
	}
	second, err := runOnTerminal(ctx, append(env, "BROWSER="+recorder), bin, "export", "-o", bundle, serverURL)
	shown = append(shown, second)
	if rec, rerr := os.ReadFile(opened); rerr == nil {
		t.Errorf("the second export on a terminal opened the browser (the login was not kept): %s", rec)
	}
	if err != nil {
		t.Errorf("the second export on a terminal: %v; terminal:\n%s", err, second)
	} else if _, err := os.Stat(bundle); err != nil {
		t.Errorf("the second export on a terminal wrote no bundle: %v", err)
	}

	checks := stop()
	passed, failed := 0, 0
	ids := map[string]int{}
	for _, c := range checks {
		ids[c.ID]++
		switch c.Status {
		case "SUCCESS":
			passed++
		case "FAILURE", "WARNING":
			failed++
			t.Errorf("check %s: %s: %s %s", c.ID, c.Status, c.Description, c.ErrorMessage)
		}
	}
	if passed == 0 {
		t.Errorf("no check of %s passed", scenario)
	}
	// One authorization for the three runs: the first had no terminal, the
	// third used the kept login.
	for _, id := range []string{"authorization-request", "token-request"} {
		if ids[id] != 1 {
			t.Errorf("the scenario's server saw %d %s, want 1", ids[id], id)
		}
	}
	for _, b := range shown {
		for _, s := range conformanceSecrets {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("mcpbind showed the secret %q (on the terminal, stderr or in the bundle)", s)
			}
		}
	}
	checkLoginFiles(t, filepath.Join(home, "config", "mcpbind", "logins"))
	t.Logf("%s on a terminal: %d/%d checks passed", scenario, passed, passed+failed)
}

// conformanceSuite returns the module root, the node binary and the
// conformance suite's entry point, failing the test with what to install
// when node or the npm package is missing.
func conformanceSuite(t *testing.T) (root, node, suite string) {
	t.Helper()
	root = testenv.ModuleRoot(t)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("the MCP conformance suite needs node, which is missing from PATH: install Node.js 20 or later, then run `npm ci --prefix testservers` (.ci/run does it)")
	}
	suite = filepath.Join(root, "testservers", "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	if _, err := os.Stat(suite); err != nil {
		t.Fatalf("@modelcontextprotocol/conformance is missing (%v): run `npm ci --prefix testservers` (.ci/run does it)", err)
	}
	return root, node, suite
}

// startScenarioServer starts the servers of one client scenario of the
// conformance suite in its interactive mode and returns the URL it
// announces. stop sends SIGTERM, on which the suite writes the scenario's
// checks into out and exits, and returns those checks.
func startScenarioServer(t *testing.T, ctx context.Context, root, node, suite, scenario, out string) (url string, stop func() []check) {
	t.Helper()
	cmd := exec.CommandContext(ctx, node,
		"--require", filepath.Join(root, "testservers", "globsync-polyfill.cjs"),
		"--require", filepath.Join(root, "testservers", "conformance-loopback.cjs"),
		suite, "client", "--scenario", scenario, "-o", out)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var seen bytes.Buffer
	lines := bufio.NewScanner(io.TeeReader(pipe, &seen))
	for url == "" && lines.Scan() {
		if u, ok := strings.CutPrefix(lines.Text(), "Server URL: "); ok {
			url = u
		}
	}
	if url == "" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("the conformance suite announced no server URL for %s; stdout:\n%s\nstderr:\n%s", scenario, &seen, &stderr)
	}
	drained := make(chan struct{})
	go func() {
		_, _ = io.Copy(&seen, pipe)
		close(drained)
	}()
	stopped := false
	stop = func() []check {
		t.Helper()
		stopped = true
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatalf("stopping the conformance suite: %v", err)
		}
		<-drained
		if err := cmd.Wait(); err != nil {
			t.Fatalf("the conformance suite (%s) ended with %v; stdout:\n%s\nstderr:\n%s", scenario, err, &seen, &stderr)
		}
		return readChecks(t, out)
	}
	t.Cleanup(func() {
		if !stopped {
			_ = cmd.Process.Kill()
			<-drained
			_ = cmd.Wait()
		}
	})
	return url, stop
}

// runOnTerminal runs bin with args on a new pseudo-terminal (its stdin,
// stdout and stderr, and its controlling terminal) and returns what it
// wrote there once it and every process holding the terminal (a browser
// it started) are done.
func runOnTerminal(ctx context.Context, env []string, bin string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	tty, err := pty.Start(cmd)
	if err != nil {
		return nil, err
	}
	defer tty.Close()
	var shown bytes.Buffer
	copied := make(chan error, 1)
	go func() {
		_, err := io.Copy(&shown, tty)
		copied <- err
	}()
	werr := cmd.Wait()
	// Reading the terminal ends with EIO once no process holds it.
	if err := <-copied; err != nil && !errors.Is(err, syscall.EIO) {
		return shown.Bytes(), err
	}
	return shown.Bytes(), werr
}
