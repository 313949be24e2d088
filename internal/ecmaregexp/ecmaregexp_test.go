package ecmaregexp

import "testing"

func TestECMAPatternsGoCannotCompile(t *testing.T) {
	for _, tc := range []struct {
		pattern, in string
		match       bool
	}{
		{`^(?!admin$)[a-z]+$`, "alice", true}, // negative lookahead
		{`^(?!admin$)[a-z]+$`, "admin", false},
		{`^(a)\1$`, "aa", true}, // backreference
		{`^\cC$`, "\u0003", true},
	} {
		re, err := Compile(tc.pattern)
		if err != nil {
			t.Fatalf("%s: %v", tc.pattern, err)
		}
		if got := re.MatchString(tc.in); got != tc.match {
			t.Errorf("%s on %q = %v, want %v", tc.pattern, tc.in, got, tc.match)
		}
	}
	if _, err := Compile(`(`); err == nil {
		t.Error("an invalid pattern compiled")
	}
}
