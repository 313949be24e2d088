// Package redact is the one place where mcpbind removes secrets from text it
// prints: values it was given (header values, bearer tokens, OAuth client
// secrets, environment values of a stdio server) and the parts of URLs that
// carry credentials (user information and query values).
//
// The rule everywhere: redact first, cut second. A message that is shortened
// for display (an HTTP body, the tail of a server's stderr, a line of junk on
// stdout) is first redacted in full and only then cut, so a secret that
// straddles the cut never appears in part. Cut and Tail do both in that order.
package redact

import (
	"bytes"
	"encoding/base64"
	"io"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// MinSecretLen is the shortest secret Secrets hides, in bytes; shorter
// values ("1", "true") would garble messages and are unlikely to be secrets.
const MinSecretLen = 6

// Mask replaces a secret or a credential-bearing URL part in messages.
const Mask = "***"

// PrefixLen is how long a start of a secret (or of one of its encoded
// forms) must be to be masked on its own: text cut after the first
// PrefixLen bytes of a token still gives it away in part.
const PrefixLen = 8

// Secrets masks in msg every secret of at least MinSecretLen bytes, in each
// form a program may print it (the idea of GitHub Actions' secret masking,
// which also masks a secret's encodings):
//
//   - as given, and with ASCII letters in any case (lower-cased, upper-cased
//     echoes);
//   - URL-encoded (query and path escaping, %xx in either case);
//   - base64, standard and URL alphabets, padded or not, at any of the
//     three alignments it can have inside a longer encoded text (such as
//     "user:secret" in a Basic authorization header): the characters that
//     only the secret's bytes determine;
//   - and any start of one of those forms at least PrefixLen bytes long
//     (the whole form when it is shorter): a secret cut after its eighth
//     byte is masked as far as it goes.
//
// Each match, widened to whole UTF-8 characters, becomes one Mask
// (overlapping matches one together). The cost is linear in len(msg) for
// each form of each secret: matches are searched left to right, and a
// search resumes where the last masked run ended.
func Secrets(msg string, secrets []string) string {
	var pats []string
	for _, s := range secrets {
		if len(s) >= MinSecretLen {
			pats = append(pats, forms(s)...)
		}
	}
	if len(pats) == 0 || msg == "" {
		return msg
	}
	folded := foldASCII(msg)
	// ends[i] is one past the furthest match that starts at byte i, 0 for
	// none.
	var ends []int
	for _, p := range pats {
		head := p[:min(len(p), PrefixLen)]
		for at := 0; at < len(folded); {
			i := strings.Index(folded[at:], head)
			if i < 0 {
				break
			}
			i += at
			end := i + len(head)
			for end < len(folded) && end-i < len(p) && folded[end] == p[end-i] {
				end++
			}
			at = end
			// Whole characters only.
			for i > 0 && !utf8.RuneStart(msg[i]) {
				i--
			}
			for end < len(msg) && !utf8.RuneStart(msg[end]) {
				end++
			}
			if ends == nil {
				ends = make([]int, len(msg))
			}
			ends[i] = max(ends[i], end)
		}
	}
	if ends == nil {
		return msg
	}
	var b strings.Builder
	covered := 0 // end of the matches written so far
	for i := 0; i < len(msg); i++ {
		switch {
		case ends[i] > 0 && i >= covered:
			b.WriteString(Mask)
			covered = ends[i]
		case ends[i] > 0:
			covered = max(covered, ends[i]) // overlaps the match before
		case i >= covered:
			b.WriteByte(msg[i])
		}
	}
	return b.String()
}

// forms returns the ASCII-folded forms of the secret s that Secrets looks
// for: s, its URL escapings and its base64 encodings (see Secrets).
func forms(s string) []string {
	out := []string{s, url.QueryEscape(s), url.PathEscape(s)}
	for shift := range 3 {
		// shift bytes before the secret within its first 3-byte group.
		in := append(make([]byte, shift, shift+len(s)), s...)
		enc := base64.StdEncoding.EncodeToString(in)
		// The first characters also encode the shift bytes (6 bits each:
		// none, two or three of them); the last whole character is the
		// one that ends within the input's bits.
		from := []int{0, 2, 3}[shift]
		to := len(in) * 8 / 6
		if to-from < MinSecretLen {
			continue
		}
		std := enc[from:to]
		out = append(out, std, strings.NewReplacer("+", "-", "/", "_").Replace(std))
	}
	for i, f := range out {
		out[i] = foldASCII(f)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// foldASCII lower-cases the ASCII letters of s, keeping every byte's
// position (other bytes are left as they are).
func foldASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// urlInText matches a URL with a scheme in free text: its scheme and "//",
// optional user information ending in '@', the host and path, and an
// optional query. A URL ends at white space or a quote.
var urlInText = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.\-]*://)([^\s/?#@"'<>]*@)?([^\s?#"'<>]*)(\?[^\s#"'<>]*)?`)

// URLs masks, in every URL of msg that has a scheme ("https://…"), the user
// information ("user:pass@" becomes "***@") and the query ("?token=x&a=b"
// becomes "?***"). It works on text, so it also covers URLs that net/url
// cannot parse, such as one with a bad escape in its query.
func URLs(msg string) string {
	if !strings.Contains(msg, "://") {
		return msg
	}
	return urlInText.ReplaceAllStringFunc(msg, func(m string) string {
		sub := urlInText.FindStringSubmatch(m)
		out := sub[1]
		if sub[2] != "" {
			out += Mask + "@"
		}
		out += sub[3]
		if sub[4] != "" {
			out += "?" + Mask
		}
		return out
	})
}

// Text applies Secrets, then URLs.
func Text(msg string, secrets []string) string {
	return URLs(Secrets(msg, secrets))
}

// URL names a URL without what may carry credentials: user information,
// query and fragment are dropped. A URL that net/url cannot parse is masked
// as URLs masks it in text.
func URL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return URLs(raw)
	}
	u.User = nil
	u.RawQuery = ""
	u.ForceQuery = false
	u.Fragment = ""
	u.RawFragment = ""
	return u.String()
}

// Cut redacts msg (Text) and then keeps at most max bytes of it, cut at a
// UTF-8 boundary and followed by "…" when anything was dropped.
func Cut(msg string, secrets []string, n int) string {
	return Head(msg, secrets, n, false)
}

// Head is Cut for text that was already clipped at its end when it was
// captured (clipped): it may end in part of a secret, so the last Slack bytes
// are dropped after redaction, before the cut to max bytes.
func Head(msg string, secrets []string, n int, clipped bool) string {
	msg = Text(msg, secrets)
	if clipped {
		msg = msg[:max(0, len(msg)-Slack(secrets))]
	}
	if len(msg) <= n && !clipped {
		return msg
	}
	i := min(n, len(msg))
	for i > 0 && i < len(msg) && !utf8.RuneStart(msg[i]) {
		i--
	}
	return msg[:i] + "…"
}

// Tail redacts msg (Text) and then keeps at most its last max bytes, cut at
// a UTF-8 boundary and preceded by "…" when anything was dropped. With
// clipped, msg was already clipped at its start when it was captured and may
// begin with part of a secret: the first Slack bytes are dropped after
// redaction, before the cut.
func Tail(msg string, secrets []string, n int, clipped bool) string {
	msg = Text(msg, secrets)
	if clipped {
		msg = msg[min(len(msg), Slack(secrets)):]
	}
	if len(msg) <= n && !clipped {
		return msg
	}
	i := max(0, len(msg)-n)
	for i < len(msg) && !utf8.RuneStart(msg[i]) {
		i++
	}
	return "…" + msg[i:]
}

// Slack is how many bytes beyond its display size a buffer should keep, for
// secrets of up to that many bytes: a secret that straddles the display cut
// must be whole in the buffer to be found and masked before the cut.
func Slack(secrets []string) int {
	n := 0
	for _, s := range secrets {
		n = max(n, len(s))
	}
	// Encoded forms are up to three times as long (URL escaping); a URL's
	// query may be long too; keep room for a reasonable one.
	return max(3*n, 256)
}

// TailBuffer keeps the last bytes written to it, for the end of a server's
// stderr: Size bytes for display plus Slack bytes, so that String can redact
// before it cuts. It is safe for concurrent use.
type TailBuffer struct {
	size    int
	secrets []string

	mu      sync.Mutex
	buf     []byte
	dropped bool
}

// NewTailBuffer returns a TailBuffer whose String shows at most size bytes,
// redacted of secrets and URL credentials.
func NewTailBuffer(size int, secrets []string) *TailBuffer {
	return &TailBuffer{size: size, secrets: append([]string(nil), secrets...)}
}

// Write appends p, dropping the oldest bytes beyond size plus Slack.
func (b *TailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.size - Slack(b.secrets); over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
		b.dropped = true
	}
	return len(p), nil
}

// String returns the kept text redacted and then cut to at most size bytes
// (Tail), prefixed with "…" when older bytes were dropped.
func (b *TailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return Tail(string(b.buf), b.secrets, b.size, b.dropped)
}

// Writer is an io.Writer that passes text on line by line, each line
// redacted (Text) before it is written to the underlying writer. A line is
// held until its '\n' arrives, or until it grows beyond 64 KiB (then the
// part so far is redacted and written); Flush writes what is held.
type Writer struct {
	w       io.Writer
	secrets []string

	mu  sync.Mutex
	buf []byte
}

// NewWriter returns a Writer that redacts secrets and URL credentials from
// what it passes on to w.
func NewWriter(w io.Writer, secrets []string) *Writer {
	return &Writer{w: w, secrets: append([]string(nil), secrets...)}
}

// maxLine is how much of a line without '\n' a Writer holds.
const maxLine = 64 << 10

// Write buffers p and writes every complete line, redacted. It returns
// len(p) and the underlying writer's first error.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	var err error
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		line := w.buf[:i+1]
		if _, e := io.WriteString(w.w, Text(string(line), w.secrets)); e != nil && err == nil {
			err = e
		}
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) > maxLine {
		if _, e := io.WriteString(w.w, Text(string(w.buf), w.secrets)); e != nil && err == nil {
			err = e
		}
		w.buf = w.buf[:0]
	}
	w.buf = append([]byte(nil), w.buf...)
	return len(p), err
}

// Flush writes the partial line held, redacted.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) == 0 {
		return nil
	}
	_, err := io.WriteString(w.w, Text(string(w.buf), w.secrets))
	w.buf = nil
	return err
}
