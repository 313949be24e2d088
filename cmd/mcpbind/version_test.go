package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/testservers/testenv"
)

func TestReadBuildVersion(t *testing.T) {
	rev := "30f1b76abcdef0123456789abcdef0123456789a"
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.time", Value: "2026-11-24T20:00:00Z"}, {Key: "vcs.modified", Value: "true"}}
	for _, tc := range []struct {
		name         string
		bi           *debug.BuildInfo
		ldflags      string
		str, release string
	}{
		{"no build info", nil, "", "devel", ""},
		{"go run", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "", "devel", ""},
		{"go install @v1.2.3", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "", "v1.2.3", "v1.2.3"},
		{"checkout", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261124200000-30f1b76abcde+dirty"}, Settings: vcs}, "",
			"v0.0.0-20261124200000-30f1b76abcde+dirty (revision 30f1b76abcde, 2026-11-24T20:00:00Z, modified)", ""},
		{"ldflags", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "v2.0.0", "v2.0.0", "v2.0.0"},
		{"build info wins over ldflags", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v2.0.0", "v1.2.3", "v1.2.3"},
	} {
		v := readBuildVersion(tc.bi, tc.ldflags)
		if v.String() != tc.str || v.Release() != tc.release {
			t.Errorf("%s: String() = %q, Release() = %q; want %q, %q", tc.name, v.String(), v.Release(), tc.str, tc.release)
		}
	}
}

// TestVersionStamp builds mcpbind with a release version given by -ldflags:
// --version prints it, and a bundle it exports records it under x-mcpbind,
// the same bytes on a second export.
func TestVersionStamp(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "mcpbind")
	build := exec.Command("go", "build", "-ldflags", "-X main.ldflagsVersion=v9.8.7", "-o", bin, "./cmd/mcpbind")
	build.Dir = testenv.ModuleRoot(t)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	r := runBinary(t, bin, nil, "--version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "mcpbind version v9.8.7") {
		t.Errorf("--version: exit %d, %q", r.code, r.stdout)
	}
	command, args := testenv.SQLiteExplorerStdio(t)
	cmdline := append([]string{"--", command}, args...)
	first := mustExport(t, bin, nil, cmdline...)
	srv := parseOne(t, first)
	f, err := srv.Facts()
	if err != nil || f.MCPBindVersion != "v9.8.7" {
		t.Errorf("x-mcpbind mcpbindVersion = %q (%v), want v9.8.7", f.MCPBindVersion, err)
	}
	if second := mustExport(t, bin, nil, cmdline...); !bytes.Equal(first, second) {
		t.Error("two exports of one server with one mcpbind differ")
	}
}
