package gen

import (
	"bytes"
	"go/scanner"
	"go/token"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxLineColumns is the width, in columns with a tab counted as 8 (gofmt's
// tab width), that no line of generated code exceeds because of a string
// literal: wrapLiterals splits a long literal ("{…}") into a concatenation
// of pieces ("{…" +, "…}") on lines of their own, which is the same Go
// constant, so a regenerated schema or tool shows up in a diff as the lines
// that changed. A comment line may still be longer (the comment renderer
// keeps a description's line as the server wrote it).
const MaxLineColumns = 200

// wrapTarget is the width the pieces are cut at: below MaxLineColumns, so
// that what follows a literal's last piece on its line (", h.Method),")
// still fits.
const wrapTarget = MaxLineColumns - 30

// tabColumns is the width of a tab.
const tabColumns = 8

// minPiece is the narrowest piece a literal is cut into, in columns.
const minPiece = 40

// minSplit is the shortest literal worth splitting, in columns; a shorter
// one of at least minPiece columns that does not fit moves to the next
// line where the line may break there (after "(", ",", "+" or "{"), and
// a line long only because of short literals after keys (a digest, a
// schema key in client.go's descriptors) is left alone.
const minSplit = 100

// wrapLiterals returns src, a formatted Go file, with every string literal
// that makes its line longer than MaxLineColumns split into pieces of at
// most wrapTarget columns, and formatted again. changed is false when no
// literal needed it (src is returned as it was).
func wrapLiterals(name string, src []byte) (out []byte, changed bool, err error) {
	var b bytes.Buffer
	for line := range bytes.Lines(src) {
		if columns(line) <= MaxLineColumns {
			b.Write(line)
			continue
		}
		w, ok := wrapLine(line)
		if ok {
			changed = true
		}
		b.Write(w)
	}
	if !changed {
		return src, false, nil
	}
	out, err = formatFile(name, b.Bytes())
	return out, true, err
}

// columns is the width of line, a tab counted as tabColumns.
func columns(line []byte) int {
	n := 0
	for _, r := range string(bytes.TrimRight(line, "\n")) {
		if r == '\t' {
			n += tabColumns - n%tabColumns
		} else {
			n++
		}
	}
	return n
}

// wrapLine splits the long string literals of one line (which ends in
// "\n"); ok is false when it has none. A piece after the first goes on its
// own line, one tab deeper than the line, where gofmt puts it; so does a
// literal's first piece when the line has no room left for it.
func wrapLine(line []byte) ([]byte, bool) {
	indent := len(line) - len(bytes.TrimLeft(line, "\t"))
	contCol := (indent + 1) * tabColumns
	cont := "\n" + strings.Repeat("\t", indent+1)
	type literal struct {
		off int
		lit string
	}
	var lits []literal
	fset := token.NewFileSet()
	var s scanner.Scanner
	s.Init(fset.AddFile("", -1, len(line)), line, nil, 0)
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.STRING && lit[0] == '"' && len(lit) >= minPiece {
			lits = append(lits, literal{fset.Position(pos).Offset, lit})
		}
	}
	var b bytes.Buffer
	last, col, ok := 0, 0, false
	for i, l := range lits {
		v, err := strconv.Unquote(l.lit)
		if err != nil {
			continue
		}
		between := line[last:l.off]
		b.Write(between)
		col += columns(between)
		if wrapTarget-col < minPiece && breakable(b.Bytes()) && len(l.lit) >= minSplit {
			b.WriteString(cont)
			col = contCol
			ok = true
		}
		last = l.off + len(l.lit)
		if len(l.lit) < minSplit {
			// Too short to cut: moved to the next line when it does
			// not fit (and the line may break there).
			if col+len(l.lit) > wrapTarget && col > contCol && breakable(b.Bytes()) {
				b.WriteString(cont)
				col = contCol
				ok = true
			}
			b.WriteString(l.lit)
			col += len(l.lit)
			continue
		}
		// What follows the literal on its last line, up to the next
		// literal or the end of the line.
		next := len(bytes.TrimRight(line, "\n"))
		if i+1 < len(lits) {
			next = lits[i+1].off
		}
		reserve := columns(line[last:next])
		if i+1 < len(lits) && !breakable(line[:next]) {
			// The next literal's first piece stays on this line (gofmt
			// joins "key":\n"value"): leave it room.
			reserve += minPiece + 2
		}
		pieces := cutQuoted(v, wrapTarget-col, wrapTarget-contCol, reserve)
		if len(pieces) > 1 {
			ok = true
			col = contCol
		}
		b.WriteString(strings.Join(pieces, " +"+cont))
		col += len(pieces[len(pieces)-1])
	}
	b.Write(line[last:])
	return b.Bytes(), ok
}

// breakable reports whether a line break may follow src without Go
// inserting a semicolon and where gofmt keeps it: src ends in "(", ",",
// "+" or "{", maybe followed by spaces (not ":": gofmt puts a map value
// back on its key's line).
func breakable(src []byte) bool {
	src = bytes.TrimRight(src, " ")
	return len(src) > 0 && strings.IndexByte("(,+{", src[len(src)-1]) >= 0
}

// cutQuoted cuts v into pieces, returned quoted (strconv.Quote), whose
// quoted forms are at most first columns wide for the first piece and
// width for the others, the last one leaving reserve columns for what
// follows it on its line. A piece ends after a "," when one is in its last
// third, so that a JSON document breaks between members; no cut splits a
// rune or an escape, so the pieces concatenate to v.
func cutQuoted(v string, first, width, reserve int) []string {
	first = max(first, minPiece)
	pieces := cutGreedy(v, first, width)
	limit := first
	if len(pieces) > 1 {
		limit = width
	}
	last := pieces[len(pieces)-1]
	if len(last)+reserve > limit && limit-reserve >= minPiece {
		raw, _ := strconv.Unquote(last)
		pieces = append(pieces[:len(pieces)-1], cutGreedy(raw, limit-reserve, width-reserve)...)
	}
	return pieces
}

// cutGreedy cuts v into pieces of at most first columns quoted, then
// width columns.
func cutGreedy(v string, first, width int) []string {
	var pieces []string
	limit := first - 2 // the quotes
	start, w, comma := 0, 0, -1
	for i := 0; i < len(v); {
		r, size := utf8.DecodeRuneInString(v[i:])
		rw := len(strconv.Quote(v[i:i+size])) - 2
		if w+rw > limit && i > start {
			end := i
			if comma > start && comma-start > 2*(i-start)/3 {
				end = comma
			}
			pieces = append(pieces, strconv.Quote(v[start:end]))
			start, comma, limit, w, i = end, -1, width-2, 0, end
			continue
		}
		w += rw
		i += size
		if r == ',' {
			comma = i
		}
	}
	return append(pieces, strconv.Quote(v[start:]))
}
