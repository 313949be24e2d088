package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// The tests of this file run the README's CI recipe on examples/insights:
// check --config against its live downstream servers (sqlite-explorer by
// go run, server-memory from testservers, as its servers.yaml starts them)
// and generate --check on its generated packages; then a bundle or a
// package that no longer matches makes each exit non-zero.

// insightsBundle loads examples/insights/servers.json and returns it with
// edit applied (the servers' derived digests dropped), written to a
// temporary file.
func insightsBundle(t *testing.T, edit func(b *bundle.Bundle)) string {
	t.Helper()
	b, err := bundle.Load(filepath.Join(testenv.ModuleRoot(t), "examples", "insights", "servers.json"))
	if err != nil {
		t.Fatal(err)
	}
	edit(b)
	data, err := b.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return diffWriteFile(t, filepath.Join(t.TempDir(), "servers.json"), data)
}

// TestCheckConfigInsights: check --config on insights' servers.yaml and its
// committed servers.json exits 0 with no change; a bundle whose server has
// a tool the live one lacks, or a server the config lacks, exits 1 naming
// it; a bundle that lacks a configured server reports it added (exit 0
// under --fail-on breaking, 1 under any); --id checks one server alone.
func TestCheckConfigInsights(t *testing.T) {
	root := testenv.ModuleRoot(t)
	testenv.ServerMemory(t) // fails clearly when node or the package is missing
	config := filepath.Join(root, "examples", "insights", "servers.yaml")
	committed := filepath.Join(root, "examples", "insights", "servers.json")

	stdout, stderr, code := runInProcess([]string{"check", "--config", config, "--format", "json", committed}, nil)
	var report struct {
		Changes []json.RawMessage `json:"changes"`
	}
	if err := json.Unmarshal([]byte(stdout), &report); code != 0 || err != nil || len(report.Changes) != 0 {
		t.Fatalf("check --config on the committed bundle: exit %d (%v), stdout %s\nstderr %s", code, err, stdout, stderr)
	}
	for _, id := range []string{"sqlite-explorer", "memory"} {
		if !strings.Contains(stderr, "["+id+"] exported") {
			t.Errorf("stderr does not show server %s exported:\n%s", id, stderr)
		}
	}

	vanished, err := bundle.NewTool(json.RawMessage(`{"name":"vanished_tool","inputSchema":{"type":"object"}}`))
	if err != nil {
		t.Fatal(err)
	}
	withTool := insightsBundle(t, func(b *bundle.Bundle) {
		s := findServer(b, "memory")
		s.Tools = append(s.Tools, vanished)
		s.Extensions = nil
	})
	stdout, stderr, code = runInProcess([]string{"check", "--config", config, "--format", "markdown", withTool}, nil)
	if code != exitBreaking || !strings.Contains(stdout, "vanished_tool") || !strings.Contains(stdout, "memory") || !strings.Contains(stderr, "1 breaking") {
		t.Errorf("a bundle tool the live server lacks: exit %d, stdout %s\nstderr %s", code, stdout, stderr)
	}

	extra := insightsBundle(t, func(b *bundle.Bundle) {
		s := *findServer(b, "memory")
		s.ID = "retired"
		b.Servers = append(b.Servers, s)
	})
	stdout, stderr, code = runInProcess([]string{"check", "--config", config, extra}, nil)
	if code != exitBreaking || !strings.Contains(stdout, "retired") || !strings.Contains(stderr, "[retired] is in "+extra+" but not in "+config) {
		t.Errorf("a bundle server the config lacks: exit %d, stdout %s\nstderr %s", code, stdout, stderr)
	}

	lacking := insightsBundle(t, func(b *bundle.Bundle) {
		b.Servers = []bundle.Server{*findServer(b, "sqlite-explorer")}
	})
	stdout, stderr, code = runInProcess([]string{"check", "--config", config, lacking}, nil)
	if code != 0 || !strings.Contains(stdout, "memory") || !strings.Contains(stderr, "[memory] is in "+config+" but not in "+lacking) {
		t.Errorf("a configured server the bundle lacks, --fail-on breaking: exit %d, stdout %s\nstderr %s", code, stdout, stderr)
	}
	if _, _, code = runInProcess([]string{"check", "--config", config, "--fail-on", "any", "--id", "memory", lacking}, nil); code != exitBreaking {
		t.Errorf("a configured server the bundle lacks, --fail-on any --id memory: exit %d, want 1", code)
	}
	// --id sqlite-explorer leaves memory (and its missing entry) out.
	if stdout, stderr, code = runInProcess([]string{"check", "--config", config, "--fail-on", "any", "--id", "sqlite-explorer", lacking}, nil); code != 0 || strings.Contains(stderr, "[memory]") {
		t.Errorf("--id sqlite-explorer: exit %d, stdout %s\nstderr %s", code, stdout, stderr)
	}
}

// TestCheckConfigUsage: check --config takes the bundle alone, and the
// server flags that contradict a config are refused before any server
// starts.
func TestCheckConfigUsage(t *testing.T) {
	dir := t.TempDir()
	config := writeFile(t, dir, "servers.yaml", "servers:\n  a:\n    command: [does-not-exist-c18]\n")
	for _, args := range [][]string{
		{"check", "--config", config},
		{"check", "--config", config, "b.json", "--", "cmd"},
		{"check", "--config", config, "--env", "A=1", "b.json"},
	} {
		if _, stderr, code := runInProcess(args, nil); code != exitInput || strings.Contains(stderr, "connecting") {
			t.Errorf("%q: exit %d, want 2; stderr %s", args, code, stderr)
		}
	}
}

// TestCheckConfigServerFails: a configured server that cannot start is left
// out of the report and makes check exit 3, naming it.
func TestCheckConfigServerFails(t *testing.T) {
	node, args := testenv.ServerMemory(t)
	dir := t.TempDir()
	config := writeFile(t, dir, "servers.yaml", "servers:\n  memory:\n    command: "+yamlList(t, append([]string{node}, args...)...)+
		"\n  broken:\n    command: [does-not-exist-c18]\n")
	b := insightsBundle(t, func(b *bundle.Bundle) { b.Servers = []bundle.Server{*findServer(b, "memory")} })
	stdout, stderr, code := runInProcess([]string{"check", "--config", config, b}, nil)
	if code != exitServer || !strings.Contains(stderr, "[broken] failed") || !strings.Contains(stderr, "1 of 2 servers failed (broken)") || strings.Contains(stdout, "broken") {
		t.Errorf("exit %d, stdout %s\nstderr %s", code, stdout, stderr)
	}
}

// TestGenerateCheckInsights: generate --check on insights' committed
// packages exits 0 and prints nothing; on a copy whose files were edited,
// deleted or left stale it exits 1 and lists exactly those, one path a
// line, and writes nothing; a hand-written file is not listed.
func TestGenerateCheckInsights(t *testing.T) {
	src := filepath.Join(testenv.ModuleRoot(t), "examples", "insights")
	stdout, stderr, code := runInProcess([]string{"generate", "--check", "--server", filepath.Join(src, "servers.json"), "-o", src}, nil)
	if code != 0 || stdout != "" {
		t.Fatalf("generate --check on examples/insights: exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}

	dir := t.TempDir()
	for _, pkg := range []string{"memory", "sqliteexplorer"} {
		if err := os.CopyFS(filepath.Join(dir, pkg), os.DirFS(filepath.Join(src, pkg))); err != nil {
			t.Fatal(err)
		}
	}
	bundlePath := filepath.Join(src, "servers.json")
	if _, stderr, code := runInProcess([]string{"generate", "--check", "--server", bundlePath, "-o", dir}, nil); code != 0 {
		t.Fatalf("generate --check on a copy: exit %d, stderr %s", code, stderr)
	}
	edited := filepath.Join(dir, "memory", "client.go")
	data := readFile(t, edited)
	diffWriteFile(t, edited, append(data, "// edited\n"...))
	deleted := filepath.Join(dir, "sqliteexplorer", "server.go")
	if err := os.Remove(deleted); err != nil {
		t.Fatal(err)
	}
	stale := writeFile(t, filepath.Join(dir, "memory"), "old.go", "// Code generated by mcpbind. DO NOT EDIT.\n\npackage memory\n")
	writeFile(t, filepath.Join(dir, "memory"), "extra.go", "package memory\n")
	before := snapshot(t, dir)

	stdout, stderr, code = runInProcess([]string{"generate", "--check", "--server", bundlePath, "-o", dir}, nil)
	want := strings.Join([]string{edited, stale, deleted}, "\n") + "\n"
	if code != exitBreaking || stdout != want || !strings.Contains(stderr, "3 generated files are out of date") {
		t.Errorf("generate --check on a changed copy: exit %d, stdout\n%s\nwant\n%s\nstderr %s", code, stdout, want, stderr)
	}
	if !equalSnapshots(before, snapshot(t, dir)) {
		t.Errorf("generate --check wrote into %s", dir)
	}
	// Without --server the server.go files are stale: the check lists both.
	stdout, _, code = runInProcess([]string{"generate", "--check", bundlePath, "-o", src}, nil)
	if want := filepath.Join(src, "memory", "server.go") + "\n" + filepath.Join(src, "sqliteexplorer", "server.go") + "\n"; code != exitBreaking || stdout != want {
		t.Errorf("generate --check without --server: exit %d, stdout %q, want %q", code, stdout, want)
	}
	if _, _, code = runInProcess([]string{"generate", "--check", "--force", bundlePath, "-o", dir}, nil); code != exitInput {
		t.Errorf("--check --force: exit %d, want 2", code)
	}
}

// TestExportWarnsUnpinned: export --config warns once for the server whose
// command runs npx with an unpinned package and not for the pinned one;
// both are the real server-memory, which npx finds installed in
// testservers (offline). export -- npx … and check -- npx … warn the same
// way.
// It changes the working directory, so it must not run in parallel.
func TestExportWarnsUnpinned(t *testing.T) {
	testenv.ServerMemory(t)
	root := testenv.ModuleRoot(t)
	var pkg struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(readFile(t, filepath.Join(root, "testservers", "node_modules", "@modelcontextprotocol", "server-memory", "package.json")), &pkg); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	server := func(spec string) string {
		return "    command: " + yamlList(t, "npx", "-y", spec) + "\n    cwd: " + filepath.Join(root, "testservers") +
			"\n    env: {npm_config_offline: \"true\", MEMORY_FILE_PATH: " + filepath.Join(dir, "memory.jsonl") + "}\n"
	}
	config := writeFile(t, dir, "servers.yaml", "servers:\n  loose:\n"+server("@modelcontextprotocol/server-memory")+
		"  pinned:\n"+server("@modelcontextprotocol/server-memory@"+pkg.Version))
	_, stderr, code := runInProcess([]string{"export", "--config", config, "-o", filepath.Join(dir, "b.json")}, nil)
	const warned = `warning: the command runs npx with the unpinned package "@modelcontextprotocol/server-memory"`
	if code != 0 || strings.Count(stderr, warned) != 1 || !strings.Contains(stderr, "[loose] "+warned) ||
		!strings.Contains(stderr, `pin it in the command as "@modelcontextprotocol/server-memory@VERSION"`) {
		t.Errorf("export --config: exit %d, stderr\n%s", code, stderr)
	}

	t.Chdir(filepath.Join(root, "testservers")) // where npx finds the package; the server's working directory
	_, stderr, code = runInProcess([]string{"export", "--env", "npm_config_offline=true", "--env", "MEMORY_FILE_PATH=" + filepath.Join(dir, "memory.jsonl"),
		"-o", filepath.Join(dir, "c.json"), "--", "npx", "-y", "@modelcontextprotocol/server-memory"}, nil)
	if code != 0 || strings.Count(stderr, warned) != 1 {
		t.Errorf("export -- npx: exit %d, stderr\n%s", code, stderr)
	}
	_, stderr, code = runInProcess([]string{"check", "--env", "npm_config_offline=true", "--env", "MEMORY_FILE_PATH=" + filepath.Join(dir, "memory.jsonl"),
		filepath.Join(dir, "c.json"), "--", "npx", "-y", "@modelcontextprotocol/server-memory"}, nil)
	if code != 0 || strings.Count(stderr, warned) != 1 {
		t.Errorf("check -- npx: exit %d, stderr\n%s", code, stderr)
	}
}

// TestCallTimeoutHelp: call's --timeout says that it bounds the call too.
func TestCallTimeoutHelp(t *testing.T) {
	stdout, _, code := runInProcess([]string{"call", "--help"}, nil)
	if code != 0 || !strings.Contains(stdout, "give up connecting, listing tools and calling the tool after this DURATION") {
		t.Errorf("call --help (exit %d) does not say --timeout bounds the call:\n%s", code, stdout)
	}
}
