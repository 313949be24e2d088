// Package jsonpointer spells JSON Pointers (RFC 6901): the escaping of a
// reference token ("~" as "~0", "/" as "~1"), joining tokens onto a
// pointer and splitting a pointer into its tokens. Every mcpbind package
// that names a place in a JSON document goes through it.
package jsonpointer

import "strings"

// Escape returns token as it is written inside a pointer (RFC 6901 §3):
// "~" becomes "~0" and "/" becomes "~1".
func Escape(token string) string {
	if !strings.ContainsAny(token, "~/") {
		return token
	}
	return strings.ReplaceAll(strings.ReplaceAll(token, "~", "~0"), "/", "~1")
}

// Unescape undoes Escape (RFC 6901 §4: "~1" first, then "~0").
func Unescape(token string) string {
	if !strings.Contains(token, "~") {
		return token
	}
	return strings.ReplaceAll(strings.ReplaceAll(token, "~1", "/"), "~0", "~")
}

// Append returns ptr with tokens appended, each escaped:
// Append("/properties", "a/b") is "/properties/a~1b". "" is the root.
func Append(ptr string, tokens ...string) string {
	var b strings.Builder
	b.WriteString(ptr)
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(Escape(t))
	}
	return b.String()
}

// Split returns the unescaped tokens of ptr ("" → none). ok is false
// when ptr is neither "" nor starts with "/".
func Split(ptr string) (tokens []string, ok bool) {
	if ptr == "" {
		return nil, true
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, false
	}
	tokens = strings.Split(ptr[1:], "/")
	for i, t := range tokens {
		tokens[i] = Unescape(t)
	}
	return tokens, true
}

// Under returns the pointer of ptr relative to base, the tokens after
// base's: Under("/properties/b/properties/a", "/properties/b") is
// "/properties/a", ok. ok is false unless ptr lies strictly below base,
// whole tokens only ("/properties/bc" is not under "/properties/b").
// Appending the result to base gives ptr again.
func Under(ptr, base string) (rest string, ok bool) {
	rest, ok = strings.CutPrefix(ptr, base)
	if !ok || !strings.HasPrefix(rest, "/") {
		return "", false
	}
	return rest, true
}
