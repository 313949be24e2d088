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
