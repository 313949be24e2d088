package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigErrors checks that a servers config insights cannot use is
// refused at start, naming the file and what is wrong. (The downstream
// servers are started lazily, so nothing is started here; the end-to-end
// test in examples/analyst runs them.)
func TestConfigErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	noMemory := write("no-memory.yaml", "servers:\n  sqlite-explorer:\n    command: [sqlite-explorer]\n")
	badKey := write("bad-key.yaml", "servers:\n  memory:\n    comand: [node]\n")
	for _, tc := range []struct {
		name, config string
		want         []string
	}{
		{"missing file", filepath.Join(dir, "nope.yaml"), []string{"nope.yaml: cannot read the servers config"}},
		{"no memory server", noMemory, []string{noMemory + ": ", `no server "memory"`}},
		{"unknown key", badKey, []string{"bad-key.yaml:3:5", `unknown key "comand"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), []string{"--config", tc.config, "--memory", filepath.Join(dir, "m.jsonl")}, strings.NewReader(""), &stdout, &stderr)
			if err == nil {
				t.Fatal("run accepted the config")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if stdout.Len() > 0 {
				t.Errorf("stdout: %q", stdout.String())
			}
		})
	}
}
