package rawjson

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpbind/mcpbind/internal/jsonpointer"
)

// InvalidUTF8 returns the JSON pointer (RFC 6901) of the first string in raw,
// an object key or a value, whose bytes are not valid UTF-8, and true; or
// "", false when every string is valid UTF-8. For a key the pointer names
// the member ("/inputSchema/properties/<key>", the key's invalid bytes
// shown as U+FFFD). RFC 8259 §8.1 requires JSON text exchanged between
// systems to be UTF-8; encoding/json replaces invalid bytes with U+FFFD
// when it decodes a string but keeps them in a json.RawMessage, so a name
// kept raw and the same name decoded would differ. raw must be valid JSON
// apart from its UTF-8; otherwise the pointer reached so far is returned.
func InvalidUTF8(raw json.RawMessage) (string, bool) {
	if utf8.Valid(raw) {
		return "", false
	}
	type frame struct {
		object bool
		key    string // the current member's key (objects)
		index  int    // the next element's index (arrays)
		atKey  bool   // objects: the next token is a key
	}
	pointer := func(stack []frame, last string) string {
		var b strings.Builder
		for i, f := range stack {
			if i == len(stack)-1 && last == "" && f.object && f.atKey {
				break
			}
			b.WriteByte('/')
			if f.object {
				b.WriteString(jsonpointer.Escape(f.key))
			} else {
				b.WriteString(strconv.Itoa(f.index))
			}
		}
		return b.String()
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	var stack []frame
	prev := int64(0)
	for {
		tok, err := dec.Token()
		if err != nil {
			return pointer(stack, ""), true
		}
		seg := raw[prev:dec.InputOffset()]
		prev = dec.InputOffset()
		top := len(stack) - 1
		isKey := top >= 0 && stack[top].object && stack[top].atKey
		if isKey {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:top]
				goto next
			}
			stack[top].key, _ = tok.(string)
			stack[top].atKey = false
			if !utf8.Valid(seg) {
				return pointer(stack, "key"), true
			}
			continue
		}
		if !utf8.Valid(seg) {
			return pointer(stack, "value"), true
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{':
				stack = append(stack, frame{object: true, atKey: true})
				continue
			case '[':
				stack = append(stack, frame{})
				continue
			default: // ']' ('}' is handled as a key position)
				stack = stack[:top]
			}
		}
	next:
		// A value is complete: move the parent on.
		if top = len(stack) - 1; top < 0 {
			return "", false
		}
		if stack[top].object {
			stack[top].atKey = true
		} else {
			stack[top].index++
		}
	}
}

// ValidUTF8 returns raw with each byte that is not part of a valid UTF-8
// sequence replaced by U+FFFD, as encoding/json does when it decodes a
// string, so that a value kept raw and the same value decoded agree. raw
// itself is returned, not copied, when it is valid UTF-8. Invalid bytes in
// valid JSON can only be inside strings, so the result is still valid JSON.
func ValidUTF8(raw []byte) []byte {
	if utf8.Valid(raw) {
		return raw
	}
	out := make([]byte, 0, len(raw)+len(raw)/16)
	for i := 0; i < len(raw); {
		r, size := utf8.DecodeRune(raw[i:])
		if r == utf8.RuneError && size == 1 {
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, raw[i:i+size]...)
		}
		i += size
	}
	return out
}
