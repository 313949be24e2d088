package main

import (
	"os"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/internal/protocol"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// TestExportSlowStart exports a real stdio server (sqlite-explorer, which
// speaks protocol 2026-07-28) that sleeps 8 s before it reads stdin, as a
// server started through go run or npx on a cold cache does: the bundle
// must record the newest era, as for a server that starts at once, and no
// warning about the server/discover probe may be printed.
func TestExportSlowStart(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Fatalf("this test needs /bin/sh: %v", err)
	}
	bin := testenv.Build(t, "./cmd/mcpbind")
	command, args := testenv.SQLiteExplorerStdio(t)
	script := `sleep 8; exec "$@"`
	cmdline := append([]string{"--", "/bin/sh", "-c", script, "sh", command}, args...)
	data := mustExport(t, bin, nil, cmdline...)
	srv := parseOne(t, data)
	if srv.ProtocolVersion != protocol.ModernVersion {
		t.Errorf("a server that starts slowly was recorded at protocol %s, want %s", srv.ProtocolVersion, protocol.ModernVersion)
	}
}

// TestExportSilentServer exports a stdio server that is alive but never
// answers: export gives up at --timeout and says so, naming the
// server/discover probe and the --protocol-version way out.
func TestExportSilentServer(t *testing.T) {
	t.Parallel()
	bin := testenv.Build(t, "./cmd/mcpbind")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	r := runBinary(t, bin, nil, "export", "--timeout", "2s", "--env", fakeServerEnv+"=hang", "--", self)
	if r.code != exitServer {
		t.Errorf("exit %d, want %d", r.code, exitServer)
	}
	for _, want := range []string{"--timeout 2s", "server/discover", "--protocol-version " + protocol.NewestLegacyVersion} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, r.stderr)
		}
	}
}
