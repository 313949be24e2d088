package composition

import (
	"bytes"
	"encoding/json"
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

// splitObject appends the members of the JSON object data to buf; ok is
// false when data is not an object.
func splitObject(data []byte, buf []member) ([]member, bool) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil, false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return buf, true
	}
	for i < len(data) {
		end := skipString(data, i)
		name := data[i+1 : end-1]
		i = skipSpace(data, end)
		i = skipSpace(data, i+1) // ':'
		vend := skipValue(data, i)
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
func splitArray(data []byte, buf [][]byte) ([][]byte, bool) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '[' {
		return nil, false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return buf, true
	}
	for i < len(data) {
		end := skipValue(data, i)
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

// skipString returns the index after the string that starts at data[i].
func skipString(data []byte, i int) int {
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

// skipValue returns the index after the value that starts at data[i].
func skipValue(data []byte, i int) int {
	if i >= len(data) {
		return i
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				j = skipString(data, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
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
