package diff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// FormatVersion is the version of the JSON rendering's shape (WriteJSON).
const FormatVersion = 1

// WriteText writes one line per change, columns aligned:
//
//	breaking  sqlite-explorer/query  input /properties/limit: new required property
//
// that is: class, server[/tool], then where and pointer, a colon and the
// message. Nothing is written when there are no changes.
func (r *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range r.Changes {
		where := string(c.Where)
		if c.Pointer != "" {
			where += " " + c.Pointer
		}
		fmt.Fprintf(tw, "%s\t%s\t%s: %s\n", c.Class, oneLine(c.Location()), oneLine(where), oneLine(c.Message))
	}
	return tw.Flush()
}

// jsonReport is the shape WriteJSON writes.
type jsonReport struct {
	FormatVersion int             `json:"formatVersion"`
	Old           string          `json:"old,omitempty"`
	New           string          `json:"new,omitempty"`
	Summary       map[Class]int   `json:"summary"`
	Verdict       map[string]bool `json:"verdict"`
	Changes       []Change        `json:"changes"`
}

// WriteJSON writes the report as one JSON object, indented by two spaces:
//
//	{
//	  "formatVersion": 1,
//	  "old": "old.json",
//	  "new": "new.json",
//	  "summary": {"api": 1, "breaking": 1, "compatible": 0, "cosmetic": 0},
//	  "verdict": {"apiChanged": true, "breaking": true},
//	  "changes": [
//	    {"class": "breaking", "server": "sqlite-explorer", "tool": "query",
//	     "where": "input", "pointer": "/properties/limit", "code": "property-added",
//	     "message": "new required property", "new": {"type": "integer"}}
//	  ]
//	}
//
// Each change has the fields of Change: class, server, tool (absent for the
// server or package as a whole), where, pointer, code, message, and old and
// new values when there are some (JSON; Go source as a string for "go").
// "changes" is [] when nothing changed. Fields may be added in later
// versions; none is removed or changes meaning without a new
// formatVersion.
func (r *Report) WriteJSON(w io.Writer) error {
	changes := r.Changes
	if changes == nil {
		changes = []Change{}
	}
	out := jsonReport{
		FormatVersion: FormatVersion,
		Old:           r.Old,
		New:           r.New,
		Summary:       map[Class]int{},
		Verdict:       map[string]bool{"breaking": r.Has(Breaking), "apiChanged": r.Has(API)},
		Changes:       changes,
	}
	for _, c := range []Class{Breaking, Compatible, Cosmetic, API} {
		out.Summary[c] = r.Count(c)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// WriteMarkdown writes a heading with the summary, then per server a
// table of its changes (class, tool, where, pointer, change).
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	title := "Contract changes"
	if r.Old != "" && r.New != "" {
		title += ": " + mdCode(r.Old) + " → " + mdCode(r.New)
	}
	fmt.Fprintf(&b, "# %s\n\n%s.\n", title, r.Summary())
	if len(r.Changes) == 0 {
		b.WriteString("\nNo changes.\n")
	}
	server := ""
	for i, c := range r.Changes {
		if i == 0 || c.Server != server {
			server = c.Server
			fmt.Fprintf(&b, "\n## %s\n\n", mdCell(server))
			b.WriteString("| class | tool | where | pointer | change |\n|---|---|---|---|---|\n")
		}
		ptr := ""
		if c.Pointer != "" {
			ptr = mdCode(c.Pointer)
		}
		tool := ""
		if c.Tool != "" {
			tool = mdCode(c.Tool)
		}
		class := string(c.Class)
		if c.Class == Breaking {
			class = "**breaking**"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", class, tool, c.Where, ptr, mdCell(c.Message))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdCell escapes text for a Markdown table cell.
func mdCell(s string) string {
	s = oneLine(s)
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, "|", `\|`)
	for _, ch := range []string{"*", "_", "`", "<", ">", "[", "]"} {
		s = strings.ReplaceAll(s, ch, `\`+ch)
	}
	return s
}

// mdCode renders s as inline code in a table cell.
func mdCode(s string) string {
	s = strings.ReplaceAll(oneLine(s), "|", `\|`)
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// oneLine replaces line breaks and tabs with spaces.
func oneLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ").Replace(s)
}
