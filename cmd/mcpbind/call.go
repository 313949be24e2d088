package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/bindimpl"
	"github.com/mcpbind/mcpbind/internal/redact"
	"github.com/mcpbind/mcpbind/internal/schema"
	"github.com/mcpbind/mcpbind/internal/textsafe"
)

// callFlags are the flags of `mcpbind call`.
type callFlags struct {
	// server holds the flags that say how to reach the server, the same as
	// export's (--header, --bearer-env, --env, --protocol-version,
	// --timeout, -v, …).
	server serverFlags
	// args is the --args JSON object.
	args string
	// argsSet is true when --args was given.
	argsSet bool
	// list lists the tools instead of calling one.
	list bool
	// raw prints the server's text as sent, without escaping.
	raw bool
}

// newCallCmd builds `mcpbind call`.
func newCallCmd(c *cli) *cobra.Command {
	var f callFlags
	cmd := &cobra.Command{
		Use:   "call [flags] TOOL (-- COMMAND [ARG...] | URL)",
		Short: "Call one tool of a live MCP server and print its result",
		Long: `Call connects to a live MCP server (a stdio command after --, or the URL of a
streamable HTTP endpoint), calls the tool TOOL with the JSON object given by
--args, and prints the result on stdout:

  - its structuredContent as indented JSON, taken out of a {"result": v}
    envelope when the tool's outputSchema in this session's tools/list is a
    recognised envelope (the TypeScript SDK v2, C#, Python SDK and FastMCP
    wrap non-object results so; see the README);
  - otherwise its content blocks in order: the text of text blocks, other
    blocks as indented JSON.

With --list it lists the server's tools instead (name and the first line of
the description).

What the server sent is printed escaped: control characters other than
newline and tab (ANSI escape sequences, CR, BEL, NUL, DEL, C1), bidirectional
controls (U+202E, …) and U+2028/U+2029 appear as \u001b, \r and the like,
which inside JSON strings are the same JSON. --raw prints it as sent.

Exit codes: 2 for a usage error (including --args that is not a JSON object),
3 when the server cannot be started or reached, answers a JSON-RPC error, or
the tool reports isError: true (its text goes to stderr).`,
		Example: `  mcpbind call count_rows --args '{"table":"books"}' -- ./sqlite-explorer --dir data
  mcpbind call --bearer-env MCP_TOKEN search --args '{"q":"mcp"}' https://example.com/mcp
  mcpbind call --list http://127.0.0.1:8080/mcp`,
		RunE: func(cmd *cobra.Command, args []string) error {
			f.argsSet = cmd.Flags().Changed("args")
			return c.runCall(cmd.Context(), &f, args, cmd.ArgsLenAtDash())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.args, "args", "{}", "the tool's arguments: a JSON `OBJECT`")
	fl.BoolVar(&f.list, "list", false, "list the server's tools instead of calling one (no TOOL)")
	fl.BoolVar(&f.raw, "raw", false, "print the server's text as sent: control and bidirectional characters unescaped")
	addServerFlags(cmd, &f.server) // --header, --bearer-env, --env, --protocol-version, --timeout, -v
	// The call runs under the same deadline as connecting (see doCall).
	fl.Lookup("timeout").Usage = "give up connecting, listing tools and calling the tool after this `DURATION` in all (0: never)"
	return cmd
}

// runCall carries out `mcpbind call`.
func (c *cli) runCall(ctx context.Context, f *callFlags, args []string, dash int) error {
	tool, rest, restDash, err := splitCallArgs(f.list, args, dash)
	if err != nil {
		return err
	}
	var callArgs json.RawMessage
	switch {
	case f.list && f.argsSet:
		return usageErrorf("--args applies to a tool call, not to --list")
	case !f.list:
		if callArgs, err = parseCallArgs(f.args); err != nil {
			return err
		}
	}
	target, opts, secrets, err := c.serverTarget(&f.server, rest, restDash)
	if err != nil {
		return err
	}
	return redact.Error(c.doCall(ctx, f, tool, callArgs, target, opts), secrets)
}

// splitCallArgs separates TOOL from the server's arguments (a URL, or the
// command after --) and returns the latter with the position of -- among
// them, as serverTarget reads them. With list there is no TOOL.
func splitCallArgs(list bool, args []string, dash int) (tool string, rest []string, restDash int, err error) {
	before := args
	if dash >= 0 {
		before = args[:dash]
	}
	want := 0 // arguments before --, or in all without --
	if !list {
		want++ // TOOL
	}
	if dash < 0 {
		want++ // URL
	}
	switch {
	case len(before) > want && dash >= 0:
		return "", nil, -1, usageErrorf("unexpected argument %q before --: the server's command goes after --", before[want])
	case len(before) > want && list:
		return "", nil, -1, usageErrorf("too many arguments: give the URL of an HTTP server, or put a stdio server's command after --")
	case len(before) > want:
		return "", nil, -1, usageErrorf("too many arguments: give TOOL, then the URL of an HTTP server; to start a stdio server, put its command after --")
	case len(before) < want && !list && len(before) == 0:
		return "", nil, -1, usageErrorf("missing the tool name: give TOOL, then -- COMMAND [ARG...] for a stdio server or the URL of an HTTP server (or --list)")
	case len(before) < want:
		return "", nil, -1, usageErrorf("missing the server: give -- COMMAND [ARG...] for a stdio server or the URL of an HTTP server")
	}
	if !list {
		tool, args = args[0], args[1:]
		if dash >= 0 {
			dash--
		}
		if tool == "" {
			return "", nil, -1, usageErrorf("empty tool name")
		}
	}
	if dash < 0 {
		raw := args[0]
		if u, err := url.Parse(raw); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return "", nil, -1, usageErrorf("%q is not an http or https URL; to start a stdio server, put its command after --", raw)
		}
	}
	return tool, args, dash, nil
}

// parseCallArgs checks that s is one JSON object and returns it compacted.
// Its error never quotes s, which may hold secrets.
func parseCallArgs(s string) (json.RawMessage, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, usageErrorf("--args is not valid JSON: %v (at byte %d)", se, se.Offset)
		}
		return nil, usageErrorf("--args is not valid JSON: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, usageErrorf("--args holds more than one JSON value")
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, usageErrorf("--args must be a JSON object, such as '{\"table\":\"books\"}'")
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(s)); err != nil {
		return nil, usageErrorf("--args is not valid JSON: %v", err)
	}
	return buf.Bytes(), nil
}

// doCall connects, calls the tool (or lists the tools) and prints the
// result.
func (c *cli) doCall(ctx context.Context, f *callFlags, tool string, args json.RawMessage, target composition.Transport, opts []composition.Option) error {
	sf := &f.server
	server := target.String()
	k, err := c.connect(ctx, sf, target, opts)
	if err != nil {
		return err
	}
	defer k.cancel()
	sess, runCtx, progress, explain := k.sess, k.ctx, k.progress, k.explain
	defer func() {
		if err := sess.Close(); err != nil {
			fmt.Fprintf(c.stderr, "mcpbind: warning: closing %s: %v\n", server, err)
		}
	}()
	progress("connected: protocol %s over %s", sess.ProtocolVersion(), sess.Transport())
	stdout := c.stdout
	if !f.raw {
		stdout = escapingWriter{c.stdout}
	}

	if f.list {
		tools, err := sess.ListToolsRaw(runCtx)
		if err != nil {
			return withExit(exitServer, explain(err))
		}
		return withExit(exitInput, printToolList(stdout, tools))
	}

	progress("calling tool %q", tool)
	res, err := sess.CallResult(runCtx, tool, args)
	if err != nil {
		return withExit(exitServer, explain(err)) // a *composition.ToolError for isError: true
	}
	if res.StructuredContent == nil {
		return withExit(exitInput, printContent(stdout, res.Content))
	}
	value := res.StructuredContent
	if isResultEnvelope(value) {
		// Whether {"result": v} is an envelope depends on the tool's
		// outputSchema in this session.
		tools, err := sess.ListToolsRaw(runCtx)
		if err != nil {
			fmt.Fprintf(c.stderr, "mcpbind: warning: cannot list the tools to tell whether the result is a {\"result\": v} envelope; printing it as sent: %v\n", explain(err))
		} else if o, ok := envelopeOutput(findOutputSchema(tools, tool)); ok {
			var unwrapped bool
			value, unwrapped = bindimpl.Unwrap(sess.ProtocolVersion(), o, value)
			if unwrapped {
				progress("unwrapped the {\"result\": v} envelope (protocol %s)", sess.ProtocolVersion())
			}
		}
	}
	return withExit(exitInput, printJSON(stdout, value))
}

// isResultEnvelope reports whether raw is a JSON object whose only key is
// "result".
func isResultEnvelope(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || len(m) != 1 {
		return false
	}
	_, ok := m["result"]
	return ok
}

// findOutputSchema returns the outputSchema of the tool named name among the
// raw tools, or nil.
func findOutputSchema(tools []json.RawMessage, name string) json.RawMessage {
	for _, raw := range tools {
		var t struct {
			Name         string          `json:"name"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		}
		if json.Unmarshal(raw, &t) == nil && t.Name == name {
			return t.OutputSchema
		}
	}
	return nil
}

// envelopeOutput reports whether outputSchema, a tool's outputSchema as
// listed in the session the call was made in, is a recognised {"result":
// S} envelope (SEP-2106), by the one rule (schema.Document.Envelope).
//
// call has no bundle, so the natural schema S counts as unknown (an object
// may be valid against it). The envelope is advertised for this very
// session, so its values are wrapped whatever the protocol version: the
// returned Output says so with AlwaysWraps.
func envelopeOutput(outputSchema json.RawMessage) (bindimpl.Output, bool) {
	doc, err := schema.Load(outputSchema)
	if err != nil {
		return bindimpl.Output{}, false
	}
	if _, ok := doc.Envelope(false); !ok {
		return bindimpl.Output{}, false
	}
	return bindimpl.Output{CanBeObject: true, AlwaysWraps: true}, true
}

// escapingWriter renders everything written to it with textsafe's Lines
// mode (newline and tab kept, other control, bidirectional and
// line-breaking characters escaped as \u001b and the like) before passing
// it on. Each Write must hold whole UTF-8 sequences, as the print
// functions' single writes do.
type escapingWriter struct{ w io.Writer }

func (e escapingWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(e.w, textsafe.Render(string(p), textsafe.Lines)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// printJSON writes raw indented by two spaces, with a final newline. The
// bytes are re-indented, not re-encoded: key order, numbers and string
// escapes stay as the server sent them.
func printJSON(w io.Writer, raw json.RawMessage) error {
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		buf.Reset()
		buf.Write(raw) // cannot happen: the result was decoded already
	}
	buf.WriteByte('\n')
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("writing the result: %w", err)
	}
	return nil
}

// printContent writes content blocks in order: the text of a text block
// (with a final newline added when it has none), any other block as
// indented JSON.
func printContent(w io.Writer, blocks []composition.Content) error {
	var buf bytes.Buffer
	for _, b := range blocks {
		if b.Type == "text" {
			buf.WriteString(b.Text)
			if !strings.HasSuffix(b.Text, "\n") {
				buf.WriteByte('\n')
			}
			continue
		}
		raw, err := b.MarshalJSON()
		if err != nil {
			return fmt.Errorf("writing a %s content block: %w", b.Type, err)
		}
		if err := json.Indent(&buf, raw, "", "  "); err != nil {
			buf.Write(raw)
		}
		buf.WriteByte('\n')
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("writing the result: %w", err)
	}
	return nil
}

// printToolList writes one line per tool: its name and the first line of
// its description.
func printToolList(w io.Writer, tools []json.RawMessage) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, raw := range tools {
		var t struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		}
		_ = json.Unmarshal(raw, &t)
		desc, _, _ := strings.Cut(strings.TrimSpace(t.Description), "\n")
		fmt.Fprintf(tw, "%s\t%s\n", t.Name, desc)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("writing the tool list: %w", err)
	}
	return nil
}
