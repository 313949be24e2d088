package golden

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/golden/hostile/hostile"
)

// TestHostileRoundTrip decodes sample instances into the types generated
// for golden/hostile and encodes them back: unions must pick the right
// variant, keep the tag, and the JSON must come back unchanged.
func TestHostileRoundTrip(t *testing.T) {
	for _, in := range []string{
		`{"id":"n1","type":"A"}`,
		`{"id":"n1","type":"a","foo-bar":"x","foo_bar":1.5,"2fa":true,"名前":"名"}`,
		`{"id":"n1","type":"b","range":true}`,
		`{"id":"n1","type":"b","range":"wide"}`,
		`{"id":"n1","type":"b","shape":{"kind":"circle","radius":2}}`,
		`{"id":"n1","type":"b","shape":{"kind":"square","side":3}}`,
		`{"id":"n1","type":"b","maybe":{"street":"Main","next":{"street":"Side"}}}`,
		`{"id":"n1","type":"b","items":[{"content":"c"}],"meta":{"k":[1,2]},"extra":{"a":9007199254740993}}`,
	} {
		var args hostile.ReadNote2Args
		if err := json.Unmarshal([]byte(in), &args); err != nil {
			t.Fatalf("unmarshal %s: %v", in, err)
		}
		out, err := json.Marshal(args)
		if err != nil {
			t.Fatalf("marshal %s: %v", in, err)
		}
		if !jsonEqual(t, in, string(out)) {
			t.Errorf("round trip changed the value:\n in: %s\nout: %s", in, out)
		}
	}
}

func TestHostileUnionsRejectWhatMatchesNoVariant(t *testing.T) {
	for _, in := range []string{
		`{"id":"n1","type":"b","shape":{"kind":"triangle"}}`,
		`{"id":"n1","type":"b","shape":{"radius":1}}`,
		`{"id":"n1","type":"b","range":3}`,
	} {
		var args hostile.ReadNote2Args
		if err := json.Unmarshal([]byte(in), &args); err == nil {
			t.Errorf("unmarshal %s: no error", in)
		}
	}
	var empty hostile.ReadNote2ArgsShape
	if _, err := json.Marshal(empty); err == nil || !strings.Contains(err.Error(), "no variant is set") {
		t.Errorf("marshal of an empty union: %v", err)
	}
}

func TestHostileTaggedUnionWritesItsTag(t *testing.T) {
	s := hostile.ReadNote2ArgsShape{Circle: &hostile.ReadNote2ArgsShapeCircle{Radius: 1}}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"kind":"circle","radius":1}` {
		t.Fatalf("got %s", b)
	}
}

func jsonEqual(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y any
	dec := func(s string, v *any) {
		d := json.NewDecoder(strings.NewReader(s))
		d.UseNumber()
		if err := d.Decode(v); err != nil {
			t.Fatalf("decode %s: %v", s, err)
		}
	}
	dec(a, &x)
	dec(b, &y)
	return reflect.DeepEqual(x, y)
}
