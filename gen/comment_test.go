package gen

import (
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/ir"
)

// TestDocSplitsEveryLineTerminator: whatever a doc element holds, every
// rendered line is "//" or starts with "// ", so no server text ends the
// comment or starts a directive.
func TestDocSplitsEveryLineTerminator(t *testing.T) {
	for _, term := range []string{"\n", "\r", "\r\n", "\v", "\f", "\u0085", "\u2028", "\u2029"} {
		out := doc([]string{"a" + term + "//go:generate rm -rf /" + term + "func init() {}"})
		for _, l := range strings.Split(out, "\n") {
			if l != "//" && !strings.HasPrefix(l, "// ") {
				t.Errorf("terminator %q: line %q is not a plain comment line", term, l)
			}
		}
		if strings.Count(out, "\n") != 2 {
			t.Errorf("terminator %q: want 3 lines, got %q", term, out)
		}
	}
}

// TestCommentTextEscapesHiddenCharacters: control, bidi, NUL and BOM
// characters are shown as escapes; invalid UTF-8 becomes U+FFFD; "+build"
// cannot start a constraint; ordinary text is kept.
func TestCommentTextEscapesHiddenCharacters(t *testing.T) {
	for in, want := range map[string]string{
		"a\x00b":                   `a\u0000b`,
		"\ufeffx":                  `\ufeffx`,
		"l\u202er":                 `l\u202er`,
		"\u2066\u2067\u2068\u2069": `\u2066\u2067\u2068\u2069`,
		"\u200e\u200f\u061c":       `\u200e\u200f\u061c`,
		"\u202a\u202b\u202c\u202d": `\u202a\u202b\u202c\u202d`,
		"del\x7f\x1b[31m":          `del\u007f\u001b[31m`,
		"c1\u0080\u009f":           `c1\u0080\u009f`,
		"bad \xff utf8":            "bad \ufffd utf8",
		"tab\there":                "tab here",
		"line\nbreak":              "line break",
		"+build ignore":            `\u002bbuild ignore`,
		"日本語 and émoji 👍🏽 ok":      "日本語 and émoji 👍🏽 ok",
	} {
		if got := inline(in); got != want {
			t.Errorf("inline(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPackageDocRendersServerInfo: serverInfo and the protocol version go
// through the renderer.
func TestPackageDocRendersServerInfo(t *testing.T) {
	d := fileData{}
	d.Package = testPackage("p", "srv", "name\n//go:generate x", "1\u2028func init(){}", "2025-06-18\n//line x.go:1")
	out := doc(d.PackageDoc())
	for _, l := range strings.Split(out, "\n") {
		if l != "//" && !strings.HasPrefix(l, "// ") {
			t.Errorf("line %q is not a plain comment line:\n%s", l, out)
		}
	}
}

func testPackage(name, id, serverName, serverVersion, protocolVersion string) *ir.Package {
	return &ir.Package{Name: name, ServerID: id, ServerName: serverName, ServerVersion: serverVersion, ProtocolVersion: protocolVersion}
}
