package testenv

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// GitHubMCPServerModule is the folder, relative to the module root, of the
// nested Go module that pins github.com/github/github-mcp-server (v1.9.0,
// built on the official Go SDK, go-sdk v1.7.0) as a tool dependency, so that
// its dependencies stay out of this module's go.mod. `make deps` downloads
// its modules.
const GitHubMCPServerModule = "testservers/github-mcp-server"

// GitHubMCPServerPackage is the main package of github-mcp-server, built in
// [GitHubMCPServerModule].
const GitHubMCPServerPackage = "github.com/github/github-mcp-server/cmd/github-mcp-server"

// GitHubMCPServer builds github-mcp-server at the version pinned in
// testservers/github-mcp-server/go.mod (`go build -o` into a folder of
// t.TempDir(), run in that module's folder; each call builds anew, Go's build
// cache keeps that cheap: ~2 s warm, ~33 s on an empty cache) and returns the
// command line that serves it over stdio, with toolsets passed as
// --toolsets (e.g. "all", the set golden/github/bundle.json was exported
// with; "" keeps the server's default toolsets).
//
// env is the whole environment for the process (pass it as exec.Cmd.Env):
// this process's environment without any GITHUB_* variable (the server reads
// its settings from GITHUB_*, e.g. GITHUB_TOOLSETS, so a CI runner's must not
// reach it), plus GITHUB_PERSONAL_ACCESS_TOKEN=dummy (not a classic "ghp_"
// token, so the server starts without calling the API) and HTTPS_PROXY /
// HTTP_PROXY set to a loopback HTTP server of this test that answers every
// request 403 Forbidden (NO_PROXY emptied): a tool that calls the GitHub API
// gets a tool error at once, and the test never reaches the network,
// whether or not the machine has one. The proxy is closed in t.Cleanup.
//
// It fails the test (never skips) when the go command is missing or the
// build fails, e.g. when the module's dependencies are not downloaded and the
// proxy is unreachable.
func GitHubMCPServer(t testing.TB, toolsets string) (command string, args []string, env []string) {
	t.Helper()
	root := ModuleRoot(t)
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("testenv: the go command is not on PATH (needed to build github-mcp-server): %v", err)
	}
	name := "github-mcp-server"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	out := filepath.Join(t.TempDir(), name)
	cmd := exec.Command(goTool, "build", "-o", out, GitHubMCPServerPackage)
	cmd.Dir = filepath.Join(root, filepath.FromSlash(GitHubMCPServerModule))
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if output, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("testenv: go build -o %s %s (in %s): %v\n%s\nrun `make deps` (it runs go mod download in %s)",
			out, GitHubMCPServerPackage, GitHubMCPServerModule, err, output, GitHubMCPServerModule)
	}

	refuse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "testenv: no network for github-mcp-server in tests", http.StatusForbidden)
	}))
	t.Cleanup(refuse.Close)

	for _, kv := range os.Environ() {
		key, _, _ := strings.Cut(kv, "=")
		switch strings.ToUpper(key) {
		case "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY":
			continue
		}
		if strings.HasPrefix(strings.ToUpper(key), "GITHUB_") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		"GITHUB_PERSONAL_ACCESS_TOKEN=dummy",
		"HTTPS_PROXY="+refuse.URL, "https_proxy="+refuse.URL,
		"HTTP_PROXY="+refuse.URL, "http_proxy="+refuse.URL,
		"NO_PROXY=", "no_proxy=",
	)
	args = []string{"stdio"}
	if toolsets != "" {
		args = append(args, "--toolsets="+toolsets)
	}
	return out, args, env
}
