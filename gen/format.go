package gen

import (
	"bytes"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"runtime"
	"sync"
)

// chunkBytes is the source size above which a file is formatted in
// pieces, concurrently.
const chunkBytes = 256 << 10

// formatFile formats one generated file, as gofmt would: src parses once
// (a parse error is a *FormatError with the file's line:column); a large
// file is then cut between top-level declarations that are separated by
// exactly one blank line and not by a free-floating comment, and the
// pieces are printed concurrently. gofmt lays out each top-level
// declaration on its own and keeps one blank line between such
// declarations, so the joined pieces are the bytes of formatting the whole
// file at once (the golden tests compare them).
func formatFile(name string, src []byte) ([]byte, error) {
	return formatInPieces(name, src, chunkBytes)
}

// formatInPieces is formatFile with pieces of about chunk bytes.
func formatInPieces(name string, src []byte, chunk int) ([]byte, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, &FormatError{File: name, Raw: src, Err: err}
	}
	cuts := cutPoints(fset, file, src, chunk)
	if len(cuts) == 0 {
		var out bytes.Buffer
		if err := format.Node(&out, fset, file); err != nil {
			return nil, &FormatError{File: name, Raw: src, Err: err}
		}
		return out.Bytes(), nil
	}
	pieces := make([][]byte, len(cuts)+1)
	errs := make([]error, len(pieces))
	header := []byte("package " + file.Name.Name + "\n\n")
	var wg sync.WaitGroup
	for i := range pieces {
		start, end := 0, len(src)
		if i > 0 {
			start = cuts[i-1]
		}
		if i < len(cuts) {
			end = cuts[i]
		}
		wg.Go(func() {
			if i == 0 {
				pieces[i], errs[i] = format.Source(src[start:end])
				return
			}
			piece := append(append([]byte(nil), header...), src[start:end]...)
			out, err := format.Source(piece)
			pieces[i], errs[i] = bytes.TrimPrefix(out, header), err
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, &FormatError{File: name, Raw: src, Err: err}
		}
	}
	return bytes.Join(pieces, []byte("\n")), nil
}

// cutPoints returns the byte offsets at which src may be cut into pieces of
// about chunk bytes (none for a small file): the start of a top-level
// declaration (or of its doc comment) that follows exactly one blank line,
// with no other comment since the previous declaration.
func cutPoints(fset *token.FileSet, file *ast.File, src []byte, chunk int) []int {
	if len(src) < 2*chunk {
		return nil
	}
	n := max(2, min(runtime.GOMAXPROCS(0)*2, len(src)/chunk))
	target := len(src) / n
	var cuts []int
	last := 0
	ci := 0 // next comment group to consider
	tf := fset.File(file.Pos())
	for i := 1; i < len(file.Decls); i++ {
		prevEnd := file.Decls[i-1].End()
		start := file.Decls[i].Pos()
		if doc := declDoc(file.Decls[i]); doc != nil {
			start = doc.Pos()
		}
		// Skip boundaries with a free-floating comment in between.
		for ci < len(file.Comments) && file.Comments[ci].End() <= prevEnd {
			ci++
		}
		if ci < len(file.Comments) && file.Comments[ci].Pos() < start {
			continue
		}
		off := tf.Offset(start)
		if off-last < target || off < 3 || src[off-1] != '\n' || src[off-2] != '\n' || src[off-3] == '\n' {
			continue
		}
		if !onlySpace(src[tf.Offset(prevEnd):off]) {
			continue
		}
		cuts = append(cuts, off)
		last = off
	}
	return cuts
}

// declDoc returns the doc comment of a top-level declaration.
func declDoc(d ast.Decl) *ast.CommentGroup {
	switch d := d.(type) {
	case *ast.GenDecl:
		return d.Doc
	case *ast.FuncDecl:
		return d.Doc
	}
	return nil
}

func onlySpace(b []byte) bool {
	return len(bytes.TrimLeft(b, " \t\n")) == 0
}
