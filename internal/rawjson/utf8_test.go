package rawjson

import (
	"encoding/json"
	"testing"
)

func TestInvalidUTF8(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want string
		bad  bool
	}{
		{`{"name":"ok","d":"é"}`, "", false},
		{"{\"name\":\"ca\xffll\"}", "/name", true},
		{"{\"name\":\"a\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"o\xc3k\":{\"type\":\"string\"}}}}", "/inputSchema/properties/o\uFFFDk", true},
		{"{\"a\":[1,{\"b\":[\"x\",\"\xfe\"]}]}", "/a/1/b/1", true},
		{"{\"a\":{},\"b/c\":[],\"d\":{\"e~\":\"\xff\"}}", "/d/e~0", true},
		{"[\"ok\",\"\xff\"]", "/1", true},
	} {
		got, bad := InvalidUTF8(json.RawMessage(c.raw))
		if got != c.want || bad != c.bad {
			t.Errorf("InvalidUTF8(%q) = %q, %v; want %q, %v", c.raw, got, bad, c.want, c.bad)
		}
	}
}

// TestValidUTF8: each invalid byte becomes U+FFFD, as encoding/json decodes
// it in a string; valid input is returned without a copy.
func TestValidUTF8(t *testing.T) {
	for _, in := range []string{"{\"s\":\"a\xffb\"}", "[\"\xed\xa0\x80\"]", "{\"\xc3\":\"\xe2\x82\"}", `{"ok":"é€😀"}`} {
		out := ValidUTF8([]byte(in))
		var want, got any
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%q: %v", out, err)
		}
		wb, _ := json.Marshal(want)
		gb, _ := json.Marshal(got)
		if string(wb) != string(gb) {
			t.Errorf("ValidUTF8(%q) = %q, decodes to %s; encoding/json decodes the input to %s", in, out, gb, wb)
		}
	}
	valid := []byte(`{"a":"b"}`)
	if out := ValidUTF8(valid); &out[0] != &valid[0] {
		t.Error("valid input was copied")
	}
}
