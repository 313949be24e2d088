package testenv

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// PIDWrapped returns a command line that runs command (with its arguments)
// through sh, which writes its pid to a file and then execs the command, so
// the process keeps that pid; pid reads it, failing t when the file is
// missing or malformed. Tests use it to kill the very server process that a
// session or registry started. Unix only (sh).
func PIDWrapped(t testing.TB, command ...string) (argv []string, pid func() int) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "pid")
	argv = append([]string{"sh", "-c", `echo $$ > "$0"; exec "$@"`, file}, command...)
	return argv, func() int {
		t.Helper()
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		n, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			t.Fatalf("pid file: %v", err)
		}
		return n
	}
}
