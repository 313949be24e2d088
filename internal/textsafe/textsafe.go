// Package textsafe is the one renderer of text that comes from outside
// (an MCP server's names, descriptions, error texts, stderr) wherever
// mcpbind shows it: in generated comments (package gen) and in the messages
// of errors, logs and terminal output.
//
// The rule is the same everywhere: a character that could hide text,
// reorder what a reader sees, move the cursor, ring a bell or start a
// terminal escape sequence is never written raw. That is every C0 and C1
// control character and DEL, the byte order mark U+FEFF, the bidirectional
// controls U+061C, U+200E, U+200F, U+202A–U+202E and U+2066–U+2069
// ("Trojan Source", CVE-2021-42574), and the line terminators NEL, U+2028
// and U+2029. Invalid UTF-8 becomes U+FFFD. The escapes have the form
// "\u202e", which is also a valid escape inside a JSON string.
package textsafe

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// IsLineTerminator reports whether r ends a line for a Go compiler, an
// editor, a terminal or a code-review tool: LF, CR, NEL (U+0085), LINE
// SEPARATOR (U+2028), PARAGRAPH SEPARATOR (U+2029), VT and FF.
func IsLineTerminator(r rune) bool {
	switch r {
	case '\n', '\r', '\v', '\f', 0x85, 0x2028, 0x2029:
		return true
	}
	return false
}

// IsHidden reports whether r must never be written raw: C0 controls other
// than tab, DEL, C1 controls, U+FEFF and the bidirectional controls (see
// the package doc). Line terminators other than U+2028 and U+2029 are C0
// or C1 controls, so they are hidden too.
func IsHidden(r rune) bool {
	switch {
	case r < 0x20 && r != '\t', r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == 0xfeff, r == 0x061c, r == 0x200e, r == 0x200f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// Mode says what the renderer does with tabs and line terminators, the
// only characters whose treatment differs by where the text goes.
type Mode uint8

// The modes of [Render].
const (
	// OneLine escapes every line terminator and tab too: the text stays on
	// one line, as an error message or a log attribute should
	// ("a\nb" becomes `a\nb`).
	OneLine Mode = iota
	// Lines keeps LF and tab (multi-line output for a terminal, such as a
	// tool's text result) and escapes every other line terminator: CR
	// could overwrite what was printed, U+2028 breaks lines only in some
	// viewers.
	Lines
	// Spaces writes a tab or any line terminator as one space: text for
	// inside a single comment line, which the caller splits into lines
	// itself (package gen).
	Spaces
)

// needs reports whether r is changed in mode m.
func (m Mode) needs(r rune) bool {
	switch {
	case r == '\t':
		return m != Lines
	case r == '\n':
		return m != Lines
	}
	return IsHidden(r) || IsLineTerminator(r)
}

// Render returns s made safe to show in mode m (see the package doc):
// invalid UTF-8 becomes U+FFFD and every hidden character (and, by mode,
// tab and line terminators) its escape: `\n`, `\r` and `\t` for those
// three, `\u001b` and the like for the others; in Spaces mode a tab or
// line terminator becomes a space. s is returned as is when nothing
// changes. The cost is linear in len(s).
func Render(s string, m Mode) string {
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 || m.needs(r) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteRune(utf8.RuneError)
		case !m.needs(r):
			b.WriteRune(r)
		case m == Spaces && (r == '\t' || IsLineTerminator(r)):
			b.WriteByte(' ')
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// Escape is Render(s, OneLine): the form of peer text inside an error
// message.
func Escape(s string) string { return Render(s, OneLine) }

// Error returns err with its message rendered by Escape; errors.Is and
// errors.As still see err. nil stays nil, and err is returned as is when
// its message needs no escape.
func Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if safe := Escape(msg); safe != msg {
		return &escapedError{msg: safe, err: err}
	}
	return err
}

// escapedError shows an escaped message and unwraps to the original.
type escapedError struct {
	msg string
	err error
}

func (e *escapedError) Error() string { return e.msg }
func (e *escapedError) Unwrap() error { return e.err }
