package schema

import (
	"encoding/json"
	"testing"
)

func TestRewriteRefsRoundTrip(t *testing.T) {
	in := `{"$id":"#anchor","properties":{"$ref":{"$ref":"#/$defs/a"},"const":{"$ref":"#"}},"enum":[{"$ref":"#/x"}],"$defs":{"a":{"$id":"https://x.example/a","$ref":"#/b"}},"allOf":[{"$dynamicRef":"#/$defs/a"}]}`
	out, err := RewriteRefs(json.RawMessage(in), Repoint)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"$id":"#anchor","properties":{"$ref":{"$ref":"#/properties/result/$defs/a"},"const":{"$ref":"#/properties/result"}},"enum":[{"$ref":"#/x"}],"$defs":{"a":{"$id":"https://x.example/a","$ref":"#/b"}},"allOf":[{"$dynamicRef":"#/properties/result/$defs/a"}]}`
	if string(out) != want {
		t.Errorf("Repoint:\n got %s\nwant %s", out, want)
	}
	back, err := RewriteRefs(out, Unpoint)
	if err != nil || string(back) != in {
		t.Errorf("Unpoint: %s %v", back, err)
	}
	if Unpoint("#/properties/resultx") != "#/properties/resultx" {
		t.Error("Unpoint rewrote a ref that only shares a prefix")
	}
}

func TestWrapRepointsAndInnerUndoes(t *testing.T) {
	natural := `{"type":"array","items":{"$ref":"#/$defs/row"},"$defs":{"row":{"type":"object"}}}`
	got, err := Wrap(json.RawMessage(natural))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","properties":{"result":{"type":"array","items":{"$ref":"#/properties/result/$defs/row"},"$defs":{"row":{"type":"object"}}}},"required":["result"]}`
	if string(got) != want {
		t.Errorf("Wrap:\n got %s\nwant %s", got, want)
	}
	back, ok := Inner(got)
	if !ok || string(back) != natural {
		t.Errorf("Inner(Wrap(s)) = %s, %v; want %s", back, ok, natural)
	}
}
