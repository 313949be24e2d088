package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/spf13/pflag"

	"github.com/mcpbind/mcpbind/composition"
)

const flagSecret = "flag-s3cret-value"

func flagEnv(k string) (string, bool) {
	v, ok := map[string]string{
		"SECRET": "  " + flagSecret + "\n", "EMPTY": " ", "BROKEN": "a\nb",
	}[k]
	return v, ok
}

// parseAuthFlags parses args into a fresh flag set with the OAuth flags.
func parseAuthFlags(t *testing.T, args ...string) *authOptions {
	t.Helper()
	var o authOptions
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	addAuthFlags(fs, &o)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("parsing %q: %v", args, err)
	}
	return &o
}

func TestAuthFlagsMapping(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want *composition.OAuthClientCredentials
		err  string // substring of the usage error
	}{
		{name: "none", args: nil},
		{
			name: "all flags",
			args: []string{"--oauth-client-id", "my-client", "--oauth-client-secret-env", "SECRET",
				"--oauth-token-url", "https://auth.example.com/oauth/token", "--oauth-scope", "tools:read", "--oauth-scope", "tools:call admin tools:read"},
			want: &composition.OAuthClientCredentials{ClientID: "my-client", ClientSecret: flagSecret,
				TokenURL: "https://auth.example.com/oauth/token", Scopes: []string{"tools:read", "tools:call", "admin"}},
		},
		{
			name: "discovery, loopback http",
			args: []string{"--oauth-client-id=c", "--oauth-client-secret-env=SECRET"},
			want: &composition.OAuthClientCredentials{ClientID: "c", ClientSecret: flagSecret},
		},
		{
			name: "loopback http token URL",
			args: []string{"--oauth-client-id=c", "--oauth-client-secret-env=SECRET", "--oauth-token-url=http://127.0.0.1:9/token"},
			want: &composition.OAuthClientCredentials{ClientID: "c", ClientSecret: flagSecret, TokenURL: "http://127.0.0.1:9/token"},
		},
		{name: "no client id", args: []string{"--oauth-client-secret-env=SECRET"}, err: "need --oauth-client-id"},
		// Without a secret or key, the flags configure the OAuth login
		// (the authorization-code flow), not the client-credentials grant.
		{name: "scope alone: a login", args: []string{"--oauth-scope=a"}},
		{name: "client id alone: a login", args: []string{"--oauth-client-id=c"}},
		{name: "secret with --login: a login", args: []string{"--login", "--oauth-client-id=c", "--oauth-client-secret-env=SECRET"}},
		{name: "no client id for the key", args: []string{"--oauth-private-key-env=SECRET"}, err: "need --oauth-client-id"},
		{name: "secret and key", args: []string{"--oauth-client-id=c", "--oauth-client-secret-env=SECRET", "--oauth-private-key-env=SECRET"}, err: "not both"},
		{name: "unset key", args: []string{"--oauth-client-id=c", "--oauth-private-key-env=NOPE"}, err: "NOPE is not set"},
		{name: "unset secret", args: []string{"--oauth-client-id=c", "--oauth-client-secret-env=NOPE"}, err: "NOPE is not set"},
		{name: "empty secret", args: []string{"--oauth-client-id=c", "--oauth-client-secret-env=EMPTY"}, err: "EMPTY is empty"},
		{name: "broken secret", args: []string{"--oauth-client-id=c", "--oauth-client-secret-env=BROKEN"}, err: "line break"},
		{name: "not a URL", args: []string{"--oauth-client-id=c", "--oauth-client-secret-env=SECRET", "--oauth-token-url=auth.example.com"}, err: "not an http or https URL"},
		{name: "plain http", args: []string{"--oauth-client-id=c", "--oauth-client-secret-env=SECRET", "--oauth-token-url=http://auth.example.com/token"}, err: "must be an https URL"},
		{name: "empty scope", args: []string{"--oauth-client-id=c", "--oauth-client-secret-env=SECRET", "--oauth-scope=a", "--oauth-scope= "}, err: "--oauth-scope #2 is empty"},
		{name: "bad scope", args: []string{"--oauth-client-id=c", "--oauth-client-secret-env=SECRET", `--oauth-scope=a"b`}, err: "not a scope token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := parseAuthFlags(t, tc.args...)
			got, err := o.clientCredentials(flagEnv)
			opts, optsErr := o.compositionOptions(flagEnv)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				if exitCode(err) != exitInput || !isUsage(err) {
					t.Errorf("exit code %d, usage %v; want a usage error (exit 2)", exitCode(err), isUsage(err))
				}
				if optsErr == nil || opts != nil {
					t.Errorf("compositionOptions = %v, %v; want the error", opts, optsErr)
				}
				if strings.Contains(err.Error(), flagSecret) {
					t.Errorf("the error shows the secret: %v", err)
				}
				return
			}
			if err != nil || optsErr != nil {
				t.Fatalf("err = %v, %v", err, optsErr)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
			wantOpts := 0
			if tc.want != nil {
				wantOpts = 1
			}
			if len(opts) != wantOpts {
				t.Errorf("%d options, want %d", len(opts), wantOpts)
			}
			if tc.want != nil && !reflect.DeepEqual(o.secretValues(flagEnv), []string{flagSecret}) {
				t.Errorf("secretValues = %q", o.secretValues(flagEnv))
			}
		})
	}
}

// TestAuthFlagsConnect connects with the options the flags give to an mcp-go
// server on 127.0.0.1 that answers 401 without a token from a local
// authorization server.
func TestAuthFlagsConnect(t *testing.T) {
	var issued atomic.Value
	var scope atomic.Value
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, secret, _ := r.BasicAuth()
		if r.URL.Path != "/token" || r.FormValue("grant_type") != "client_credentials" || id != "flags-client" || secret != flagSecret {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":"invalid_client"}`))
			return
		}
		scope.Store(r.FormValue("scope"))
		issued.Store("flags-token-1")
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": "flags-token-1", "token_type": "Bearer", "expires_in": 600})
	}))
	defer as.Close()

	s := server.NewMCPServer("flags-protected", "1.0.0")
	s.AddTool(mcp.NewTool("ping_tool"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("pong"), nil
	})
	h := server.NewStreamableHTTPServer(s)
	rs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, _ := issued.Load().(string)
		if tok == "" || r.Header.Get("Authorization") != "Bearer "+tok {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer rs.Close()

	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	connect := func(secretEnv string) (*composition.Session, error) {
		o := parseAuthFlags(t, "--oauth-client-id", "flags-client", "--oauth-client-secret-env", secretEnv,
			"--oauth-token-url", as.URL+"/token", "--oauth-scope", "mcp:tools")
		env := func(k string) (string, bool) {
			return map[string]string{"GOOD": flagSecret, "BAD": "wrong-secret"}[k], true
		}
		opts, err := o.compositionOptions(env)
		if err != nil {
			t.Fatal(err)
		}
		return composition.Connect(ctx, composition.HTTP(rs.URL+"/mcp"), opts...)
	}

	sess, err := connect("GOOD")
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	res, err := sess.CallResult(ctx, "ping_tool", nil)
	if err != nil || res.Text() != "pong" {
		t.Errorf("ping_tool = %+v, %v", res, err)
	}
	if got, _ := scope.Load().(string); got != "mcp:tools" {
		t.Errorf("scope = %q", got)
	}

	_, err = connect("BAD")
	var te *composition.TokenError
	if !errors.As(err, &te) || te.StatusCode != http.StatusUnauthorized || te.Code != "invalid_client" {
		t.Errorf("wrong secret: err = %v, want a *composition.TokenError with 401 invalid_client", err)
	}
	if exitCode(err) != exitServer {
		t.Errorf("wrong secret: exit code %d", exitCode(err))
	}
}

// TestOAuthFlagsAreWiredIntoExport: --oauth-* reach export's flag set and
// are refused for a stdio server and together with --bearer-env.
func TestOAuthFlagsAreWiredIntoExport(t *testing.T) {
	env := map[string]string{"SECRET": "client-secret-value", "TOKEN": "bearer-token-value"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"export", "--oauth-client-id", "c", "--oauth-client-secret-env", "SECRET", "--", "server"}, "apply to HTTP servers"},
		{[]string{"export", "--oauth-client-id", "c", "--oauth-client-secret-env", "SECRET", "--bearer-env", "TOKEN", "http://127.0.0.1:1/mcp"}, "both authorize"},
	} {
		_, stderr, code := runInProcess(tc.args, env)
		if code != exitInput || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 mentioning %q", tc.args, code, stderr, tc.want)
		}
		if strings.Contains(stderr, env["SECRET"]) || strings.Contains(stderr, env["TOKEN"]) {
			t.Errorf("%v: a secret reached stderr: %q", tc.args, stderr)
		}
	}
}
