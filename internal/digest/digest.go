// Package digest computes the content digests that mcpbind records in a
// bundle's "x-mcpbind" member and that the runtime compares with a live
// server's tools (recorded under x-mcpbind). It is the one place that
// defines them, so that bundle, export and composition agree byte for byte.
//
// A digest is "sha256:" followed by 64 lowercase hex digits: the SHA-256 of
// the RFC 8785 (JCS) canonical form of a JSON value. Canonical JSON makes a
// digest independent of whitespace, key order and string escapes, so a tool
// re-indented by a bundle or re-encoded by a transport keeps its digest.
//
//   - Tool digest: the canonical form of the tool object as the server
//     listed it (every field, not only the schemas).
//   - Server digest: the canonical form of the JSON array of the server's
//     tool objects, sorted by name (byte order of the UTF-8 names; tools
//     with the same name by their canonical bytes). Only the tools count:
//     serverInfo, capabilities and the protocol version do not.
//
// RFC 8785 represents numbers as IEEE 754 doubles, so two tools that differ
// only in the digits of a number beyond double precision share a digest,
// and a number outside the double range (such as 1e400) has no canonical
// form: Tool and Server fail on it.
package digest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gowebpki/jcs"
)

// Prefix starts every digest: the hash algorithm.
const Prefix = "sha256:"

// Canonical returns the RFC 8785 canonical form of the JSON value raw. It
// fails on JSON nested more than MaxDepth levels deep.
func Canonical(raw json.RawMessage) ([]byte, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, errors.New("digest: empty JSON")
	}
	if err := checkDepth(raw); err != nil {
		return nil, err
	}
	out, err := jcs.Transform(raw)
	if err != nil {
		return nil, fmt.Errorf("digest: no canonical JSON form: %v", err)
	}
	return out, nil
}

// Of returns the digest of canonical bytes: "sha256:" and the hex SHA-256.
func Of(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return Prefix + hex.EncodeToString(sum[:])
}

// Tool returns the digest of one tool object.
func Tool(raw json.RawMessage) (string, error) {
	c, err := Canonical(raw)
	if err != nil {
		return "", err
	}
	return Of(c), nil
}

// Server returns the digest of a server's tools, given as the raw tool
// objects in any order. Each must be a JSON object; its "name" member
// orders it (a tool without a string name sorts as "").
func Server(tools []json.RawMessage) (string, error) {
	server, _, err := All(tools)
	return server, err
}

// ToolError says which tool (its index in the slice given to All or Server)
// has no digest, and why.
type ToolError struct {
	Index int
	Err   error
}

// Error names the tool by index.
func (e *ToolError) Error() string { return fmt.Sprintf("tool %d: %v", e.Index, e.Err) }

// Unwrap returns the reason.
func (e *ToolError) Unwrap() error { return e.Err }

// All returns the digest of a server's tools (as Server) and the digest of
// each tool (as Tool, in the order given), canonicalizing each tool once.
func All(tools []json.RawMessage) (server string, each []string, err error) {
	type entry struct {
		name      string
		canonical []byte
	}
	entries := make([]entry, 0, len(tools))
	each = make([]string, 0, len(tools))
	for i, raw := range tools {
		c, err := Canonical(raw)
		if err != nil {
			return "", nil, &ToolError{Index: i, Err: err}
		}
		if len(c) == 0 || c[0] != '{' {
			return "", nil, &ToolError{Index: i, Err: errors.New("digest: not a JSON object")}
		}
		var members map[string]json.RawMessage // exact keys, unlike a struct
		_ = json.Unmarshal(c, &members)
		var name string
		_ = json.Unmarshal(members["name"], &name)
		entries = append(entries, entry{name, c})
		each = append(each, Of(c))
	}
	slices.SortStableFunc(entries, func(a, b entry) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		return bytes.Compare(a.canonical, b.canonical)
	})
	var buf bytes.Buffer
	buf.WriteByte('[')
	for i, e := range entries {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(e.canonical)
	}
	buf.WriteByte(']')
	return Of(buf.Bytes()), each, nil
}

// lowercase hex digits.
func Valid(s string) bool {
	h, ok := strings.CutPrefix(s, Prefix)
	if !ok || len(h) != 2*sha256.Size {
		return false
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
