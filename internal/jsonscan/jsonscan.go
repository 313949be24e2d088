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
