package rawjson

import (
	"encoding/json"
	"testing"
)

func TestMembersObjectRoundTrip(t *testing.T) {
	in := `{ "z" : 1.50, "a<&>": {"y":[1, 2],"x":"\u00e9"}, "m":null }`
	ms, err := Members(json.RawMessage(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 3 || ms[0].Key != "z" || ms[1].Key != "a<&>" || ms[2].Key != "m" {
		t.Fatalf("members %+v", ms)
	}
	if string(ms[1].Value) != `{"y":[1, 2],"x":"\u00e9"}` {
		t.Errorf("value bytes changed: %s", ms[1].Value)
	}
	out, err := Object(ms)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"z":1.50,"a<&>":{"y":[1,2],"x":"\u00e9"},"m":null}`; string(out) != want {
		t.Errorf("Object = %s, want %s", out, want)
	}
	if got := Get(ms, "m"); string(got) != "null" {
		t.Errorf("Get = %s", got)
	}
	if Get(ms, "nope") != nil {
		t.Error("Get of a missing key")
	}
}

func TestMembersErrors(t *testing.T) {
	for _, in := range []string{``, `[]`, `"x"`, `{`, `{"a":}`, `{"a":1} {}`, `{"a":1,}`} {
		if ms, err := Members(json.RawMessage(in)); err == nil {
			t.Errorf("Members(%q) = %+v, want an error", in, ms)
		}
	}
	if _, err := Object([]Member{{Key: "a", Value: json.RawMessage(`{`)}}); err == nil {
		t.Error("Object with invalid JSON: no error")
	}
}

func TestKind(t *testing.T) {
	for in, want := range map[string]byte{``: 0, ` {}`: '{', "\n[1]": '[', `true`: 't', `-1`: '-', `"s"`: '"', `null`: 'n'} {
		if got := Kind(json.RawMessage(in)); got != want {
			t.Errorf("Kind(%q) = %q, want %q", in, got, want)
		}
	}
}
