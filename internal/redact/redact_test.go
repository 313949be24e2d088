package redact

import (
	"bytes"
	"strings"
	"testing"
)

// secret is made of letters that the filler never holds, so that any part of
// it in an output shows as one of its letters.
const secret = "ABCDEFGHIJKLMNOP"

func leaks(s string) bool { return strings.ContainsAny(s, secret) }

// filler returns n bytes with the secret placed at offset at.
func withSecretAt(n, at int) string {
	b := bytes.Repeat([]byte("."), n)
	return string(b[:at]) + secret + string(b[at:])
}

func TestCutEveryOffset(t *testing.T) {
	const shown = 40
	for at := 0; at <= 80; at++ {
		msg := withSecretAt(80, at)
		if got := Cut(msg, []string{secret}, shown); leaks(got) || len(got) > shown+len("…") {
			t.Errorf("secret at %d: Cut = %q", at, got)
		}
	}
}

// TestHeadClipped: text captured with a limit may end in part of a secret;
// Head must not show that part whatever the offset.
func TestHeadClipped(t *testing.T) {
	const shown = 40
	capture := shown + Slack([]string{secret})
	for at := 0; at <= capture+2; at++ {
		msg := withSecretAt(capture+40, at)
		clipped := len(msg) > capture
		if clipped {
			msg = msg[:capture]
		}
		if got := Head(msg, []string{secret}, shown, clipped); leaks(got) {
			t.Errorf("secret at %d: Head = %q", at, got)
		}
	}
}

// TestTailBufferEveryOffset writes a secret at every offset around the
// buffer's capacity, in chunks of several sizes, and checks that no part of
// it survives in String.
func TestTailBufferEveryOffset(t *testing.T) {
	const size = 64
	capacity := size + Slack([]string{secret})
	for _, chunk := range []int{1, 7, 4096} {
		for at := 0; at <= capacity+len(secret)+2; at++ {
			b := NewTailBuffer(size, []string{secret})
			msg := []byte(withSecretAt(capacity+len(secret)+10, at))
			for len(msg) > 0 {
				n := min(chunk, len(msg))
				_, _ = b.Write(msg[:n])
				msg = msg[n:]
			}
			if got := b.String(); leaks(got) || len(got) > size+len("…") {
				t.Errorf("chunk %d, secret at %d: String = %q", chunk, at, got)
			}
		}
	}
}

func TestURLs(t *testing.T) {
	for in, want := range map[string]string{
		`Post "https://user:pa55@example.com:8443/mcp?token=s3cret&x=1": EOF`: `Post "https://***@example.com:8443/mcp?***": EOF`,
		`"http://127.0.0.1:1/mcp?token=%zz" is not a URL`:                     `"http://127.0.0.1:1/mcp?***" is not a URL`,
		`no url here: a?b=c`:                  `no url here: a?b=c`,
		`http://h/p#frag`:                     `http://h/p#frag`,
		`two: http://a@h/?q http://h2/x?y=z.`: `two: http://***@h/?*** http://h2/x?***`,
	} {
		if got := URLs(in); got != want {
			t.Errorf("URLs(%q) = %q, want %q", in, got, want)
		}
	}
	if got := URL("http://u:p@h:1/mcp?token=x#f"); got != "http://h:1/mcp" {
		t.Errorf("URL = %q", got)
	}
	if got := URL("http://u:p@h:1/mcp?token=%zz x"); strings.Contains(got, "token") || strings.Contains(got, "u:p") {
		t.Errorf("URL of an unparsable URL = %q", got)
	}
}

func TestSecretsLongestFirst(t *testing.T) {
	if got := Secrets("Bearer tok123456 and tok123456", []string{"tok123456", "Bearer tok123456", "abc"}); got != "*** and ***" {
		t.Errorf("Secrets = %q", got)
	}
}

func TestWriter(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, []string{secret})
	in := "line one " + secret[:5]
	_, _ = w.Write([]byte(in))
	_, _ = w.Write([]byte(secret[5:] + " end\nsee http://x:y@h/?k=v\npartial " + secret))
	if leaks(out.String()) || strings.Contains(out.String(), "partial") {
		t.Fatalf("before Flush: %q", out.String())
	}
	_ = w.Flush()
	want := "line one *** end\nsee http://***@h/?***\npartial ***"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

// TestRepeatedSecretEveryCut cuts a run of secrets at every offset: once
// redacted, the run shrinks, so a part left at the cut would be shown if the
// cut came before the redaction or the captured edge were not dropped.
func TestRepeatedSecretEveryCut(t *testing.T) {
	const size = 64
	run := strings.Repeat(secret, 40)
	capacity := size + Slack([]string{secret})
	for at := 0; at < len(secret); at++ {
		b := NewTailBuffer(size, []string{secret})
		_, _ = b.Write([]byte("." + run[at:]))
		if got := b.String(); leaks(got) {
			t.Errorf("tail cut at %d: %q", at, got)
		}
		head := run[:capacity-len(secret)+at]
		if got := Head(head, []string{secret}, size, true); leaks(got) {
			t.Errorf("head cut at %d: %q", at, got)
		}
		if got := Cut(run[:len(run)-at], []string{secret}, size); leaks(got) {
			t.Errorf("Cut of %d bytes: %q", len(run)-at, got)
		}
	}
}
