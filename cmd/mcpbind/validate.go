package main

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/export"
)

// newValidateCmd builds `mcpbind validate BUNDLE...`.
func newValidateCmd(c *cli) *cobra.Command {
	var maxDepth int
	cmd := &cobra.Command{
		Use:   "validate BUNDLE...",
		Short: "Check bundles against the bundle format and the JSON Schema meta-schemas",
		Long: `Validate reads each bundle (or PMCP export) and checks it against the bundle
format's own JSON Schema, then every tool's inputSchema and outputSchema, and
every natural output schema recorded under x-mcpbind, against the meta-schema
of its dialect: the one its "$schema" names (draft-04, draft-06, draft-07,
2019-09 or 2020-12), else 2020-12. Nothing is fetched. An inputSchema must have
the root "type": "object" that MCP requires, and digests recorded under
x-mcpbind must match the tools.

Findings are printed to stdout, one a line, naming the file, server, tool,
schema and JSON pointer.

Exit codes: 0 when every bundle is clean, 2 when a file cannot be read or is
not a bundle, or when there are findings.`,
		Example: `  mcpbind validate bundle.json
  mcpbind validate golden/*/bundle.json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("validate: missing the bundle file")
			}
			return c.runValidate(args, bundle.CheckOptions{MaxSchemaDepth: maxDepth})
		},
	}
	addMaxSchemaDepthFlag(cmd, &maxDepth)
	return cmd
}

// runValidate validates each file. It goes on after a bad file, and fails
// (exit 2) when any file failed or had findings.
func (c *cli) runValidate(paths []string, opts bundle.CheckOptions) error {
	var failed []error
	findings := 0
	for _, path := range paths {
		b, err := bundle.Load(path)
		if err != nil {
			if len(paths) == 1 {
				return err // a *bundle.Error: exit 2
			}
			fmt.Fprintf(c.stderr, "mcpbind: %v\n", err)
			failed = append(failed, err)
			continue
		}
		if b.Format != bundle.FormatBundle {
			fmt.Fprintf(c.stderr, "mcpbind: read %s %s\n", b.Format, path)
		}
		fs := b.CheckSchemasWith(opts)
		for i := range b.Servers {
			fs = append(fs, b.Servers[i].CheckDigests()...)
		}
		for _, f := range fs {
			fmt.Fprintf(c.stdout, "%s: %s\n", path, f)
		}
		for _, w := range b.Warnings { // stale x-mcpbind facts: a finding here
			fmt.Fprintf(c.stdout, "%s: %s\n", path, w)
		}
		findings += len(fs) + len(b.Warnings)
		if len(fs) == 0 {
			tools := 0
			for _, s := range b.Servers {
				tools += len(s.Tools)
			}
			fmt.Fprintf(c.stderr, "mcpbind: %s: valid (%d %s, %d %s)\n", path,
				len(b.Servers), plural(len(b.Servers), "server", "servers"), tools, plural(tools, "tool", "tools"))
		}
	}
	switch {
	case findings > 0:
		msg := fmt.Sprintf("%d %s", findings, plural(findings, "finding", "findings"))
		if len(failed) > 0 {
			msg += fmt.Sprintf(", %d %s not read", len(failed), plural(len(failed), "file", "files"))
		}
		return withExit(exitInput, errors.New(msg))
	case len(failed) > 0:
		return withExit(exitInput, fmt.Errorf("%d of %d files not read", len(failed), len(paths)))
	}
	return nil
}

// The rest of this file serves `mcpbind export`: --probe-eras and the
// schema checks (--strict).

// exportWarner returns the export.Options.Warn of a server export.
func (c *cli) exportWarner(server string) func(string) {
	return func(msg string) {
		fmt.Fprintf(c.stderr, "mcpbind: warning: %s: %s\n", server, msg)
	}
}

// connectProbe opens the second session of --probe-eras: the same server,
// at the protocol version of the era that primary did not negotiate. A
// failure is a warning, and nil is returned: the export goes on without
// envelope evidence.
func (c *cli) connectProbe(ctx context.Context, target composition.Transport, opts []composition.Option, primary *composition.Session, warn func(string)) *composition.Session {
	v := export.ProbeVersion(primary.ProtocolVersion())
	popts := append(slices.Clip(opts), composition.WithProtocolVersion(v))
	ps, err := composition.Connect(ctx, target, popts...)
	if err != nil {
		warn(fmt.Sprintf("--probe-eras: cannot connect at protocol %s, so no envelope evidence is recorded: %v", v, err))
		return nil
	}
	return ps
}

// checkExported reports fs, the schema findings of the exported server id:
// as warnings, or with strict as errors that stop the export (exit 2,
// nothing written).
func (c *cli) checkExported(id string, fs []bundle.Finding, strict bool) error {
	level := "warning"
	if strict {
		level = "error"
	}
	for _, f := range fs {
		fmt.Fprintf(c.stderr, "mcpbind: %s: %s\n", level, f)
	}
	if strict && len(fs) > 0 {
		return withExit(exitInput, fmt.Errorf("server %q: %d schema %s; --strict writes no bundle",
			id, len(fs), plural(len(fs), "problem", "problems")))
	}
	return nil
}
