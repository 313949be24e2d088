package bindimpl

import "bytes"

// abbreviateJSON returns the start of the JSON text b for an error message.
func abbreviateJSON(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	if len(b) == 0 {
		return "nothing"
	}
	return string(b)
}
