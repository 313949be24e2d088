package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// TestCallEscapesPeerText runs `mcpbind call` against testservers/hostileserver
// over stdio: a tool whose text result, a tool whose isError text, and a
// server whose start-up stderr hold ANSI escapes, CR, BEL, NUL and bidi
// controls. stdout and stderr show them escaped; --raw prints the result
// as sent. A secret the child printed to stderr before exiting is shown
// under "server stderr", not in the error line.
func TestCallEscapesPeerText(t *testing.T) {
	bin := testenv.Build(t, "./cmd/mcpbind")
	server := testenv.Build(t, "./testservers/hostileserver")
	const evil = "title\x1b]0;pwned\x07\x1b[2J\rover\x00\u202eevil\u2028end"
	const escaped = `title\u001b]0;pwned\u0007\u001b[2J\rover\u0000\u202eevil\u2028end`
	spec := func(v map[string]any) string {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(t.TempDir(), "spec.json")
		if err := os.WriteFile(f, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return "MCPBIND_HOSTILE_SPEC=" + f
	}
	tools := spec(map[string]any{"serverInfo": map[string]string{"name": "h", "version": "1"}, "tools": []map[string]any{
		{"name": "text", "behave": map[string]any{"text": evil + "\nsecond line"}},
		{"name": "fails", "behave": map[string]any{"errorText": evil}},
	}})
	noRaw := func(what, s string) {
		t.Helper()
		if strings.ContainsAny(s, "\x1b\x07\x00\r\u202e\u2028") {
			t.Errorf("%s holds control characters raw: %q", what, s)
		}
	}

	r := runBinary(t, bin, []string{tools}, "call", "text", "--", server)
	if r.code != 0 || r.stdout != escaped+"\nsecond line\n" {
		t.Errorf("call text: exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	noRaw("stdout", r.stdout)

	r = runBinary(t, bin, []string{tools}, "call", "--raw", "text", "--", server)
	if r.code != 0 || r.stdout != evil+"\nsecond line\n" {
		t.Errorf("call --raw text: exit %d, stdout %q", r.code, r.stdout)
	}

	r = runBinary(t, bin, []string{tools}, "call", "fails", "--", server)
	if r.code != exitServer || !strings.Contains(r.stderr, escaped) {
		t.Errorf("call fails: exit %d, stderr %q", r.code, r.stderr)
	}
	noRaw("stderr", r.stderr)

	crash := spec(map[string]any{"stderrAtStart": "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG\n" + evil + "\n", "exitAtStart": true})
	r = runBinary(t, bin, []string{crash}, "call", "text", "--", server)
	first, rest, _ := strings.Cut(r.stderr, "\n")
	if r.code != exitServer || strings.Contains(first, "AWS_SECRET") || !strings.Contains(rest, "server stderr") || !strings.Contains(rest, "AWS_SECRET_ACCESS_KEY") {
		t.Errorf("crash at start: exit %d, stderr %q", r.code, r.stderr)
	}
	noRaw("stderr", r.stderr)
}
