package redact

import (
	"encoding/base64"
	"net/url"
	"strings"
	"testing"
)

// TestSecretsEveryForm masks a secret in each form a program may print it:
// as given, case-folded, URL-encoded, base64 (standard and URL alphabets,
// padded and raw, at each alignment inside a longer encoded text) and cut
// after PrefixLen bytes. Each form sits between plain words that must
// survive.
func TestSecretsEveryForm(t *testing.T) {
	const secret = "Tok/en+Sec?ret=42&x"
	b64 := func(enc *base64.Encoding, s string) string { return enc.EncodeToString([]byte(s)) }
	forms := map[string]string{
		"as given":           secret,
		"lower-cased":        strings.ToLower(secret),
		"upper-cased":        strings.ToUpper(secret),
		"query-escaped":      url.QueryEscape(secret),
		"path-escaped":       url.PathEscape(secret),
		"escaped lower-case": strings.ToLower(url.QueryEscape(secret)),
		"prefix":             secret[:PrefixLen],
		"prefix and more":    secret[:PrefixLen+3],
		"prefix upper-cased": strings.ToUpper(secret[:PrefixLen]),
	}
	for _, enc := range []struct {
		name string
		enc  *base64.Encoding
	}{{"std", base64.StdEncoding}, {"raw std", base64.RawStdEncoding}, {"url", base64.URLEncoding}, {"raw url", base64.RawURLEncoding}} {
		forms["base64 "+enc.name] = b64(enc.enc, secret)
		// Inside a longer encoded text, at each of the three alignments.
		for _, before := range []string{"", "u:", "us:", "use:"} {
			forms["base64 "+enc.name+" after "+before] = b64(enc.enc, before+secret+"!")
		}
		forms["base64 "+enc.name+" prefix"] = b64(enc.enc, secret)[:PrefixLen]
	}
	for name, form := range forms {
		msg := "before " + form + " after"
		got := Secrets(msg, []string{secret})
		if !strings.HasPrefix(got, "before ") || !strings.HasSuffix(got, " after") || !strings.Contains(got, Mask) {
			t.Errorf("%s: %q → %q", name, msg, got)
			continue
		}
		// What is left of the form is at most the few characters that
		// encode the bytes around the secret ("use:" and "!", padding).
		if left := strings.TrimSuffix(strings.TrimPrefix(got, "before "), " after"); len(strings.ReplaceAll(left, Mask, "")) > 10 {
			t.Errorf("%s: %q left %q", name, form, left)
		}
	}
	// Short starts and unrelated text stay.
	for _, msg := range []string{"Tok/en+ is a start of 7", "nothing to see here", "tok", ""} {
		if got := Secrets(msg, []string{secret}); got != msg {
			t.Errorf("%q → %q", msg, got)
		}
	}
}

// TestSecretsWholeCharacters: a match never leaves part of a UTF-8
// character, and overlapping matches give one Mask.
func TestSecretsWholeCharacters(t *testing.T) {
	const secret = "ünïcødé-sécret"
	for _, msg := range []string{"x " + secret + " y", "x " + secret[:PrefixLen] + " y", "x " + secret + secret + " y"} {
		got := Secrets(msg, []string{secret})
		if !strings.HasPrefix(got, "x ***") || !strings.HasSuffix(got, " y") || strings.ContainsRune(got, '\uFFFD') {
			t.Errorf("%q → %q", msg, got)
		}
	}
	if got := Secrets("a sk-live-0123456789 b", []string{"sk-live-0123456789", "live-0123456789"}); got != "a *** b" {
		t.Errorf("overlapping secrets: %q", got)
	}
}

// BenchmarkSecretsHostile redacts 1 MiB made of the secret's first
// PrefixLen-1 bytes repeated and of near-misses of its prefix: the cost
// stays linear in the input (ns per byte is the figure to watch).
func BenchmarkSecretsHostile(b *testing.B) {
	const secret = "aaaaaaaab-token-value"
	for _, tc := range []struct{ name, unit string }{
		{"runs", "a"},
		{"near-misses", "aaaaaaaab-token-valuX"},
		{"base64-like", "YWFhYWFhYWFiLXRva2Vu"},
	} {
		msg := strings.Repeat(tc.unit, (1<<20)/len(tc.unit))
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(msg)))
			for b.Loop() {
				_ = Secrets(msg, []string{secret, "another-secret-value"})
			}
		})
	}
}
