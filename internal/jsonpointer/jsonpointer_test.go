package jsonpointer

import (
	"slices"
	"testing"
)

func TestEscapeRoundTrip(t *testing.T) {
	for _, tc := range []struct{ token, escaped string }{
		{"a", "a"}, {"a/b", "a~1b"}, {"m~n", "m~0n"}, {"~1", "~01"}, {"/~", "~1~0"}, {"", ""},
	} {
		if got := Escape(tc.token); got != tc.escaped {
			t.Errorf("Escape(%q) = %q, want %q", tc.token, got, tc.escaped)
		}
		if got := Unescape(tc.escaped); got != tc.token {
			t.Errorf("Unescape(%q) = %q, want %q", tc.escaped, got, tc.token)
		}
	}
}

func TestAppendSplit(t *testing.T) {
	ptr := Append("/properties", "a/b", "~x", "0")
	if ptr != "/properties/a~1b/~0x/0" {
		t.Fatalf("Append = %q", ptr)
	}
	toks, ok := Split(ptr)
	if !ok || !slices.Equal(toks, []string{"properties", "a/b", "~x", "0"}) {
		t.Fatalf("Split(%q) = %q, %v", ptr, toks, ok)
	}
	if toks, ok := Split(""); !ok || len(toks) != 0 {
		t.Fatalf("Split(\"\") = %q, %v", toks, ok)
	}
	if _, ok := Split("a/b"); ok {
		t.Fatal("Split accepted a pointer without a leading /")
	}
}

// TestUnder: a pointer below another, by whole tokens, and its rest
// appended to the base gives it back.
func TestUnder(t *testing.T) {
	for _, c := range []struct {
		ptr, base, rest string
		ok              bool
	}{
		{"/properties/b/properties/a", "/properties/b", "/properties/a", true},
		{"/properties/a", "", "/properties/a", true},
		{"/properties/bc", "/properties/b", "", false},
		{"/properties/b", "/properties/b", "", false},
		{"/properties", "/properties/b", "", false},
		{"/a~1b/c", "/a~1b", "/c", true},
		{"/a~1b/c", "/a", "", false},
	} {
		rest, ok := Under(c.ptr, c.base)
		if rest != c.rest || ok != c.ok {
			t.Errorf("Under(%q, %q) = %q, %v; want %q, %v", c.ptr, c.base, rest, ok, c.rest, c.ok)
		}
		if ok && c.base+rest != c.ptr {
			t.Errorf("%q + %q is not %q", c.base, rest, c.ptr)
		}
	}
}
