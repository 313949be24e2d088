// Package jsonscan walks the bytes of valid JSON text that lie outside
// strings, for linear one-pass measurements (nesting depth, member count)
// that need no decoding.
package jsonscan

// Outside calls fn with each byte of valid JSON data that is not inside a
// string literal (quotes excluded), in order, until fn returns false.
func Outside(data []byte, fn func(c byte) bool) {
	inString, escaped := false, false
	for _, c := range data {
		switch {
		case escaped:
			escaped = false
		case inString:
			switch c {
			case '\\':
				escaped = true
			case '"':
				inString = false
			}
		case c == '"':
			inString = true
		default:
			if !fn(c) {
				return
			}
		}
	}
}

// StringEnd returns the index just after the string literal of valid JSON
// data that starts at data[i] (a '"'), or len(data) when it is not closed.
func StringEnd(data []byte, i int) int {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(data)
}
