package gen

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestWriteLeavesNoPartialPackage: when one file of a package cannot be
// written (a folder stands where schemas.go goes), Write returns the error
// and the folder is as it was: the files before it keep their old content,
// the stale generated server.go is not removed and no temporary file is
// left. Once the obstacle is gone, the same Write replaces every file and
// removes the stale one.
func TestWriteLeavesNoPartialPackage(t *testing.T) {
	dir := t.TempDir()
	old := map[string]string{
		"client.go": GeneratedHeader + "\n\npackage p // old client\n",
		"server.go": GeneratedHeader + "\n\npackage p // old server\n",
		"mine.go":   "package p // written by hand\n",
	}
	for name, content := range old {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "schemas.go"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := []File{
		{Name: "client.go", Content: []byte(GeneratedHeader + "\n\npackage p // new client\n")},
		{Name: "types.go", Content: []byte(GeneratedHeader + "\n\npackage p // new types\n")},
		{Name: "schemas.go", Content: []byte(GeneratedHeader + "\n\npackage p // new schemas\n")},
	}
	if removed, err := Write(dir, files); err == nil {
		t.Fatalf("Write over a folder succeeded (removed %v)", removed)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"client.go", "mine.go", "schemas.go", "server.go"}; !slices.Equal(names, want) {
		t.Errorf("after the failed Write the folder holds %v, want %v", names, want)
	}
	for name, content := range old {
		if data, _ := os.ReadFile(filepath.Join(dir, name)); string(data) != content {
			t.Errorf("%s changed by a failed Write: %q", name, data)
		}
	}

	if err := os.Remove(filepath.Join(dir, "schemas.go")); err != nil {
		t.Fatal(err)
	}
	removed, err := Write(dir, files)
	if err != nil || !slices.Equal(removed, []string{"server.go"}) {
		t.Fatalf("Write: removed %v, %v; want [server.go]", removed, err)
	}
	for _, f := range files {
		if data, _ := os.ReadFile(filepath.Join(dir, f.Name)); string(data) != string(f.Content) {
			t.Errorf("%s: %q", f.Name, data)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "mine.go")); string(data) != old["mine.go"] {
		t.Errorf("the hand-written file changed: %q", data)
	}
}
