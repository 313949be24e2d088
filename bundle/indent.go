package bundle

import (
	"bytes"

	"github.com/mcpbind/mcpbind/internal/jsonscan"
)

// MaxIndentDepth is how many levels of a bundle are indented. A value
// nested deeper is written compact, on the line of its key: two spaces a
// level would make a bundle's size grow with the square of a schema's
// depth (a schema nested 1,000 deep, 100 KB as a server sends it, took
// 16 MB indented), and 32 levels are deeper than any real tool in the
// golden bundles (23 at most), whose bytes do not change.
const MaxIndentDepth = 32

// indent appends to dst the compact JSON src as json.Indent(dst, src, "",
// "  ") would write it, except that a value opened at depth MaxIndentDepth
// is copied compact. src must be valid compact JSON (what encoding/json
// writes); the output has the same tokens, so it decodes to the same value.
// Time and memory are linear in len(src).
func indent(dst, src []byte) []byte {
	depth := 0
	newline := func(d int) {
		dst = append(dst, '\n')
		for range d {
			dst = append(dst, ' ', ' ')
		}
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch c {
		case '"':
			end := jsonscan.StringEnd(src, i)
			dst = append(dst, src[i:end]...)
			i = end - 1
		case '{', '[':
			if depth == MaxIndentDepth {
				end := valueEnd(src, i)
				dst = append(dst, src[i:end]...)
				i = end - 1
				continue
			}
			dst = append(dst, c)
			if i+1 < len(src) && (src[i+1] == '}' || src[i+1] == ']') {
				dst = append(dst, src[i+1])
				i++
				continue
			}
			depth++
			newline(depth)
		case '}', ']':
			depth--
			newline(depth)
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			newline(depth)
		case ':':
			dst = append(dst, ':', ' ')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// valueEnd returns the index just after the object or array that starts at
// src[i].
func valueEnd(src []byte, i int) int {
	depth := 0
	for j := i; j < len(src); j++ {
		switch src[j] {
		case '"':
			j = jsonscan.StringEnd(src, j) - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return len(src)
}

// indentJSON is indent over a whole document with a final newline, as
// json.Encoder writes one.
func indentJSON(compact []byte) []byte {
	out := indent(make([]byte, 0, len(compact)+len(compact)/2), bytes.TrimSuffix(compact, []byte("\n")))
	return append(out, '\n')
}
