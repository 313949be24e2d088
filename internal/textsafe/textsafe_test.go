package textsafe

import (
	"errors"
	"io"
	"testing"
)

// TestRender covers each class of character in each mode.
func TestRender(t *testing.T) {
	const in = "a\tb\nc\rd\x1b[31me\x07f\x00g\x7fh\u0085i\u009bj\u202ek\u2028l\u2029m\u2066n\ufefföp\xffq"
	for _, tc := range []struct {
		mode Mode
		want string
	}{
		{OneLine, `a\tb\nc\rd\u001b[31me\u0007f\u0000g\u007fh\u0085i\u009bj\u202ek\u2028l\u2029m\u2066n\ufeffö` + "p\ufffdq"},
		{Lines, "a\tb\nc" + `\rd\u001b[31me\u0007f\u0000g\u007fh\u0085i\u009bj\u202ek\u2028l\u2029m\u2066n\ufeffö` + "p\ufffdq"},
		{Spaces, `a b c d\u001b[31me\u0007f\u0000g\u007fh i\u009bj\u202ek l m\u2066n\ufeffö` + "p\ufffdq"},
	} {
		if got := Render(in, tc.mode); got != tc.want {
			t.Errorf("mode %d:\n got %q\nwant %q", tc.mode, got, tc.want)
		}
	}
	if s := "plain text, ünïcode, \"quotes\""; Render(s, OneLine) != s {
		t.Errorf("changed %q", s)
	}
}

// TestError keeps the chain and escapes the message.
func TestError(t *testing.T) {
	err := Error(errors.Join(io.EOF, errors.New("peer said \x1b]0;pwned\x07")))
	if !errors.Is(err, io.EOF) || err.Error() != `EOF\npeer said \u001b]0;pwned\u0007` {
		t.Errorf("%q", err)
	}
	if Error(nil) != nil || Error(io.EOF) != io.EOF {
		t.Error("nil or clean error changed")
	}
}
