package mcpconn

import (
	"net/http"
	"reflect"
	"testing"

	"github.com/mcpbind/mcpbind/internal/tokenstore"
)

// TestParseBearerChallenge reads the auth-params of the Bearer challenge of
// a WWW-Authenticate value, which comes from the server: quoted and bare
// values, escapes, another scheme before or after, a "bearer" that is not
// the scheme, and no challenge at all.
func TestParseBearerChallenge(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want map[string]string
	}{
		{`Bearer error="insufficient_scope", scope="mcp:basic mcp:write", resource_metadata="https://s.example/.well-known/oauth-protected-resource/mcp"`,
			map[string]string{"error": "insufficient_scope", "scope": "mcp:basic mcp:write", "resource_metadata": "https://s.example/.well-known/oauth-protected-resource/mcp"}},
		{`bearer scope=read,error=invalid_token`, map[string]string{"scope": "read", "error": "invalid_token"}},
		{`Basic realm="bearer land", Bearer scope="a\"b"`, map[string]string{"scope": `a"b`}},
		{`Bearer scope="x", scope="y"`, map[string]string{"scope": "x"}},
		{`Bearer`, map[string]string{}},
		{`Basic realm="x"`, nil},
		{`Bearerish scope="x"`, nil},
		{`Bearer scope="unterminated`, map[string]string{"scope": "unterminated"}},
	} {
		if got := parseBearerChallenge(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parseBearerChallenge(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// TestLoginCommand quotes what a shell would split.
func TestLoginCommand(t *testing.T) {
	for _, tc := range []struct {
		e    LoginRequiredError
		want string
	}{
		{LoginRequiredError{Server: "https://mcp.example.com/mcp"}, "mcpbind login https://mcp.example.com/mcp"},
		{LoginRequiredError{Server: "https://mcp.example.com/a b", ClientID: "it's"}, `mcpbind login --oauth-client-id 'it'\''s' 'https://mcp.example.com/a b'`},
	} {
		if got := tc.e.Command(); got != tc.want {
			t.Errorf("Command() = %q, want %q", got, tc.want)
		}
	}
}

// TestTokenOnlyToServerOrigin: the login's token goes with requests to the
// server's origin, never with one to another scheme, host or port.
func TestTokenOnlyToServerOrigin(t *testing.T) {
	a := newLoginAuth(&OAuthLogin{}, "https://mcp.example.com/mcp", http.DefaultClient)
	l := &tokenstore.Login{AccessToken: "at-secret"}
	for u, want := range map[string]string{
		"https://mcp.example.com/mcp":          "Bearer at-secret",
		"https://MCP.example.com/message?s=1":  "Bearer at-secret",
		"http://mcp.example.com/mcp":           "",
		"https://mcp.example.com:8443/mcp":     "",
		"https://evil.example.com/mcp":         "",
		"https://mcp.example.com.evil.com/mcp": "",
	} {
		req, err := http.NewRequest(http.MethodPost, u, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.authorized(req, l).Header.Get("Authorization"); got != want {
			t.Errorf("%s: Authorization %q, want %q", u, got, want)
		}
	}
}
