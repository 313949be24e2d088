package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/export"
	"github.com/mcpbind/mcpbind/internal/redact"
)

// exportFlags are the flags of `mcpbind export`: the server flags and its
// own.
type exportFlags struct {
	server serverFlags
	output string
	id     string

	// --probe-eras and --strict (helpers in validate.go).
	probeEras bool
	strict    bool

	// --config, --append, --partial (exportconfig.go).
	config  string
	append  bool
	partial bool
}

// newExportCmd builds `mcpbind export`.
func newExportCmd(c *cli) *cobra.Command {
	var f exportFlags
	cmd := &cobra.Command{
		Use:   "export [flags] (-- COMMAND [ARG...] | URL)",
		Short: "Export a live MCP server's tools into a bundle",
		Long: `Export connects to a live MCP server, lists every tool, and writes a bundle:
deterministic JSON holding each tool exactly as the server sent it, with the
negotiated protocol version, serverInfo, capabilities and instructions.

A stdio server is given as a command after --; a streamable HTTP server by the
URL of its MCP endpoint. The bundle never records the command, URL, headers,
tokens or environment values.

With --config FILE, every server of a YAML servers config (or the one named by
--id) is exported, several at once, into one bundle; a server that fails does
not stop the others, but makes the command exit 3 and write nothing unless
--partial is given. --append adds the exported server(s) to the existing
bundle -o FILE instead, replacing those with the same id and leaving the
others byte for byte. See the README for the config format.

On any error nothing is written: an existing --output file is left untouched.
Exit codes: 2 for a usage error, 3 when the server cannot be started or
reached, fails, or answers something unusable.`,
		Example: `  mcpbind export -o everything.json -- npx -y @modelcontextprotocol/server-everything
  mcpbind export --env API_KEY=xyz -- ./my-server --stdio
  mcpbind export -o remote.json --bearer-env MCP_TOKEN https://example.com/mcp`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.runExport(cmd.Context(), &f, args, cmd.ArgsLenAtDash())
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.output, "output", "o", "", "write the bundle to `FILE` (atomically; \"-\": stdout, the default)")
	fl.StringVar(&f.id, "id", "", "server `ID` in the bundle (default: slug of serverInfo.name)")
	addServerFlags(cmd, &f.server)
	fl.BoolVar(&f.probeEras, "probe-eras", false, "also list the tools at the other protocol era (2026-07-28 or 2025-11-25) and record, per tool, whether results are wrapped as {\"result\": v}")
	fl.BoolVar(&f.strict, "strict", false, "make schema problems (a schema its meta-schema rejects, an inputSchema root that is not type object) errors: exit 2, nothing written")
	fl.StringVar(&f.config, "config", "", "export every server of the servers config `FILE` (YAML; see the README), or the one named by --id")
	fl.BoolVar(&f.append, "append", false, "add the server(s) to the existing bundle -o FILE, replacing those with the same id and leaving the others byte for byte")
	fl.BoolVar(&f.partial, "partial", false, "with --config: when some servers fail, still write those that succeeded (the exit code stays 3)")
	fl.Lookup("quiet").Usage = "no progress lines or summary on stderr (warnings and errors still)"
	return cmd
}

// runExport carries out `mcpbind export`.
func (c *cli) runExport(ctx context.Context, f *exportFlags, args []string, dash int) error {
	if f.config != "" {
		return c.runExportConfig(ctx, f, args, dash)
	}
	switch {
	case f.partial:
		return usageErrorf("--partial applies to --config, which exports several servers")
	case f.server.quiet && f.server.verbose:
		return usageErrorf("--quiet and -v contradict each other; give one")
	}
	if err := checkIDFlag(f.id); err != nil {
		return err
	}
	target, opts, secrets, err := c.serverTarget(&f.server, args, dash)
	if err != nil {
		return err
	}
	if u, ok := export.UnpinnedPackage(args[max(dash, 0):]); ok && dash >= 0 {
		fmt.Fprintf(c.stderr, "mcpbind: warning: %s\n", u.Warning())
	}
	err = c.doExport(ctx, f, target, opts)
	return redact.Error(err, secrets)
}

// doExport connects, exports, and writes the bundle.
func (c *cli) doExport(ctx context.Context, f *exportFlags, target composition.Transport, opts []composition.Option) error {
	output := f.output
	if output == "-" {
		output = ""
	}
	server := target.String() // command or redacted URL: safe to print
	if err := checkOutputPath(output); err != nil {
		return err
	}
	base, err := c.appendBase(f, output)
	if err != nil {
		return err
	}
	k, err := c.connect(ctx, &f.server, target, opts)
	if err != nil {
		return err // a *composition.ConnectError: exit 3 (2 for a bad configuration)
	}
	defer k.cancel()
	sess, runCtx, progress, explain := k.sess, k.ctx, k.progress, k.explain
	closed := false
	closeSession := func() {
		if closed {
			return
		}
		closed = true
		if err := sess.Close(); err != nil {
			fmt.Fprintf(c.stderr, "mcpbind: warning: closing %s: %v\n", server, err)
		}
	}
	defer closeSession()
	progress("connected: protocol %s over %s; listing tools", sess.ProtocolVersion(), sess.Transport())
	if v := sess.ProtocolVersion(); f.server.protocolVersion != "" && v != f.server.protocolVersion {
		fmt.Fprintf(c.stderr, "mcpbind: warning: asked %s for protocol %s; it answered %s, which the bundle records\n", server, f.server.protocolVersion, v)
	}

	// --probe-eras, --strict: begin
	eopts := export.Options{ID: f.id, Warn: c.exportWarner(server), MCPBindVersion: thisBuild().Release()}
	if f.probeEras {
		progress("--probe-eras: connecting again at protocol %s", export.ProbeVersion(sess.ProtocolVersion()))
		if probe := c.connectProbe(runCtx, target, opts, sess, eopts.Warn); probe != nil {
			defer func() { _ = probe.Close() }()
			eopts.Probe = probe
		}
	}
	srv, doc, err := export.ExportDocument(runCtx, sess, eopts)
	// --probe-eras, --strict: end
	if err != nil {
		var ae *export.AnswerError
		if errors.As(err, &ae) {
			err = fmt.Errorf("server %s: %w", server, err) // the runtime's own errors name it already
		}
		return withExit(exitServer, explain(err))
	}
	// One checked document: its schema findings, then its bytes. Export
	// checked the server alone (its version recorded); with --append the
	// bundle to check is the merged one.
	if base != nil {
		if doc, err = c.bundleDocument(base, []bundle.Server{*srv}, output); err != nil {
			return err
		}
	}
	if err := c.checkExported(srv.ID, doc.CheckServerSchemasWith(srv.ID, bundle.CheckOptions{}), f.strict); err != nil { // --strict
		return err
	}
	data, err := c.documentBytes(doc, output)
	if err != nil {
		return err
	}
	closeSession()

	dest := "stdout"
	if output == "" {
		if _, err := c.stdout.Write(data); err != nil {
			return withExit(exitInput, fmt.Errorf("writing the bundle to stdout: %w", err))
		}
	} else {
		if err := bundle.WriteFile(output, data); err != nil {
			return withExit(exitInput, err)
		}
		dest = output
	}
	if f.server.quiet {
		return nil
	}
	fmt.Fprintf(c.stderr, "mcpbind: exported %d %s of server %q (%s, protocol %s, %s) to %s\n",
		len(srv.Tools), plural(len(srv.Tools), "tool", "tools"), srv.ID, describeServerInfo(srv.ServerInfo),
		srv.ProtocolVersion, srv.Transport, dest)
	return nil
}

// checkIDFlag checks the bundle server id given with --id (a usage error).
func checkIDFlag(id string) error {
	if id == "" {
		return nil
	}
	if err := bundle.CheckID(id); err != nil {
		return usageErrorf("--id: %v", err)
	}
	return nil
}

// checkOutputPath fails early, before the server is started, when the
// bundle could not be written to path.
func checkOutputPath(path string) error {
	if path == "" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return usageErrorf("--output %s is a directory", path)
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	if err != nil {
		return withExit(exitInput, fmt.Errorf("--output %s: folder %s: %w", path, dir, unwrapPath(err)))
	}
	if !fi.IsDir() {
		return withExit(exitInput, fmt.Errorf("--output %s: %s is not a folder", path, dir))
	}
	return nil
}

// unwrapPath drops the path an *os.PathError repeats.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// describeServerInfo returns "NAME VERSION" from a serverInfo object.
func describeServerInfo(raw []byte) string {
	var info struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	_ = json.Unmarshal(raw, &info)
	return strings.TrimSpace(info.Name + " " + info.Version)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
