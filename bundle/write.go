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
func WriteFile(path string, data []byte) (err error) {
	mode := fs.FileMode(0o644)
	target := path
	if resolved, rerr := filepath.EvalSymlinks(path); rerr == nil {
		target = resolved
	}
	if fi, serr := os.Stat(target); serr == nil {
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("write %s: not a regular file", path)
		}
		mode = fi.Mode().Perm()
	} else if !errors.Is(serr, fs.ErrNotExist) {
		return fmt.Errorf("write %s: %w", path, serr)
	}

	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Chmod(mode); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(tmp, target); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// Make the rename durable; not every system can sync a directory.
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}
