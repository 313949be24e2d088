package gen

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpbind/mcpbind/bundle"
)

// Write writes files, one generated package, into dir, creating it, and
// removes the generated files an earlier run left there that this run no
// longer writes (the server.go of an earlier generate --server); removed
// lists their names, sorted.
//
// Every file is first written in full to a temporary file in dir; only
// when all of them are written are they renamed over their names, so an
// error while writing leaves the package as it was, never half old and
// half new. A stale file is removed only when it is a .go file whose first
// line is GeneratedHeader: a file without the header (written by hand, or
// by another tool) is never removed, and neither is any file when writing
// failed.
func Write(dir string, files []File) (removed []string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	staged := make([]*bundle.StagedFile, 0, len(files))
	defer func() {
		for _, s := range staged {
			s.Discard()
		}
	}()
	for _, f := range files {
		s, err := bundle.StageFile(filepath.Join(dir, f.Name), f.Content)
		if err != nil {
			return nil, err
		}
		staged = append(staged, s)
	}
	for _, s := range staged {
		if err := s.Commit(); err != nil {
			return nil, err
		}
	}
	bundle.SyncDir(dir)
	written := map[string]bool{}
	for _, f := range files {
		written[f.Name] = true
	}
	stale, err := staleGenerated(dir, written)
	if err != nil {
		return nil, err
	}
	for _, name := range stale {
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			return removed, fmt.Errorf("remove stale generated file: %w", err)
		}
		removed = append(removed, name)
	}
	if len(removed) > 0 {
		bundle.SyncDir(dir)
	}
	return removed, nil
}

// Outdated reports what Write(dir, files) would change, writing nothing:
// the names, sorted, of the files that are missing from dir or whose
// content differs, and of the stale generated files Write would remove. A
// folder that does not exist yet lacks every file.
func Outdated(dir string, files []File) ([]string, error) {
	var changed []string
	written := map[string]bool{}
	for _, f := range files {
		written[f.Name] = true
		data, err := os.ReadFile(filepath.Join(dir, f.Name))
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, err
		case bytes.Equal(data, f.Content):
			continue
		}
		changed = append(changed, f.Name)
	}
	stale, err := staleGenerated(dir, written)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	changed = append(changed, stale...)
	slices.Sort(changed)
	return changed, nil
}

// staleGenerated lists, sorted, the regular .go files of dir that are not
// in written and whose first line is GeneratedHeader.
func staleGenerated(dir string, written map[string]bool) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var stale []string
	for _, e := range entries {
		name := e.Name()
		if written[name] || !e.Type().IsRegular() || !strings.HasSuffix(name, ".go") {
			continue
		}
		generated, err := hasGeneratedHeader(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		if generated {
			stale = append(stale, name)
		}
	}
	slices.Sort(stale)
	return stale, nil
}

// hasGeneratedHeader reports whether the file at path starts with the line
// GeneratedHeader.
func hasGeneratedHeader(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	head := make([]byte, len(GeneratedHeader)+2)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return false, err
	}
	head = head[:n]
	return bytes.HasPrefix(head, []byte(GeneratedHeader+"\n")) || bytes.HasPrefix(head, []byte(GeneratedHeader+"\r\n")), nil
}
