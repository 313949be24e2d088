package bindimpl

import (
	"bytes"
	"encoding/json"

	"github.com/mcpbind/mcpbind/internal/jsonscan"
)

// member is one member of a JSON object: its name as written (without the
// quotes, escapes not yet resolved) and its value, both slices of the
// object's text.
type member struct {
	name, value []byte
}

// key returns the member's name with escapes resolved; it allocates only
// for a name that has escapes.
func (m member) key() (string, bool) {
	if bytes.IndexByte(m.name, '\\') < 0 {
		return string(m.name), true
	}
	var s string
	err := json.Unmarshal(append(append([]byte{'"'}, m.name...), '"'), &s)
	return s, err == nil
}

// The splitters below read JSON text that json.Valid accepted (Types.Unmarshal
// checks the whole input once), so they only find the boundaries of the
// members and items, without allocating for each one as decoding into a
// map[string]json.RawMessage or []json.RawMessage would.
//
// Each level of a nested value splits its own object or array, so without
// help a value d levels deep would be scanned d times (O(depth²)): the
// first scan of a large container records where the large containers
// inside it end (spans), and the deeper levels look their ends up.

// spanMin is the size in bytes from which a container's end is recorded:
// a smaller one is cheaper to scan again than to record.
const spanMin = 512

// spans records where the large containers of one JSON text end, as they
// are first scanned. Offsets count from the start of the text, found from
// a slice of it by its capacity (every slice the decoder reads is a
// reslice of the text, which keeps cap(text)-cap(slice) its offset). A nil
// *spans records nothing.
type spans struct {
	textCap int         // cap of the whole text
	ends    map[int]int // offset of a '{' or '[' → offset after its match
}

// newSpans returns the spans of text, or nil when text is too short to
// hold a container worth recording.
func newSpans(text []byte) *spans {
	if len(text) < spanMin {
		return nil
	}
	return &spans{textCap: cap(text)}
}

// end returns the index in data after the container that starts at
// data[i], when it is recorded (and within data).
func (x *spans) end(data []byte, i int) (int, bool) {
	if x == nil || x.ends == nil {
		return 0, false
	}
	base := x.textCap - cap(data)
	e, ok := x.ends[base+i]
	if !ok || e-base <= i || e-base > len(data) {
		return 0, false
	}
	return e - base, true
}

// record notes that the container at data[open] ends before data[end].
func (x *spans) record(data []byte, open, end int) {
	if x.ends == nil {
		x.ends = map[int]int{}
	}
	base := x.textCap - cap(data)
	x.ends[base+open] = base + end
}

// splitObject appends the members of the JSON object data to buf; ok is
// false when data is not an object.
func splitObject(data []byte, buf []member, x *spans) ([]member, bool) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil, false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return buf, true
	}
	for i < len(data) {
		end := jsonscan.StringEnd(data, i)
		name := data[i+1 : end-1]
		i = skipSpace(data, end)
		i = skipSpace(data, i+1) // ':'
		vend := skipValue(data, i, x)
		buf = append(buf, member{name: name, value: data[i:vend]})
		i = skipSpace(data, vend)
		if i >= len(data) || data[i] == '}' {
			break
		}
		i = skipSpace(data, i+1) // ','
	}
	return buf, true
}

// splitArray appends the items of the JSON array data to buf; ok is false
// when data is not an array.
func splitArray(data []byte, buf [][]byte, x *spans) ([][]byte, bool) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '[' {
		return nil, false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return buf, true
	}
	for i < len(data) {
		end := skipValue(data, i, x)
		buf = append(buf, data[i:end])
		i = skipSpace(data, end)
		if i >= len(data) || data[i] == ']' {
			break
		}
		i = skipSpace(data, i+1)
	}
	return buf, true
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index after the value that starts at data[i]. A
// container recorded in x is not scanned again; scanning one records the
// large containers inside it.
func skipValue(data []byte, i int, x *spans) int {
	if i >= len(data) {
		return i
	}
	switch data[i] {
	case '"':
		return jsonscan.StringEnd(data, i)
	case '{', '[':
		if e, ok := x.end(data, i); ok {
			return e
		}
		var stack [32]int
		opens := stack[:0] // where the open containers start (when x records)
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				j = jsonscan.StringEnd(data, j) - 1
			case '{', '[':
				depth++
				if x != nil {
					opens = append(opens, j)
				}
			case '}', ']':
				depth--
				if x != nil {
					open := opens[len(opens)-1]
					opens = opens[:len(opens)-1]
					if j+1-open >= spanMin {
						x.record(data, open, j+1)
					}
				}
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(data)
	}
	j := i
	for j < len(data) && data[j] != ',' && data[j] != '}' && data[j] != ']' && data[j] != ' ' && data[j] != '\t' && data[j] != '\n' && data[j] != '\r' {
		j++
	}
	return j
}
