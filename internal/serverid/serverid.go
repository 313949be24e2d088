// Package serverid checks server ids: the keys of a bundle's servers, of a
// servers config file and of a composition.Registry. It is its own package so
// that the runtime can check ids without importing the bundle format.
package serverid

import (
	"errors"
	"fmt"
)

// Check reports whether id is a valid server id: a non-empty ASCII letter
// or digit, then ASCII letters, digits, '.', '_' or '-' (the pattern of
// "id" in bundle.schema.json).
func Check(id string) error {
	if id == "" {
		return errors.New("empty server id")
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return fmt.Errorf("invalid server id %q: want a letter or digit, then letters, digits, '.', '_' or '-'", id)
		}
	}
	return nil
}
