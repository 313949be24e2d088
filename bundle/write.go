package bundle

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFile writes data to path atomically: it writes a temporary file in the
// same directory, syncs it, gives it the mode of the file it replaces (0644
// for a new file) and renames it over path. Readers see the old file or the
// new one, never a partial one; on any error the temporary file is removed
// and an existing file at path is left untouched. When path is a symbolic
// link, the file it points to is replaced and the link kept.
func WriteFile(path string, data []byte) error {
	s, err := StageFile(path, data)
	if err != nil {
		return err
	}
	if err := s.Commit(); err != nil {
		s.Discard()
		return err
	}
	SyncDir(filepath.Dir(s.target))
	return nil
}

// StagedFile is the new content of a file, written in full and synced to a
// temporary file next to the file it replaces, not yet in place: Commit
// renames it over the file, Discard removes it. WriteFile is StageFile and
// Commit; writers of several files that must change together (gen.Write)
// stage them all before committing any.
type StagedFile struct {
	path, target, tmp string
}

// StageFile writes data to a synced temporary file in the folder of path,
// or of the file path is a symbolic link to (which keeps the link), with
// the mode of the file it will replace (0644 for a new one). It fails,
// leaving nothing behind, when path exists and is not a regular file or
// the temporary file cannot be written in full.
func StageFile(path string, data []byte) (*StagedFile, error) {
	s := &StagedFile{path: path, target: path}
	if resolved, rerr := filepath.EvalSymlinks(path); rerr == nil {
		s.target = resolved
	}
	mode := fs.FileMode(0o644)
	if fi, serr := os.Stat(s.target); serr == nil {
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("write %s: not a regular file", path)
		}
		mode = fi.Mode().Perm()
	} else if !errors.Is(serr, fs.ErrNotExist) {
		return nil, fmt.Errorf("write %s: %w", path, serr)
	}
	dir, base := filepath.Split(s.target)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
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
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return s, nil
}

// Commit renames the staged file over the file it replaces. The rename is
// made durable by syncing the folder (SyncDir), which the caller does once
// after its last Commit.
func (s *StagedFile) Commit() error {
	if err := os.Rename(s.tmp, s.target); err != nil {
		return fmt.Errorf("write %s: %w", s.path, err)
	}
	s.tmp = ""
	return nil
}

// Discard removes the temporary file of a staged file not committed; it
// does nothing after Commit.
func (s *StagedFile) Discard() {
	if s.tmp != "" {
		_ = os.Remove(s.tmp)
		s.tmp = ""
	}
}

// SyncDir makes the renames and removals in dir durable; not every system
// can sync a directory, so it reports nothing.
func SyncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}
