package serverconf

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestExpand(t *testing.T) {
	env := map[string]string{"A": "1", "B_2": "two"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	for in, want := range map[string]string{
		"":               "",
		"plain":          "plain",
		"${A}":           "1",
		"x${A}y${B_2}z":  "x1ytwoz",
		"$$":             "$",
		"$${A}":          "${A}",
		"$A $ end$":      "$A $ end$",
		"cost: $5":       "cost: $5",
		"${A}${A}$$${A}": "11$1",
	} {
		got, err := expand(in, lookup)
		if err != nil || got != want {
			t.Errorf("expand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"${":        "unterminated",
		"${A":       "unterminated",
		"${}":       `invalid environment variable name ""`,
		"${A-B}":    `invalid environment variable name "A-B"`,
		"${UNSET_}": "environment variable UNSET_ is not set",
	} {
		if _, err := expand(in, lookup); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("expand(%q): %v, want %q", in, err, want)
		}
	}
}

func TestParse(t *testing.T) {
	const src = `# servers mcpbind exports
x-defaults: &defaults
  timeout: 1m
  protocolVersion: "2025-06-18"
x-node: &node node

servers:
  sqlite:
    command: [./sqlite-explorer, --dir, "${DATA_DIR}"]
    env:
      LOG_LEVEL: debug
      API_KEY: ${SQLITE_KEY}
      PORT: 8080
    cwd: examples
  everything:
    <<: *defaults
    timeout: 45s          # overrides the merged 1m
    command: *node
    args: [server.js, stdio]
  remote:
    url: https://example.com/mcp?tenant=$${literal}
    headers:
      Authorization: Bearer ${API_TOKEN}
      X-Trace: "on"
    protocolVersion: 2025-11-25
`
	cfg, err := Parse([]byte(src), "conf/servers.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range cfg.Servers {
		ids = append(ids, s.ID)
	}
	if !reflect.DeepEqual(ids, []string{"everything", "remote", "sqlite"}) {
		t.Fatalf("ids %v (want sorted)", ids)
	}
	ev, remote, sq := cfg.Servers[0], cfg.Servers[1], cfg.Servers[2]

	if !reflect.DeepEqual(sq.Command, []string{"./sqlite-explorer", "--dir", "${DATA_DIR}"}) {
		t.Errorf("sqlite command %q", sq.Command)
	}
	wantEnv := []KeyValue{{"LOG_LEVEL", "debug"}, {"API_KEY", "${SQLITE_KEY}"}, {"PORT", "8080"}}
	if !reflect.DeepEqual(sq.Env, wantEnv) {
		t.Errorf("sqlite env %q", sq.Env)
	}
	if sq.Dir != "examples" || sq.URL != "" || sq.Line != 8 || sq.Column != 3 {
		t.Errorf("sqlite dir %q url %q at %d:%d", sq.Dir, sq.URL, sq.Line, sq.Column)
	}

	if !reflect.DeepEqual(ev.Command, []string{"node", "server.js", "stdio"}) {
		t.Errorf("everything command %q", ev.Command)
	}
	if ev.Timeout != 45*time.Second || ev.ProtocolVersion != "2025-06-18" {
		t.Errorf("everything timeout %s protocol %q (merge key)", ev.Timeout, ev.ProtocolVersion)
	}

	if remote.URL != "https://example.com/mcp?tenant=$${literal}" || remote.ProtocolVersion != "2025-11-25" || remote.Command != nil {
		t.Errorf("remote %+v", remote)
	}
	if !reflect.DeepEqual(remote.Headers, []KeyValue{{"Authorization", "Bearer ${API_TOKEN}"}, {"X-Trace", "on"}}) {
		t.Errorf("remote headers %q", remote.Headers)
	}
}

// TestParseAuth reads both spellings of "auth: oauth".
func TestParseAuth(t *testing.T) {
	const src = `servers:
  short:
    url: https://a.example.com/mcp
    auth: oauth
  long:
    url: https://b.example.com/mcp
    auth: {oauth: {clientId: my-client, scopes: [read, "write:all"]}}
  bare:
    url: https://c.example.com/mcp
    auth:
      oauth:
  none:
    url: https://d.example.com/mcp
`
	cfg, err := Parse([]byte(src), "servers.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*OAuth{}
	for _, s := range cfg.Servers {
		got[s.ID] = s.OAuth
	}
	want := map[string]*OAuth{
		"short": {}, "long": {ClientID: "my-client", Scopes: []string{"read", "write:all"}}, "bare": {}, "none": nil,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("OAuth = %+v, want %+v", got, want)
	}
	r, err := cfg.Servers[1].Resolve(func(string) (string, bool) { return "", false }) // "long"
	if err != nil || !reflect.DeepEqual(r.OAuth, want["long"]) {
		t.Errorf("Resolve: %+v, %v", r, err)
	}
}

// TestParseErrors checks that every mistake is reported with the file,
// line and column, as a *Error.
func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, src string
		want      string // the message, after "servers.yaml:"
	}{
		{"unclosed flow list", "servers:\n  a:\n    command: [x, y\n", "3:14: sequence end token ']' not found"},
		{"unterminated quote", "servers:\n  a:\n    command: \"x\n", "could not find end character of double-quoted text"},
		{"duplicate key", "servers:\n  a:\n    url: http://x/mcp\n    url: http://y/mcp\n", "4:5: mapping key \"url\" already defined at [3:5]"},
		{"tab indentation", "servers:\n\ta:\n", "2:1: found character"},
		{"empty file", "", "1:1: empty servers config"},
		{"comments only", "# nothing\n", "1:1: empty servers config"},
		{"no servers key", "server:\n  a: {url: http://x/mcp}\n", `1:1: unknown top-level key "server"`},
		{"servers not a mapping", "servers: [a, b]\n", "1:10: servers: want a mapping (key: value lines), got a list"},
		{"no servers", "servers: {}\n", "1:10: servers is empty"},
		{"bad id", "servers:\n  ../x: {url: http://x/mcp}\n", `2:3: server id: invalid server id "../x"`},
		{"unknown key", "servers:\n  a:\n    url: http://x/mcp\n    header: {A: b}\n", `4:5: server "a": unknown key "header"`},
		{"auth for stdio", "servers:\n  a:\n    command: x\n    auth: oauth\n", `4:5: server "a": auth applies to HTTP servers`},
		{"auth unknown", "servers:\n  a:\n    url: http://x/mcp\n    auth: basic\n", `4:11: server "a": auth: unknown "basic"`},
		{"auth key", "servers:\n  a:\n    url: http://x/mcp\n    auth: {oauth: {client: x}}\n", `4:20: server "a": auth.oauth: unknown key "client"`},
		{"auth scope", "servers:\n  a:\n    url: http://x/mcp\n    auth: {oauth: {scopes: [\"a b\"]}}\n", `server "a": auth.oauth.scopes[0]: "a b" is not a scope token`},
		{"auth and header", "servers:\n  a:\n    url: http://x/mcp\n    headers: {Authorization: x}\n    auth: oauth\n", `5:5: server "a": auth: oauth and an Authorization header both authorize`},
		{"both", "servers:\n  a:\n    command: x\n    url: http://x/mcp\n", `4:5: server "a": both command and url`},
		{"neither", "servers:\n  a:\n    timeout: 1s\n", `2:3: server "a": neither command nor url`},
		{"args for HTTP", "servers:\n  a:\n    url: http://x/mcp\n    args: [a]\n", `4:5: server "a": args applies to stdio servers`},
		{"headers for stdio", "servers:\n  a:\n    command: x\n    headers: {A: b}\n", `4:5: server "a": headers applies to HTTP servers`},
		{"empty command", "servers:\n  a:\n    command: []\n", `3:14: server "a": command is empty`},
		{"command a mapping", "servers:\n  a:\n    command: {x: 1}\n", `3:14: server "a": command: want a list of strings, got a mapping`},
		{"args item a list", "servers:\n  a:\n    command: x\n    args: [a, [b]]\n", `4:15: server "a": args[1]: want a string, got a list`},
		{"env a list", "servers:\n  a:\n    command: x\n    env: [A=1]\n", `4:10: server "a": env: want a mapping`},
		{"bad URL", "servers:\n  a:\n    url: ftp://x/mcp\n", `3:10: server "a": url: not an http or https URL`},
		{"bad header name", "servers:\n  a:\n    url: http://x/mcp\n    headers: {\"X Key\": v}\n", `4:14: server "a": headers: invalid header name "X Key"`},
		{"bad protocol version", "servers:\n  a:\n    command: x\n    protocolVersion: 1999-01-01\n", `4:22: server "a": protocolVersion: unknown protocol version "1999-01-01"`},
		{"bad timeout", "servers:\n  a:\n    command: x\n    timeout: 30\n", `4:14: server "a": timeout: want a duration such as 30s or 2m, got "30"`},
		{"unterminated reference", "servers:\n  a:\n    url: http://x/mcp\n    headers:\n      Authorization: Bearer ${TOKEN\n", `5:22: server "a": headers.Authorization: unterminated ${…} reference`},
		{"bad variable name", "servers:\n  a:\n    command: [x, \"${1X}\"]\n", `3:18: server "a": command[1]: invalid environment variable name "1X"`},
		{"unknown alias", "servers:\n  a:\n    command: *nope\n", `3:14: server "a": alias *nope names no anchor`},
		{"two documents", "servers:\n  a: {command: x}\n---\nservers:\n  b: {command: y}\n", "4:8: more than one YAML document"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.src), "servers.yaml")
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("got %v (%T), want a *Error", err, err)
			}
			if !strings.HasPrefix(err.Error(), "servers.yaml:") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got  %s\nwant servers.yaml:…%s…", err, tc.want)
			}
			if ce.Line == 0 || ce.Column == 0 {
				t.Errorf("no line and column: %+v", ce)
			}
		})
	}
}

// TestResolve checks the plain data a server resolves to: expanded command,
// env, headers, the working directory against the file's folder, and every
// value that messages must hide.
func TestResolve(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "work"), 0o755); err != nil {
		t.Fatal(err)
	}
	const src = `servers:
  local:
    command: ["${BIN_DIR}/server", --name, "a$$b"]
    env: {TOKEN: "${SECRET_TOKEN}", PLAIN: plain-value-1}
    cwd: work
    protocolVersion: "2025-06-18"
  remote:
    url: http://${HOST}/mcp
    headers: {Authorization: " Bearer ${SECRET_TOKEN} "}
    timeout: 2s
`
	cfg, err := Parse([]byte(src), filepath.Join(dir, "servers.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"BIN_DIR": "/opt/bin", "SECRET_TOKEN": "tok-123456789", "HOST": "127.0.0.1:9"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	local, err := cfg.Servers[0].Resolve(lookup)
	if err != nil {
		t.Fatal(err)
	}
	want := &Resolved{
		ID:              "local",
		Command:         []string{"/opt/bin/server", "--name", "a$b"},
		Env:             []string{"TOKEN=tok-123456789", "PLAIN=plain-value-1"},
		Dir:             filepath.Join(dir, "work"),
		ProtocolVersion: "2025-06-18",
		Secrets:         []string{"/opt/bin", "tok-123456789", "tok-123456789", "plain-value-1"},
	}
	if !reflect.DeepEqual(local, want) {
		t.Errorf("local:\n got %+v\nwant %+v", local, want)
	}
	remote, err := cfg.Servers[1].Resolve(lookup)
	if err != nil {
		t.Fatal(err)
	}
	want = &Resolved{
		ID:      "remote",
		URL:     "http://127.0.0.1:9/mcp",
		Headers: []KeyValue{{Key: "Authorization", Value: "Bearer tok-123456789"}},
		Timeout: 2 * time.Second,
		Secrets: []string{"127.0.0.1:9", "tok-123456789", "Bearer tok-123456789"},
	}
	if !reflect.DeepEqual(remote, want) {
		t.Errorf("remote:\n got %+v\nwant %+v", remote, want)
	}
}
