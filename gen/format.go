package gen

import (
	"bytes"
	"errors"
	"go/format"
	"go/parser"
	"go/token"
	"runtime"
	"slices"
	"sync"
)

// chunkBytes is the size of the pieces a large file is formatted in,
// concurrently; files under twice this size are formatted whole.
const chunkBytes = 256 << 10

// formatFile formats one generated file, as gofmt would. A large file
// is cut between top-level declarations that are separated by exactly one
// blank line and the pieces are formatted concurrently: gofmt lays out
// each top-level declaration on its own and keeps one blank line between
// such declarations, so the joined pieces are the bytes of formatting the
// whole file at once (the golden tests and TestFormatInPiecesMatchesWhole
// compare them). Cuts are found in the text, without parsing the whole
// file (which would hold its whole syntax tree in memory); a cut that is
// not between top-level declarations leaves a piece that does not parse
// (an unclosed brace, parenthesis, string or comment), and then the file
// is formatted whole, which also locates a real syntax error as
// file:line:column.
func formatFile(name string, src []byte) ([]byte, error) {
	return formatInPieces(name, src, chunkBytes)
}

// formatInPieces is formatFile with pieces of about chunk bytes.
func formatInPieces(name string, src []byte, chunk int) ([]byte, error) {
	if header, cuts := cutPoints(src, chunk); len(cuts) > 0 {
		if out, ok := formatPieces(src, header, cuts); ok {
			return out, nil
		}
	}
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, &FormatError{File: name, Raw: src, Err: err}
	}
	var out bytes.Buffer
	if err := format.Node(&out, fset, file); err != nil {
		return nil, &FormatError{File: name, Raw: src, Err: err}
	}
	return out.Bytes(), nil
}

// formatPieces formats src cut at cuts, concurrently; ok is false when a
// piece does not format. Every piece but the first is formatted as a file
// with header, the package clause, which is then dropped again.
func formatPieces(src, header []byte, cuts []int) ([]byte, bool) {
	pieces := make([][]byte, len(cuts)+1)
	errs := make([]error, len(pieces))
	// At most GOMAXPROCS pieces at once: each holds its syntax tree while
	// it prints, so memory stays proportional to the piece size.
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i := range pieces {
		start, end := 0, len(src)
		if i > 0 {
			start = cuts[i-1]
		}
		if i < len(cuts) {
			end = cuts[i]
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if i == 0 {
				pieces[i], errs[i] = format.Source(src[start:end])
				return
			}
			piece := append(slices.Clip(header), src[start:end]...)
			out, err := format.Source(piece)
			pieces[i], errs[i] = bytes.TrimPrefix(out, header), err
		})
	}
	wg.Wait()
	if errors.Join(errs...) != nil {
		return nil, false
	}
	return bytes.Join(pieces, []byte("\n")), true
}

// cutPoints returns the package clause of src ("package p\n\n") and the
// byte offsets after it at which src may be cut into pieces of about chunk
// bytes (none for a small file): the start of a line that begins a
// top-level declaration or a comment ("func ", "type ", "var ", "const ",
// "//") after exactly one blank line.
func cutPoints(src []byte, chunk int) (header []byte, cuts []int) {
	if len(src) < 2*chunk {
		return nil, nil
	}
	pos := 0
	for line := range bytes.Lines(src) {
		pos += len(line)
		if bytes.HasPrefix(line, []byte("package ")) {
			header = append(bytes.TrimSpace(line), "\n\n"...)
			break
		}
	}
	if header == nil {
		return nil, nil
	}
	target := chunk
	last := 0
	for off := max(pos, target); off < len(src); {
		i := bytes.Index(src[off:], []byte("\n\n"))
		if i < 0 {
			break
		}
		at := off + i + 2
		off = at
		if at >= len(src) || src[at-3] == '\n' || at-last < target {
			continue
		}
		line := src[at:]
		if !bytes.HasPrefix(line, []byte("func ")) && !bytes.HasPrefix(line, []byte("type ")) && !bytes.HasPrefix(line, []byte("var ")) &&
			!bytes.HasPrefix(line, []byte("const ")) && !bytes.HasPrefix(line, []byte("//")) {
			continue
		}
		cuts = append(cuts, at)
		last = at
		off = at + target/2
	}
	return header, cuts
}
