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
	staged := make([]stagedFile, 0, len(files))
	defer func() {
		for _, s := range staged {
			if s.tmp != "" {
				_ = os.Remove(s.tmp)
			}
		}
	}()
	for _, f := range files {
		s, err := stage(filepath.Join(dir, f.Name), f.Content)
		if err != nil {
			return nil, err
		}
		staged = append(staged, s)
	}
	for i := range staged {
		if err := os.Rename(staged[i].tmp, staged[i].target); err != nil {
			return nil, fmt.Errorf("write %s: %w", staged[i].path, err)
		}
		staged[i].tmp = ""
	}
	syncDir(dir)
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
		syncDir(dir)
	}
	return removed, nil
}

// stagedFile is a file written to a temporary file (tmp, "" once renamed)
// next to the file it replaces (target: path, or the file path links to).
type stagedFile struct {
	path, target, tmp string
}

// stage writes data to a synced temporary file in the folder of path (or of
// the file path is a symbolic link to, which keeps the link), with the
// mode of the file it will replace (0644 for a new one).
func stage(path string, data []byte) (s stagedFile, err error) {
	s = stagedFile{path: path, target: path}
	if resolved, rerr := filepath.EvalSymlinks(path); rerr == nil {
		s.target = resolved
	}
	mode := fs.FileMode(0o644)
	if fi, serr := os.Stat(s.target); serr == nil {
		if !fi.Mode().IsRegular() {
			return s, fmt.Errorf("write %s: not a regular file", path)
		}
		mode = fi.Mode().Perm()
	} else if !errors.Is(serr, fs.ErrNotExist) {
		return s, fmt.Errorf("write %s: %w", path, serr)
	}
	f, err := os.CreateTemp(filepath.Dir(s.target), "."+filepath.Base(s.target)+".tmp-*")
	if err != nil {
		return s, fmt.Errorf("write %s: %w", path, err)
	}
	s.tmp = f.Name()
	if _, err = f.Write(data); err == nil {
		if err = f.Chmod(mode); err == nil {
			err = f.Sync()
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(s.tmp)
		return s, fmt.Errorf("write %s: %w", path, err)
	}
	return s, nil
}

// syncDir makes renames and removals in dir durable; not every system can
// sync a directory.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
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
