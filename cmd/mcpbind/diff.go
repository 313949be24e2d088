package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/diff"
	"github.com/mcpbind/mcpbind/ir"
)

// reportFlags are the flags diff and check share: how to print the report
// and what fails the command.
type reportFlags struct {
	format string
	failOn string
}

// The values of --format and --fail-on.
const (
	formatText     = "text"
	formatJSON     = "json"
	formatMarkdown = "markdown"

	failOnBreaking = "breaking"
	failOnAPI      = "api"
	failOnAny      = "any"
	failOnNone     = "none"
)

// addReportFlags registers --format and --fail-on.
func addReportFlags(cmd *cobra.Command, f *reportFlags) {
	fl := cmd.Flags()
	fl.StringVar(&f.format, "format", formatText, "output `FORMAT`: text, json or markdown")
	fl.StringVar(&f.failOn, "fail-on", failOnBreaking, "exit 1 when a change of this `CLASS` is found: breaking, api (the generated Go API changes), any or none")
}

// check validates the flags' values (a usage error otherwise).
func (f *reportFlags) check() error {
	switch f.format {
	case formatText, formatJSON, formatMarkdown:
	default:
		return usageErrorf("--format %q: want text, json or markdown", f.format)
	}
	switch f.failOn {
	case failOnBreaking, failOnAPI, failOnAny, failOnNone:
	default:
		return usageErrorf("--fail-on %q: want breaking, api, any or none", f.failOn)
	}
	return nil
}

// reportHelp is the part of diff's and check's help about the report.
const reportHelp = `Each change is classified:

  breaking    clients built against the old contract may fail: in an
              inputSchema (what the client sends) the server may now reject
              arguments it accepted; in an outputSchema (what generated code
              decodes) the server may now send values the old schema did not
              allow; a tool or server removed
  compatible  old clients tolerate it (a new optional input property, a new
              tool, a narrowed output enum, …)
  cosmetic    descriptions, titles, examples, annotations, serverInfo,
              instructions, protocol version
  api         regenerating the Go package changes its API: a method, type,
              field, union field or enum constant added, renamed, removed or
              retyped

--format text (default) prints one line per change, --format json a stable
JSON document (formatVersion 1), --format markdown a table per server.

Exit codes: 0 when no change of the --fail-on class (default: breaking) is
found, 1 when one is, 2 for a usage error or an unreadable or invalid
bundle`

// newDiffCmd builds `mcpbind diff OLD NEW`.
func newDiffCmd(c *cli) *cobra.Command {
	var f reportFlags
	var maxDepth int
	cmd := &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "Compare two bundles: what changed, what breaks, what changes the Go API",
		Long: `Diff compares two bundles server by server (by id) and tool by tool (by name)
and reports every change to the servers, the tools and their input and
output schemas, and to the Go API that "mcpbind generate" would produce.

` + reportHelp + ".",
		Example: `  mcpbind diff old.json new.json
  mcpbind diff --format markdown --fail-on api main.json pr.json`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageErrorf("diff takes two bundle files, OLD and NEW; got %d %s", len(args), plural(len(args), "argument", "arguments"))
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			if err := f.check(); err != nil {
				return err
			}
			old, err := c.loadBundle(args[0])
			if err != nil {
				return err
			}
			cur, err := c.loadBundle(args[1])
			if err != nil {
				return err
			}
			cfg := ir.DefaultConfig()
			cfg.MaxSchemaDepth = maxDepth
			r := diff.CompareWith(old, cur, cfg)
			r.Old, r.New = args[0], args[1]
			return c.finishReport(&r, &f)
		},
	}
	addReportFlags(cmd, &f)
	addMaxSchemaDepthFlag(cmd, &maxDepth)
	return cmd
}

// finishReport prints the report on stdout in the chosen format, a
// summary on stderr, and returns the exit-1 error when --fail-on says so.
func (c *cli) finishReport(r *diff.Report, f *reportFlags) error {
	var err error
	switch f.format {
	case formatJSON:
		err = r.WriteJSON(c.stdout)
	case formatMarkdown:
		err = r.WriteMarkdown(c.stdout)
	default:
		err = r.WriteText(c.stdout)
	}
	if err != nil {
		return withExit(exitInput, fmt.Errorf("writing the report: %w", err))
	}
	fmt.Fprintf(c.stderr, "mcpbind: %s\n", r.Summary())
	if n, what := failing(r, f.failOn); n > 0 {
		return withExit(exitBreaking, fmt.Errorf("%d %s (--fail-on %s)", n, what, f.failOn))
	}
	return nil
}

// failing counts the changes that make the command fail under --fail-on.
func failing(r *diff.Report, failOn string) (int, string) {
	switch failOn {
	case failOnBreaking:
		n := r.Count(diff.Breaking)
		return n, plural(n, "breaking change", "breaking changes")
	case failOnAPI:
		n := r.Count(diff.API)
		return n, plural(n, "change", "changes") + " to the generated Go API"
	case failOnAny:
		n := len(r.Changes)
		return n, plural(n, "change", "changes")
	}
	return 0, ""
}

// loadBundle loads a bundle (or a PMCP export, saying so on stderr); an
// error is an input error naming the file.
func (c *cli) loadBundle(path string) (*bundle.Bundle, error) {
	b, err := bundle.Load(path)
	if err != nil {
		return nil, withExit(exitInput, err)
	}
	if b.Format != bundle.FormatBundle {
		fmt.Fprintf(c.stderr, "mcpbind: %s: read as a %s\n", path, b.Format)
	}
	for _, w := range b.Warnings {
		fmt.Fprintf(c.stderr, "mcpbind: warning: %s: %s\n", path, w)
	}
	return b, nil
}
