package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// module writes a Go module with the given files (path → content) into a
// temporary directory and returns it.
func module(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files["go.mod"] = "module example.com/m\n\ngo 1.24\n"
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestRun runs go test through testrun on a module whose tests pass, skip,
// fail and panic, and on one that does not build.
func TestRun(t *testing.T) {
	t.Parallel()
	dir := module(t, map[string]string{
		"pass/pass_test.go": "package pass\n\nimport \"testing\"\n\nfunc TestQuiet(t *testing.T) { t.Log(\"passing-test-log\") }\n",
		"skip/skip_test.go": "package skip\n\nimport \"testing\"\n\nfunc TestSkipped(t *testing.T) { t.Skip(\"no server here\") }\n",
		"fail/fail_test.go": "package fail\n\nimport \"testing\"\n\nfunc TestBroken(t *testing.T) {\n\tt.Run(\"sub\", func(t *testing.T) { t.Error(\"broken sub\") })\n}\n\nfunc TestPanics(t *testing.T) { t.Log(\"before the panic\"); panic(\"boom\") }\n",
		"nobuild/x_test.go": "package nobuild\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) { undefinedName() }\n",
		"notests/x.go":      "package notests\n",
	})
	for _, tc := range []struct {
		name   string
		pkgs   []string
		status int
		want   []string
		deny   []string
	}{
		{name: "pass", pkgs: []string{"./pass", "./notests"}, status: 0,
			want: []string{"ok  \texample.com/m/pass", "testrun: 1 passed, 0 failed, 0 skipped", "testrun: PASS"},
			deny: []string{"passing-test-log", "=== RUN"}},
		{name: "skip", pkgs: []string{"./pass", "./skip"}, status: 1,
			want: []string{"--- SKIP: TestSkipped", "no server here", "1 skipped", "skipped (a skipped test proves nothing", "\texample.com/m/skip TestSkipped", "testrun: FAIL"}},
		{name: "fail", pkgs: []string{"./fail"}, status: 1,
			want: []string{"broken sub", "--- FAIL: TestBroken/sub", "before the panic", "panic: boom", "FAIL\texample.com/m/fail",
				"\texample.com/m/fail TestBroken/sub", "\texample.com/m/fail TestPanics", "testrun: FAIL"}},
		{name: "build", pkgs: []string{"./nobuild"}, status: 1,
			want: []string{"undefinedName", "[build failed]", "1 package(s) failed: example.com/m/nobuild", "testrun: FAIL"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out, errOut strings.Builder
			status := run(dir, append([]string{"-count=1"}, tc.pkgs...), &out, &errOut)
			all := out.String() + errOut.String()
			t.Logf("status %d, output:\n%s", status, all)
			if status != tc.status {
				t.Errorf("status %d, want %d", status, tc.status)
			}
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("output lacks %q", w)
				}
			}
			for _, d := range tc.deny {
				if strings.Contains(all, d) {
					t.Errorf("output shows %q", d)
				}
			}
		})
	}
}
