// Package serverid checks and makes server ids: the keys of a bundle's
// servers, of a servers config file and of a composition.Registry. It is its
// own package so that the runtime can check ids without importing the bundle
// format.
package serverid

import (
	"errors"
	"fmt"
	"strings"
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

// Slug is the default server id for a serverInfo name (export's, and what
// check matches a bundle's servers by): ASCII letters and
// digits lowercased, every run of other characters one '-', and no '-' at
// either end. "@modelcontextprotocol/server-everything" gives
// "modelcontextprotocol-server-everything"; a name with no ASCII letter or
// digit gives "".
func Slug(name string) string {
	var b strings.Builder
	dash := false
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		default:
			dash = b.Len() > 0
			continue
		}
		if dash {
			b.WriteByte('-')
			dash = false
		}
		b.WriteByte(c)
	}
	return b.String()
}
