package composition

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// TestHeldWriterSplit: heldWriter replaces its store's placeholders by the
// held bytes however the body is cut into Write calls (a placeholder split
// anywhere, even byte by byte), and writes as they are a placeholder of
// another token, one whose number is not held, one with too many digits,
// and a tail that only begins like a placeholder.
func TestHeldWriterSplit(t *testing.T) {
	h := newHeldBytes(nil)
	p0, _ := h.hold([]byte(`{"type":"text","text":"a \"quoted\" <b>"}`))
	p1, _ := h.hold([]byte(`{"blob":[1,2,3]}`))
	token := string(h.needle[1:])
	forged := `"` + heldPrefix + "0123456789abcdef0123456789abcdef-0" + `"`
	body := `{"content":[` + string(p0) + `,` + string(p0) + `],"structuredContent":` + string(p1) +
		`,"x":[` + forged + `,"` + token + `7","` + token + `123456789012345678901","` + token + `"],"end":"` + token[:5]
	want := strings.NewReplacer(string(p0), `{"type":"text","text":"a \"quoted\" <b>"}`, string(p1), `{"blob":[1,2,3]}`).Replace(body)
	if want == body {
		t.Fatal("nothing to replace")
	}
	write := func(parts ...string) string {
		rec := httptest.NewRecorder()
		hw := &heldWriter{w: rec, held: h}
		for _, p := range parts {
			if n, err := hw.Write([]byte(p)); err != nil || n != len(p) {
				t.Fatalf("Write(%q) = %d, %v", p, n, err)
			}
		}
		if err := hw.end(); err != nil {
			t.Fatal(err)
		}
		return rec.Body.String()
	}
	if got := write(body); got != want {
		t.Fatalf("one Write:\n got %s\nwant %s", got, want)
	}
	for i := range len(body) + 1 {
		for _, j := range []int{i, i + 1, i + 7, i + 40, i + 90} {
			j = min(j, len(body))
			if got := write(body[:i], body[i:j], body[j:]); got != want {
				t.Fatalf("split at %d and %d:\n got %s\nwant %s", i, j, got, want)
			}
		}
	}
	bytewise := make([]string, len(body))
	for i := range body {
		bytewise[i] = body[i : i+1]
	}
	if got := write(bytewise...); got != want {
		t.Fatalf("byte by byte:\n got %s\nwant %s", got, want)
	}
}

// TestHeldBytesRelease: once the request has ended, nothing is held (a
// late handler's result is marshalled as it is) and nothing is replaced.
func TestHeldBytesRelease(t *testing.T) {
	h := newHeldBytes(nil)
	p, ok := h.hold([]byte(`1`))
	if !ok {
		t.Fatal("hold refused before release")
	}
	h.release()
	if _, ok := h.hold([]byte(`2`)); ok {
		t.Error("hold accepted after release")
	}
	rec := httptest.NewRecorder()
	hw := &heldWriter{w: rec, held: h}
	if _, err := hw.Write(p); err != nil {
		t.Fatal(err)
	}
	if err := hw.end(); err != nil {
		t.Fatal(err)
	}
	if got := rec.Body.String(); got != string(p) {
		t.Errorf("after release wrote %s, want the placeholder %s as it is", got, p)
	}
}
