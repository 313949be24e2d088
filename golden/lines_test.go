package golden

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpbind/mcpbind/gen"
)

// TestGeneratedLinesFit: no line of a golden package's schemas.go or
// server.go, the files that hold schemas and tool objects as string
// literals, is wider than gen.MaxLineColumns (a tab counted as 8), so a
// regenerated schema shows in a diff as the lines that changed.
func TestGeneratedLinesFit(t *testing.T) {
	var files []string
	for _, name := range []string{"schemas.go", "server.go"} {
		f, _ := filepath.Glob(filepath.Join("*", "*", name))
		files = append(files, f...)
	}
	if len(files) == 0 {
		t.Fatal("no generated schemas.go or server.go")
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for line := range bytes.Lines(src) {
			n++
			width := 0
			for _, r := range string(bytes.TrimRight(line, "\n")) {
				if r == '\t' {
					width += 8 - width%8
				} else {
					width++
				}
			}
			if width > gen.MaxLineColumns {
				t.Errorf("%s:%d is %d columns wide, over %d: %.80s…", f, n, width, gen.MaxLineColumns, line)
			}
		}
	}
}
