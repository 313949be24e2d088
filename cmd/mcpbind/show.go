package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/ir"
)

// newShowCmd builds `mcpbind show BUNDLE [TOOL]`: a readable summary of a
// bundle with the Go API that generate makes of it.
func newShowCmd(c *cli) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "show BUNDLE [TOOL]",
		Short: "Summarize a bundle: servers, tools, annotations and Go signatures",
		Long: `Show prints a summary of a bundle (or a PMCP export): each server with its
serverInfo, protocol version and transport, and each tool with its title,
annotations (MCP tool annotations: readOnlyHint, destructiveHint,
idempotentHint, openWorldHint), the first paragraph of its description, and
the signature of the method that "mcpbind generate" gives the server's Client.
With TOOL, only the tools of that name.

--format text (the default) is for reading in a terminal; json is for
scripts; markdown is a reference page of the tools that can be committed
next to the bundle. Nothing connects to a server.

Exit codes: 2 for a usage error, an unreadable bundle, or a schema that
generate cannot type.`,
		Example: `  mcpbind show tools.json
  mcpbind show tools.json query
  mcpbind show --format markdown tools.json > TOOLS.md`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) < 1 || len(args) > 2 {
				return usageErrorf("show takes a BUNDLE and optionally a TOOL name; got %d %s", len(args), plural(len(args), "argument", "arguments"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" && format != "markdown" {
				return usageErrorf("--format %q: want text, json or markdown", format)
			}
			b, err := c.loadBundle(args[0])
			if err != nil {
				return err
			}
			tool := ""
			if len(args) == 2 {
				tool = args[1]
			}
			sum, err := summarize(b, tool)
			if err != nil {
				return withExit(exitInput, fmt.Errorf("%s: %w", args[0], err))
			}
			var out []byte
			switch format {
			case "json":
				out, err = sum.json()
			case "markdown":
				out = sum.markdown()
			default:
				out = sum.text()
			}
			if err != nil {
				return err
			}
			_, err = c.stdout.Write(out)
			return err
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output `FORMAT`: text, json or markdown")
	return cmd
}

// summary is what show prints; its JSON form is --format json.
type summary struct {
	Servers []serverSummary `json:"servers"`
}

// serverSummary is one server of a summary.
type serverSummary struct {
	ID              string        `json:"id"`
	Name            string        `json:"name"`
	Version         string        `json:"version,omitempty"`
	ProtocolVersion string        `json:"protocolVersion"`
	Transport       string        `json:"transport"`
	Package         string        `json:"package"`
	Tools           []toolSummary `json:"tools"`
}

// toolSummary is one tool of a summary.
type toolSummary struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// Hints are the tool's annotations that say something, in words
	// ("read-only", "destructive", …), in a fixed order.
	Hints []string `json:"hints,omitempty"`
	// Annotations is the tool's annotations object as the server sent it.
	Annotations json.RawMessage `json:"annotations,omitempty"`
	// Method and Signature are the generated Client method (from the IR).
	Method    string `json:"method"`
	Signature string `json:"signature"`
	// Types are the named Go types the tool's arguments and result use, in
	// declaration order: the names "mcpbind generate --type-name" can
	// rename (a type shared by several tools is listed under each).
	Types []string `json:"types,omitempty"`
}

// summarize builds the summary of b, limited to the tools named tool when
// tool is not "". Names and Go types come from the IR that generate uses,
// built with the default configuration and package names.
func summarize(b *bundle.Bundle, tool string) (*summary, error) {
	sum := &summary{Servers: []serverSummary{}}
	found := false
	for i := range b.Servers {
		srv := &b.Servers[i]
		pkg, err := ir.BuildServer(srv, ir.PackageName(srv.ID), ir.DefaultConfig())
		if err != nil {
			return nil, err
		}
		ss := serverSummary{ID: srv.ID, Name: printable(pkg.ServerName), Version: printable(pkg.ServerVersion),
			ProtocolVersion: srv.ProtocolVersion, Transport: srv.Transport, Package: pkg.Name, Tools: []toolSummary{}}
		raw := map[string]json.RawMessage{}
		for _, t := range srv.Tools {
			raw[t.Name] = t.Raw
		}
		for _, t := range pkg.Tools {
			if tool != "" && t.Name != tool {
				continue
			}
			found = true
			ss.Tools = append(ss.Tools, toolSummaryOf(t, raw[t.Name]))
		}
		if tool == "" || len(ss.Tools) > 0 {
			sum.Servers = append(sum.Servers, ss)
		}
	}
	if tool != "" && !found {
		return nil, fmt.Errorf("no tool %q in the bundle", tool)
	}
	return sum, nil
}

// toolSummaryOf summarizes IR tool t, whose tool object is raw.
func toolSummaryOf(t *ir.Tool, raw json.RawMessage) toolSummary {
	var obj struct {
		Title       string          `json:"title"`
		Description string          `json:"description"`
		Annotations json.RawMessage `json:"annotations"`
	}
	_ = json.Unmarshal(raw, &obj) // the bundle parsed: raw is a tool object
	var ann struct {
		Title           string `json:"title"`
		ReadOnlyHint    *bool  `json:"readOnlyHint"`
		DestructiveHint *bool  `json:"destructiveHint"`
		IdempotentHint  *bool  `json:"idempotentHint"`
		OpenWorldHint   *bool  `json:"openWorldHint"`
	}
	_ = json.Unmarshal(obj.Annotations, &ann) // a malformed annotations object says nothing
	ts := toolSummary{Name: printable(t.Name), Title: printable(obj.Title), Description: printable(firstParagraph(obj.Description)),
		Method: t.Method, Signature: signature(t), Types: typeNames(t)}
	if ts.Title == "" {
		ts.Title = printable(ann.Title)
	}
	if len(obj.Annotations) > 0 && string(obj.Annotations) != "null" {
		ts.Annotations = compactJSONBytes(obj.Annotations)
	}
	// The hints as the MCP specification defines them (schema.ts,
	// ToolAnnotations): destructiveHint and idempotentHint are meaningful
	// only when readOnlyHint is false.
	switch {
	case ann.ReadOnlyHint != nil && *ann.ReadOnlyHint:
		ts.Hints = append(ts.Hints, "read-only")
	case ann.DestructiveHint != nil && !*ann.DestructiveHint:
		ts.Hints = append(ts.Hints, "not destructive")
	case ann.DestructiveHint != nil:
		ts.Hints = append(ts.Hints, "destructive")
	}
	if ann.IdempotentHint != nil && *ann.IdempotentHint {
		ts.Hints = append(ts.Hints, "idempotent")
	}
	if ann.OpenWorldHint != nil {
		if *ann.OpenWorldHint {
			ts.Hints = append(ts.Hints, "open world")
		} else {
			ts.Hints = append(ts.Hints, "closed world")
		}
	}
	return ts
}

// signature is the Go signature of t's Client method, as
// templates/client.tmpl declares it.
func signature(t *ir.Tool) string {
	args := ""
	if t.Args != nil {
		args = ", args " + t.Args.GoType()
	}
	return "func (c *Client) " + t.Method + "(ctx context.Context" + args + ") (" + t.ResultGoType() + ", error)"
}

// typeNames lists the named types t's arguments and result use, each once,
// in the order a walk from the arguments, then the result, meets them.
func typeNames(t *ir.Tool) []string {
	var names []string
	seen := map[*ir.Type]bool{}
	var walk func(x *ir.Type)
	walk = func(x *ir.Type) {
		if x == nil || seen[x] {
			return
		}
		seen[x] = true
		if x.Named() {
			names = append(names, x.Name)
		}
		for c := range x.Children() {
			walk(c)
		}
	}
	walk(t.Args)
	walk(t.Result)
	return names
}

// printable replaces the control and format characters of server text
// (terminal escapes, bidirectional overrides) by U+FFFD.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return unicode.ReplacementChar
		}
		return r
	}, s)
}

// firstParagraph returns the text up to its first blank line, its lines
// joined by spaces.
func firstParagraph(s string) string {
	s = strings.TrimSpace(strings.ReplaceAll(s, "\r\n", "\n"))
	if i := strings.Index(s, "\n\n"); i >= 0 {
		s = s[:i]
	}
	return strings.Join(strings.Fields(s), " ")
}

func compactJSONBytes(raw json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return nil
	}
	return buf.Bytes()
}

func (s *summary) json() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	err := enc.Encode(s)
	return buf.Bytes(), err
}

// describe is the one-line description of a server.
func (s *serverSummary) describe() string {
	name := strings.TrimSpace(s.Name + " " + s.Version)
	return fmt.Sprintf("%s, protocol %s, %s, %d %s, Go package %s",
		name, s.ProtocolVersion, s.Transport, len(s.Tools), plural(len(s.Tools), "tool", "tools"), s.Package)
}

func (s *summary) text() []byte {
	var b strings.Builder
	for i, srv := range s.Servers {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "server %s: %s\n", srv.ID, srv.describe())
		for _, t := range srv.Tools {
			head := t.Name
			if t.Title != "" {
				head += " — " + t.Title
			}
			if len(t.Hints) > 0 {
				head += " (" + strings.Join(t.Hints, ", ") + ")"
			}
			fmt.Fprintf(&b, "\n  %s\n", head)
			if t.Description != "" {
				fmt.Fprintf(&b, "    %s\n", t.Description)
			}
			fmt.Fprintf(&b, "    %s\n", t.Signature)
			if len(t.Types) > 0 {
				fmt.Fprintf(&b, "    types: %s\n", strings.Join(t.Types, ", "))
			}
		}
	}
	return []byte(b.String())
}

func (s *summary) markdown() []byte {
	var b strings.Builder
	for i, srv := range s.Servers {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "# %s\n\n%s.\n", mdText(srv.ID), mdText(srv.describe()))
		b.WriteString("\n| tool | hints | Go method |\n| --- | --- | --- |\n")
		for _, t := range srv.Tools {
			fmt.Fprintf(&b, "| [%s](#%s) | %s | `%s` |\n", mdText(t.Name), mdAnchor(t.Name), mdText(strings.Join(t.Hints, ", ")), t.Method)
		}
		for _, t := range srv.Tools {
			fmt.Fprintf(&b, "\n## %s\n\n", mdText(t.Name))
			if t.Title != "" {
				fmt.Fprintf(&b, "**%s**\n\n", mdText(t.Title))
			}
			if t.Description != "" {
				fmt.Fprintf(&b, "%s\n\n", mdText(t.Description))
			}
			if len(t.Hints) > 0 {
				fmt.Fprintf(&b, "Hints: %s.\n\n", mdText(strings.Join(t.Hints, ", ")))
			}
			fmt.Fprintf(&b, "```go\n%s\n```\n", t.Signature)
			if len(t.Types) > 0 {
				fmt.Fprintf(&b, "\nTypes (`--type-name` renames them): %s.\n", "`"+strings.Join(t.Types, "`, `")+"`")
			}
		}
	}
	return []byte(b.String())
}

// mdText escapes server text for Markdown: the characters that start
// markup or break a table cell, and HTML.
func mdText(s string) string {
	return strings.NewReplacer(`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "|", `\|`, "<", "&lt;", ">", "&gt;", "[", `\[`, "]", `\]`, "#", `\#`).Replace(s)
}

// mdAnchor is the anchor GitHub gives a "## name" heading.
func mdAnchor(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || ('a' <= r && r <= 'z') || ('0' <= r && r <= '9'):
			b.WriteRune(r)
		}
	}
	return b.String()
}
