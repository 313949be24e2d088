package composition

import (
	"encoding/json"
	"testing"
	"unsafe"
)

// TestDecodeResultNoCopy: a result a Session received is held once: its
// blocks' Raw, StructuredContent and Meta are slices of the received bytes
// (issue 16: a large result cost 9× its size), and the decoded fields are
// what Content.UnmarshalJSON gives.
func TestDecodeResultNoCopy(t *testing.T) {
	raw := json.RawMessage(`{"content":[{"type":"text","text":"hé\n","annotations":{}},{"type":"image","data":"AA==","mimeType":"image/png"},{"type":"resource","resource":{"uri":"x"}}],"structuredContent":{"a":[1,2]},"isError":true,"_meta":{"k":"v"}}`)
	res, err := decodeResult(raw)
	if err != nil {
		t.Fatal(err)
	}
	inside := func(what string, b []byte) {
		t.Helper()
		start, end := uintptr(unsafe.Pointer(&raw[0])), uintptr(unsafe.Pointer(&raw[0]))+uintptr(len(raw))
		if p := uintptr(unsafe.Pointer(&b[0])); p < start || p >= end {
			t.Errorf("%s is a copy", what)
		}
	}
	for i, c := range res.Content {
		inside("Content["+string(rune('0'+i))+"].Raw", c.Raw)
	}
	inside("StructuredContent", res.StructuredContent)
	inside("Meta", res.Meta)
	var want Result
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(res)
	exp, _ := json.Marshal(want)
	if string(got) != string(exp) || res.Content[0].Text != "hé\n" || res.Content[1].Data != "AA==" || string(res.Content[2].Resource) != `{"uri":"x"}` || !res.IsError {
		t.Errorf("decodeResult = %s\nencoding/json gives %s", got, exp)
	}
	for _, bad := range []string{`[]`, `null`, `{"content":[null]}`, `{"content":[1]}`, `{"isError":"yes"}`} {
		if _, err := decodeResult(json.RawMessage(bad)); err == nil {
			t.Errorf("decodeResult(%s) did not fail", bad)
		}
	}
}
