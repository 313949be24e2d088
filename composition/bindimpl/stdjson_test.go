package bindimpl_test

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/composition/bindimpl"
)

// deepNode and deepKids are shaped like generated types of a recursive
// schema: a closed object with a required property, and a named slice of
// it, with the one-line MarshalJSON and UnmarshalJSON that types.tmpl
// writes. UnmarshalJSON and MarshalJSON fail when they find themselves on
// the stack already: the runtime must decode and encode the nested values
// itself, not hand them back to encoding/json once per level (a loop, or
// O(depth²) work for a deep value).
type (
	deepNode struct {
		Name string    `json:"name"`
		Next *deepNode `json:"next,omitzero"`
		Kids deepKids  `json:"kids,omitzero"`
	}
	deepKids []deepNode
)

var deepTypes = bindimpl.NewTypes(nil,
	bindimpl.Describe[deepNode](bindimpl.TypeInfo{Required: []string{"name"}, Closed: true}),
	bindimpl.Describe[deepKids](bindimpl.TypeInfo{}),
)

func (v deepNode) MarshalJSON() ([]byte, error) {
	if n := framesOf("deepNode).MarshalJSON"); n > 1 {
		return nil, fmt.Errorf("deepNode.MarshalJSON re-entered (%d on the stack)", n)
	}
	return deepTypes.Marshal(v)
}

func (v *deepNode) UnmarshalJSON(data []byte) error {
	if n := framesOf("deepNode).UnmarshalJSON"); n > 1 {
		return fmt.Errorf("deepNode.UnmarshalJSON re-entered (%d on the stack)", n)
	}
	return deepTypes.Unmarshal(data, v)
}

// framesOf counts the frames of the calling goroutine's stack whose
// function name ends with suffix.
func framesOf(suffix string) int {
	pcs := make([]uintptr, 4096)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(1, pcs)])
	n := 0
	for {
		f, more := frames.Next()
		if strings.HasSuffix(f.Function, suffix) {
			n++
		}
		if !more {
			return n
		}
	}
}

// deepJSON returns a deepNode value depth levels deep, alternating the
// pointer field and the named slice, with leaf as the innermost object.
func deepJSON(depth int, leaf string) string {
	var b strings.Builder
	for i := range depth {
		if i%2 == 0 {
			fmt.Fprintf(&b, `{"name":"n%d","next":`, i)
		} else {
			fmt.Fprintf(&b, `{"name":"n%d","kids":[`, i)
		}
	}
	b.WriteString(leaf)
	for i := depth - 1; i >= 0; i-- {
		if i%2 == 0 {
			b.WriteString(`}`)
		} else {
			b.WriteString(`]}`)
		}
	}
	return b.String()
}

// userHolder is a user's struct holding a generated value.
type userHolder struct {
	ID   int      `json:"id"`
	Tree deepNode `json:"tree"`
}

// TestStdJSONDecodesOnceAtTheTop: json.Unmarshal and json.Marshal of a
// value 200 levels deep, alone and inside a user's struct, apply the rules
// at every level (a missing required property or a property the closed
// object does not allow, at the deepest level, is an error) while the
// methods run once, at the top.
func TestStdJSONDecodesOnceAtTheTop(t *testing.T) {
	const depth = 200
	in := deepJSON(depth, `{"name":"leaf"}`)
	var v deepNode
	if err := json.Unmarshal([]byte(in), &v); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(v)
	if err != nil || string(out) != in {
		t.Fatalf("json.Marshal: %v\n in: %.80s…\nout: %.80s…", err, in, out)
	}
	var h userHolder
	doc := `{"id":1,"tree":` + in + `}`
	if err := json.Unmarshal([]byte(doc), &h); err != nil {
		t.Fatal(err)
	}
	if out, err := json.Marshal(h); err != nil || string(out) != doc {
		t.Fatalf("json.Marshal of the user struct: %v\n in: %.80s…\nout: %.80s…", err, doc, out)
	}
	for leaf, want := range map[string]string{
		`{}`:                     `missing required property "name"`,
		`{"Name":"leaf"}`:        `missing required property "name"`,
		`{"name":"x","Next":{}}`: `property "Next" is not allowed`,
	} {
		bad := `{"id":1,"tree":` + deepJSON(depth, leaf) + `}`
		if err := json.Unmarshal([]byte(bad), &h); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("leaf %s: json.Unmarshal gave %v, want an error saying %s", leaf, err, want)
		}
	}
}

// BenchmarkStdJSONDepth measures json.Unmarshal and json.Marshal of a
// generated-like value 100 and 400 levels deep, and the package's
// Unmarshal for comparison: time per level should stay flat.
func BenchmarkStdJSONDepth(b *testing.B) {
	for _, depth := range []int{100, 400} {
		in := []byte(deepJSON(depth, `{"name":"leaf"}`))
		var v deepNode
		b.Run(fmt.Sprintf("json.Unmarshal/%d", depth), func(b *testing.B) {
			for b.Loop() {
				if err := json.Unmarshal(in, &v); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(depth), "ns/level")
		})
		b.Run(fmt.Sprintf("Types.Unmarshal/%d", depth), func(b *testing.B) {
			for b.Loop() {
				if err := deepTypes.Unmarshal(in, &v); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(depth), "ns/level")
		})
		b.Run(fmt.Sprintf("json.Marshal/%d", depth), func(b *testing.B) {
			for b.Loop() {
				if _, err := json.Marshal(v); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(depth), "ns/level")
		})
	}
}
