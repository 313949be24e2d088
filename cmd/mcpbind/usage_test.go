package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runInProcess runs the command line in this process with env as the
// environment.
func runInProcess(args []string, env map[string]string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	c := &cli{stdout: &out, stderr: &errb, lookupEnv: func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	}}
	code = run(context.Background(), args, c)
	return out.String(), errb.String(), code
}

// TestUsageErrors checks command-line mistakes: exit 2, a message saying
// what is wrong, nothing on stdout, no server started, and no header,
// token or environment value in the message.
func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	const secret = "s3cr3t-v4lue"
	env := map[string]string{"EMPTY_TOKEN": " ", "TOKEN": secret}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no server", []string{"export"}, "missing the server"},
		{"two arguments", []string{"export", "node", "server.js"}, "put its command after --, as in: mcpbind export -- node server.js"},
		{"not a URL", []string{"export", "server.js"}, `"server.js" is not an http or https URL`},
		{"ftp URL", []string{"export", "ftp://example.com/mcp"}, "is not an http or https URL"},
		{"unparsable URL with credentials", []string{"export", "http://user:" + secret + "@127.0.0.1:1/%zz?token=" + secret}, `"http://***@127.0.0.1:1/%zz?***" is not an http or https URL`},
		{"argument before --", []string{"export", "http://x/mcp", "--", "node"}, `unexpected argument "http://x/mcp" before --`},
		{"nothing after --", []string{"export", "--"}, "missing the server command after --"},
		{"header for stdio", []string{"export", "--header", "X-Key: " + secret, "--", "node"}, "--header, --bearer-env and --oauth-* apply to HTTP servers"},
		{"bearer for stdio", []string{"export", "--bearer-env", "TOKEN", "--", "node"}, "apply to HTTP servers"},
		{"env for HTTP", []string{"export", "--env", "K=" + secret, "http://127.0.0.1:1/mcp"}, "--env applies to stdio servers"},
		{"env without =", []string{"export", "--env", secret, "--", "node"}, "--env #1: want KEY=VALUE"},
		{"env without key", []string{"export", "--env", "=" + secret, "--", "node"}, "--env #1: want KEY=VALUE"},
		{"header without colon", []string{"export", "--header", "X-Key " + secret, "http://127.0.0.1:1/mcp"}, "--header #1: want 'NAME: VALUE'"},
		{"header bad name", []string{"export", "--header", "X Key: " + secret, "http://127.0.0.1:1/mcp"}, `invalid header name "X Key"`},
		{"header line break", []string{"export", "--header", "X-Ok: 1", "--header", "X-Key: a\r\nInjected: " + secret, "http://127.0.0.1:1/mcp"}, "--header #2: the value of header X-Key holds a line break"},
		{"bearer unset", []string{"export", "--bearer-env", "NO_SUCH_VAR", "http://127.0.0.1:1/mcp"}, "environment variable NO_SUCH_VAR is not set"},
		{"bearer empty", []string{"export", "--bearer-env", "EMPTY_TOKEN", "http://127.0.0.1:1/mcp"}, "environment variable EMPTY_TOKEN is empty"},
		{"bearer and Authorization", []string{"export", "--bearer-env", "TOKEN", "--header", "authorization: Basic " + secret, "http://127.0.0.1:1/mcp"}, "both set the Authorization header"},
		{"bad id", []string{"export", "--id", "../x", "--", "node"}, `--id: invalid server id "../x"`},
		{"negative timeout", []string{"export", "--timeout", "-1s", "--", "node"}, "--timeout must not be negative"},
		{"bad timeout", []string{"export", "--timeout", "soon", "--", "node"}, `invalid argument "soon" for "--timeout"`},
		{"output is a directory", []string{"export", "-o", dir, "--", "node"}, "is a directory"},
		{"output folder missing", []string{"export", "-o", filepath.Join(dir, "no", "b.json"), "--", "node"}, "no such file or directory"},
		{"unknown flag", []string{"export", "--frobnicate", "--", "node"}, "unknown flag: --frobnicate"},
		{"unknown command", []string{"exprot"}, `unknown command "exprot"`},
		{"unknown protocol version", []string{"export", "--protocol-version", "1999-01-01", "--", "mcpbind-no-such-server-4711"}, `unknown protocol version "1999-01-01"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runInProcess(tc.args, env)
			if code != exitInput {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, exitInput, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout %q", stdout)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, stderr)
			}
			if strings.Contains(stderr, secret) {
				t.Errorf("stderr shows a secret value:\n%s", stderr)
			}
		})
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("files written: %v", ents)
	}
}

func TestHelpAndVersion(t *testing.T) {
	stdout, _, code := runInProcess([]string{"export", "--help"}, nil)
	if code != 0 || !strings.Contains(stdout, "-- COMMAND [ARG...] | URL") || !strings.Contains(stdout, "--bearer-env VAR") {
		t.Errorf("export --help: exit %d\n%s", code, stdout)
	}
	stdout, _, code = runInProcess([]string{"--version"}, nil)
	if code != 0 || !strings.HasPrefix(stdout, "mcpbind version ") {
		t.Errorf("--version: exit %d %q", code, stdout)
	}
	stdout, _, code = runInProcess([]string{"--help"}, nil)
	if code != 0 || !strings.Contains(stdout, "export") || !strings.Contains(stdout, "generate") {
		t.Errorf("--help: exit %d\n%s", code, stdout)
	}
}

func TestExitCode(t *testing.T) {
	if exitCode(nil) != exitOK || exitCode(withExit(exitBreaking, os.ErrClosed)) != exitBreaking ||
		exitCode(withExit(exitServer, os.ErrClosed)) != exitServer || exitCode(os.ErrClosed) != exitInput {
		t.Error("exit code mapping")
	}
}
