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
