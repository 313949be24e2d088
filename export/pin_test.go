package export

import (
	"strings"
	"testing"
)

// TestUnpinnedPackage: the runners' package arguments without an exact
// version are reported with how to pin them; pinned ones, local paths,
// URLs and commands that are not package runners are not.
func TestUnpinnedPackage(t *testing.T) {
	for _, tc := range []struct {
		command string
		want    string // Package|Pinned, or "" for not reported
	}{
		{"npx -y @modelcontextprotocol/server-memory", "@modelcontextprotocol/server-memory|@modelcontextprotocol/server-memory@VERSION"},
		{"npx -y @modelcontextprotocol/server-memory@2026.8.31", ""},
		{"npx -y @modelcontextprotocol/server-memory@latest", "@modelcontextprotocol/server-memory@latest|@modelcontextprotocol/server-memory@VERSION"},
		{"npx -y mcp-server@^1.2.0 --port 1", "mcp-server@^1.2.0|mcp-server@VERSION"},
		{"npx --yes mcp-server@1.2.0-rc.1", ""},
		{"npx --registry https://r.example mcp-server", "mcp-server|mcp-server@VERSION"},
		{"npx -p mcp-server mcp-server-cli", "mcp-server|mcp-server@VERSION"},
		{"npx --package=mcp-server@1.0.0 mcp-server-cli", ""},
		{"/usr/local/bin/npx.cmd -y pkg", "pkg|pkg@VERSION"},
		{"npm exec -y -- pkg", "pkg|pkg@VERSION"},
		{"npm exec -- pkg@3.0.1", ""},
		{"bunx pkg", "pkg|pkg@VERSION"},
		{"npx ./local-server", ""},
		{"npx github:owner/repo", ""},
		{"uvx mcp-server-fetch", "mcp-server-fetch|mcp-server-fetch==VERSION"},
		{"uvx mcp-server-fetch==2025.4.7", ""},
		{"uvx mcp-server-fetch@2025.4.7", ""},
		{"uvx mcp-server-fetch>=2025", "mcp-server-fetch>=2025|mcp-server-fetch==VERSION"},
		{"uvx --python 3.12 --from mcp-server-git mcp-server-git --repo .", "mcp-server-git|mcp-server-git==VERSION"},
		{"uvx --from mcp-server-git==0.6.2 mcp-server-git", ""},
		{"uv tool run mcp-server-time", "mcp-server-time|mcp-server-time==VERSION"},
		{"uv run server.py", ""},
		{"pipx run mcp-server-time", "mcp-server-time|mcp-server-time==VERSION"},
		{"pipx run --spec mcp-server-time==1.0 mcp-server-time", ""},
		{"pipx install mcp-server-time", ""},
		{"node dist/index.js", ""},
		{"go run github.com/mcpbind/mcpbind/examples/sqlite-explorer", ""},
		{"npx", ""},
	} {
		u, ok := UnpinnedPackage(strings.Fields(tc.command))
		got := ""
		if ok {
			got = u.Package + "|" + u.Pinned
			if !strings.Contains(u.Warning(), u.Pinned) || !strings.Contains(u.Warning(), "not reproducible") {
				t.Errorf("%s: warning %q", tc.command, u.Warning())
			}
		}
		if got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.command, got, tc.want)
		}
	}
}
