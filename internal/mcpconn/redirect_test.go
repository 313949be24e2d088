package mcpconn

import (
	"net/url"
	"testing"
)

func TestOrigin(t *testing.T) {
	same := func(a, b string) bool {
		ua, _ := url.Parse(a)
		ub, _ := url.Parse(b)
		return origin(ua) == origin(ub)
	}
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"https://Example.com/mcp", "https://example.com:443/other?x=1", true},
		{"http://h/mcp", "http://h:80/mcp/", true},
		{"http://h/mcp", "https://h/mcp", false},
		{"http://h:8080/mcp", "http://h:8081/mcp", false},
		{"http://h/mcp", "http://h.evil/mcp", false},
	} {
		if got := same(c.a, c.b); got != c.same {
			t.Errorf("same origin %s, %s = %v, want %v", c.a, c.b, got, c.same)
		}
	}
}
