package main

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpbind/mcpbind/internal/tokenstore"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// TestConformance runs the client scenarios of @modelcontextprotocol/
// conformance (npm, pinned in testservers/package.json) with `mcpbind call`
// as the client under test. The suite's test servers listen on 127.0.0.1
// (testservers/conformance-loopback.cjs); on Node.js 20 the suite needs
// fs.globSync from testservers/globsync-polyfill.cjs. A missing node or
// package fails the test.
func TestConformance(t *testing.T) {
	root, node, suite := conformanceSuite(t)
	bin := testenv.Build(t, "./cmd/mcpbind")

	// scenarios are the client scenarios of the MCP conformance suite
	// that `mcpbind call` must pass, with the call that each one's test server
	// expects. The suite appends the server's URL to the command.
	//
	// Every scenario runs with default negotiation. tools_call's server is
	// built on the TypeScript SDK, which refuses server/discover; the
	// servers of initialize and sse-retry answer every unknown method,
	// server/discover among them, with an empty result, which composition
	// does not take for a 2026-07-28 server (no supportedVersions), so it
	// falls back to initialize as a legacy client must.
	//
	// The auth/ scenarios (MCP authorization: 2025-11-25, the 2025-03-26
	// back-compat ones, and the client-credentials extensions) run mcpbind
	// through testservers/conformance-client.cjs, which turns the
	// scenario's credentials (MCP_CONFORMANCE_CONTEXT) into flags naming
	// environment variables. The authorization-code scenarios give --login,
	// so that the flow runs without a terminal (TestExportLoginOnTerminal
	// runs it on a pseudo-terminal without --login), and $BROWSER is
	// testservers/test-browser.cjs, which follows the authorization
	// server's redirect to mcpbind's loopback callback. Logins are kept in
	// the file store of a temporary configuration directory. In every case
	// no secret of the scenario (tokens, client secrets, the private key,
	// the authorization code) may appear in mcpbind's stdout or stderr, or
	// in the bundle of the export scenario. draft marks the scenarios whose
	// failures are logged, not errors.
	//
	// needsLogin scenarios run `mcpbind call` without --login and without a
	// terminal: it must fail, saying which `mcpbind login URL` to run. A
	// "login+call" command runs `mcpbind login URL`, then `mcpbind call`
	// without --login, which must use the kept login: a second
	// authorization would fail for want of a terminal. A "no-browser"
	// command runs `mcpbind call --no-browser`, and the wrapper opens the
	// URL that mcpbind prints (with BROWSER unset for mcpbind, so that only
	// the printed URL can complete the flow).
	scenarios := []struct {
		name       string
		call       []string
		draft      bool
		needsLogin bool
	}{
		{name: "initialize", call: []string{"--list"}},
		{name: "tools_call", call: []string{"add_numbers", "--args", `{"a":2,"b":3}`}},
		{name: "sse-retry", call: []string{"test_reconnection"}},
		{name: "auth/metadata-default", call: []string{"export", "--login", "-o", "BUNDLE"}},
		{name: "auth/metadata-var1", call: []string{"--login", "--list"}},
		{name: "auth/metadata-var1", call: []string{"--list"}, needsLogin: true},
		{name: "auth/scope-from-www-authenticate", call: []string{"login+call", "--list"}},
		{name: "auth/metadata-var2", call: []string{"--login", "--list"}},
		{name: "auth/metadata-var2", call: []string{"no-browser", "--login", "--list"}},
		{name: "auth/metadata-var3", call: []string{"--login", "--list"}},
		{name: "auth/basic-cimd", call: []string{"--login", "--oauth-client-metadata-url", "https://conformance-test.local/client-metadata.json", "--list"}},
		{name: "auth/scope-from-www-authenticate", call: []string{"--login", "--list"}},
		{name: "auth/scope-from-scopes-supported", call: []string{"--login", "--list"}},
		{name: "auth/scope-omitted-when-undefined", call: []string{"--login", "--list"}},
		{name: "auth/scope-step-up", call: []string{"--login", "test-tool"}},
		{name: "auth/scope-retry-limit", call: []string{"--login", "test-tool"}},
		{name: "auth/token-endpoint-auth-basic", call: []string{"--login", "--list"}},
		{name: "auth/token-endpoint-auth-post", call: []string{"--login", "--list"}},
		{name: "auth/token-endpoint-auth-none", call: []string{"--login", "--list"}},
		{name: "auth/pre-registration", call: []string{"--login", "--list"}},
		{name: "auth/2025-03-26-oauth-metadata-backcompat", call: []string{"--login", "--list"}},
		{name: "auth/2025-03-26-oauth-endpoint-fallback", call: []string{"--login", "--list"}},
		{name: "auth/client-credentials-basic", call: []string{"--list"}},
		{name: "auth/client-credentials-jwt", call: []string{"--list"}},
		{name: "auth/resource-mismatch", call: []string{"--login", "--list"}, draft: true},
		{name: "auth/offline-access-scope", call: []string{"--login", "--list"}, draft: true},
		{name: "auth/offline-access-not-supported", call: []string{"--login", "--list"}, draft: true},
	}

	for _, sc := range scenarios {
		label := sc.name
		switch {
		case sc.needsLogin:
			label += "/without a terminal"
		case sc.call[0] == "login+call":
			label += "/login then call"
		case sc.call[0] == "no-browser":
			label += "/no-browser"
		}
		t.Run(label, func(t *testing.T) {
			out := t.TempDir()
			home := t.TempDir()
			bundlePath := filepath.Join(home, "bundle.json")
			// The suite splits the command at spaces and runs it with a
			// shell, so each word is quoted for the shell.
			words := []string{shellQuote(bin), "call"}
			auth := strings.HasPrefix(sc.name, "auth/")
			if auth {
				words = []string{shellQuote(node), shellQuote(filepath.Join(root, "testservers", "conformance-client.cjs")), shellQuote(bin)}
				if sc.call[0] != "export" && sc.call[0] != "login+call" && sc.call[0] != "no-browser" {
					words = append(words, "call")
				}
			}
			for _, a := range sc.call {
				if a == "BUNDLE" {
					a = bundlePath
				}
				words = append(words, shellQuote(a))
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node,
				"--require", filepath.Join(root, "testservers", "globsync-polyfill.cjs"),
				"--require", filepath.Join(root, "testservers", "conformance-loopback.cjs"),
				suite, "client",
				"--command", strings.Join(words, " "),
				"--scenario", sc.name,
				"--timeout", "60000",
				"-o", out)
			cmd.Dir = root
			cmd.Env = append(os.Environ(),
				"BROWSER="+node+" "+filepath.Join(root, "testservers", "test-browser.cjs"),
				tokenstore.EnvStore+"=file",
				"XDG_CONFIG_HOME="+filepath.Join(home, "config"),
				"HOME="+home)
			output, err := cmd.CombinedOutput()
			fail := t.Errorf
			if sc.draft || sc.needsLogin {
				fail = t.Logf
			}
			if sc.needsLogin {
				stderr := findFiles(out, "stderr.txt")
				if len(stderr) != 1 {
					t.Fatalf("want one stderr.txt under %s, found %v", out, stderr)
				}
				data, _ := os.ReadFile(stderr[0])
				if !strings.Contains(string(data), "needs an OAuth login (no stored login): run `mcpbind login http://localhost:") {
					t.Errorf("mcpbind call without a terminal did not say to log in; stderr:\n%s", data)
				}
			}
			if err != nil {
				fail("conformance client --scenario %s: %v", sc.name, err)
			}
			checks := readChecks(t, out)
			passed, failed := 0, 0
			for _, c := range checks {
				switch c.Status {
				case "SUCCESS":
					passed++
				case "FAILURE", "WARNING":
					failed++
					fail("check %s: %s: %s %s", c.ID, c.Status, c.Description, c.ErrorMessage)
				}
			}
			if passed == 0 && !sc.needsLogin {
				fail("no check passed")
			}
			if auth {
				checkNoSecrets(t, out, bundlePath, sc.call[0] == "export")
				checkLoginFiles(t, filepath.Join(home, "config", "mcpbind", "logins"))
			}
			t.Logf("%s: %d/%d checks passed", sc.name, passed, passed+failed)
			if t.Failed() || (sc.draft && failed > 0) {
				t.Logf("conformance output:\n%s", output)
			}
		})
	}
}

// conformanceSecrets are the secret values (or their fixed prefixes) that
// the suite's auth scenarios hand out: access tokens, client secrets, the
// authorization code, the private key.
var conformanceSecrets = []string{
	"test-token", "cc-token", "test-client-secret", "test-secret-", "conformance-test-secret",
	"pre-registered-secret", "test-auth-code", "PRIVATE KEY",
}

// checkNoSecrets fails when a secret of the scenario appears in mcpbind's
// stdout or stderr (as the suite kept them in dir) or in the bundle.
func checkNoSecrets(t *testing.T, dir, bundlePath string, wantBundle bool) {
	t.Helper()
	files := findFiles(dir, "stdout.txt", "stderr.txt")
	if len(files) != 2 {
		t.Fatalf("want stdout.txt and stderr.txt under %s, found %v", dir, files)
	}
	if wantBundle {
		files = append(files, bundlePath)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		for _, s := range conformanceSecrets {
			if strings.Contains(string(data), s) {
				t.Errorf("%s holds the secret %q", filepath.Base(f), s)
			}
		}
	}
}

// checkLoginFiles requires every kept login to be readable by the user
// only.
func checkLoginFiles(t *testing.T, dir string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			t.Error(err)
			continue
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("login file %s has mode %v, want 0600", filepath.Base(f), fi.Mode().Perm())
		}
	}
}

// check is one entry of the suite's checks.json.
type check struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	Description  string `json:"description"`
	ErrorMessage string `json:"errorMessage"`
}

// readChecks reads the checks.json the suite wrote into a folder of dir.
func readChecks(t *testing.T, dir string) []check {
	t.Helper()
	files := findFiles(dir, "checks.json")
	if len(files) != 1 {
		t.Fatalf("want one checks.json under %s, found %v", dir, files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var checks []check
	if err := json.Unmarshal(data, &checks); err != nil {
		t.Fatalf("%s: %v", files[0], err)
	}
	return checks
}

// findFiles lists the files under dir with one of the names (the suite
// writes its results into a folder named after the scenario, nested for
// "auth/..." names).
func findFiles(dir string, names ...string) []string {
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && slices.Contains(names, d.Name()) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
