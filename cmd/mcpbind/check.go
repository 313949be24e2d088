package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/diff"
	"github.com/mcpbind/mcpbind/export"
	"github.com/mcpbind/mcpbind/internal/redact"
	"github.com/mcpbind/mcpbind/internal/serverid"
)

// checkFlags are the flags of `mcpbind check`: the server flags, the
// server's --id in the bundle and --config.
type checkFlags struct {
	server serverFlags
	id     string
	config string
}

// newCheckCmd builds `mcpbind check BUNDLE (-- COMMAND [ARG...] | URL)`:
// the bundle's contract against what the live server lists now.
func newCheckCmd(c *cli) *cobra.Command {
	var f checkFlags
	var rf reportFlags
	cmd := &cobra.Command{
		Use:   "check BUNDLE [flags] (-- COMMAND [ARG...] | URL | --config FILE)",
		Short: "Compare a bundle with what the live server lists now",
		Long: `Check connects to a live MCP server exactly as "mcpbind export" does (a stdio
command after --, or the URL of a streamable HTTP endpoint; the same server
flags), lists its tools in memory, and compares the bundle's entry for that
server (old) with the live contract (new), as "mcpbind diff" does. Nothing is
written.

The server is picked in the bundle by --id; without it, the bundle's only
server, or, in a bundle of several, the one whose id or serverInfo name
matches the live server's name.

With --config FILE (a servers config, as "mcpbind export --config" reads it)
every server of the config, or the one named by --id, is started and listed
concurrently, and the bundle is compared with what "export --config" would
write now, in one report with a section per server: a server of the config
that the bundle lacks is reported added, a server of the bundle that the
config lacks removed (breaking). A server that fails is left out of the
report, which still covers the others, and the command exits 3.

` + reportHelp + `, 3 when the server cannot be started or reached, fails, or
answers something unusable.`,
		Example: `  mcpbind check sqlite-explorer.json -- ./sqlite-explorer --dir data
  mcpbind check --id remote --bearer-env MCP_TOKEN servers.json https://example.com/mcp
  mcpbind check --config servers.yaml --format markdown servers.json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.runCheck(cmd.Context(), &f, &rf, args, cmd.ArgsLenAtDash())
		},
	}
	cmd.Flags().StringVar(&f.id, "id", "", "the server `ID` in the bundle to check (default: its only server, or the one matching the live server's name; with --config, the one of the config)")
	cmd.Flags().StringVar(&f.config, "config", "", "check every server of the servers config `FILE` (YAML, as export --config reads it) against the bundle")
	addServerFlags(cmd, &f.server)
	addReportFlags(cmd, &rf)
	return cmd
}

// runCheck carries out `mcpbind check`.
func (c *cli) runCheck(ctx context.Context, f *checkFlags, rf *reportFlags, args []string, dash int) error {
	if err := rf.check(); err != nil {
		return err
	}
	if f.config != "" {
		return c.runCheckConfig(ctx, f, rf, args, dash)
	}
	if len(args) == 0 || dash == 0 {
		return usageErrorf("missing the BUNDLE to check: mcpbind check BUNDLE (-- COMMAND [ARG...] | URL)")
	}
	path := args[0]
	if dash > 0 {
		dash--
	}
	if err := checkIDFlag(f.id); err != nil {
		return err
	}
	target, opts, secrets, err := c.serverTarget(&f.server, args[1:], dash)
	if err != nil {
		return err
	}
	if u, ok := export.UnpinnedPackage(args[1+max(dash, 0):]); ok && dash >= 0 {
		fmt.Fprintf(c.stderr, "mcpbind: warning: %s\n", u.Warning())
	}
	b, err := c.loadBundle(path)
	if err != nil {
		return err
	}

	// Pick the server before starting the live one when the bundle says
	// which, and export the live one under the same id.
	var want *bundle.Server
	switch {
	case len(b.Servers) == 0:
		return withExit(exitInput, fmt.Errorf("%s: the bundle has no servers", path))
	case f.id != "":
		if want = findServer(b, f.id); want == nil {
			return withExit(exitInput, fmt.Errorf("%s: no server %q in the bundle (it has %s)", path, f.id, serverIDs(b)))
		}
	case len(b.Servers) == 1:
		want = &b.Servers[0]
	}
	id := f.id
	if want != nil {
		id = want.ID
	}
	srv, err := c.liveServer(ctx, &f.server, id, target, opts)
	if err != nil {
		return redact.Error(err, secrets)
	}
	if want == nil {
		if want, err = matchServer(b, srv); err != nil {
			return withExit(exitInput, fmt.Errorf("%s: %w", path, err))
		}
		srv.ID = want.ID
	}

	c.warnOtherServer(c.stderr, path, want, srv)
	r := diff.Compare(&bundle.Bundle{Servers: []bundle.Server{*want}}, &bundle.Bundle{Servers: []bundle.Server{*srv}})
	r.Old, r.New = path, "live "+target.String()
	return redact.Error(c.finishReport(&r, rf), secrets)
}

// warnOtherServer warns when the live server srv has another serverInfo
// name than the bundle's entry want was exported from.
func (c *cli) warnOtherServer(w io.Writer, path string, want, srv *bundle.Server) {
	if was, is := serverName(want), serverName(srv); was != is {
		fmt.Fprintf(w, "mcpbind: warning: the live server is named %q, but server %q of %s was exported from %q: is this the right server? The changes below compare two different servers.\n",
			is, want.ID, path, was)
	}
}

// runCheckConfig carries out `mcpbind check --config FILE BUNDLE`: every
// server of the servers config (or the one named by --id) is exported
// live, concurrently, as export --config does, and the bundle is compared
// with what export --config would write now, as diff compares two bundles:
// a server of the config that the bundle lacks is reported added, a server
// of the bundle that the config lacks removed (breaking). With --id only
// that server is compared. A server that fails is left out of the report
// and makes the command exit 3 after the report of the others.
func (c *cli) runCheckConfig(ctx context.Context, f *checkFlags, rf *reportFlags, args []string, dash int) error {
	if len(args) != 1 || dash >= 0 {
		return usageErrorf("check --config FILE takes the BUNDLE alone: the config names the servers and how to start them")
	}
	if err := checkConfigFlags(&f.server, f.config); err != nil {
		return err
	}
	path := args[0]
	b, err := c.loadBundle(path)
	if err != nil {
		return err
	}
	run, err := c.exportConfigured(ctx, &f.server, f.config, f.id, false)
	if err != nil {
		return err
	}
	outcomes, stderr := run.outcomes, run.stderr
	old, cur := &bundle.Bundle{}, &bundle.Bundle{}
	configured := map[string]bool{}
	var failed []string
	for _, o := range outcomes {
		configured[o.Target.ID] = true
		if o.Err != nil {
			failed = append(failed, o.Target.ID)
			fmt.Fprintf(stderr, "mcpbind: [%s] failed: %v\n", o.Target.ID, o.Err)
			continue
		}
		cur.Servers = append(cur.Servers, *o.Server)
		if want := findServer(b, o.Target.ID); want != nil {
			c.warnOtherServer(stderr, path, want, o.Server)
			old.Servers = append(old.Servers, *want)
		} else {
			fmt.Fprintf(stderr, "mcpbind: [%s] is in %s but not in %s: reported as added; export --config %s -o %s adds it\n", o.Target.ID, f.config, path, f.config, path)
		}
	}
	for _, s := range b.Servers {
		if f.id == "" && !configured[s.ID] {
			fmt.Fprintf(stderr, "mcpbind: [%s] is in %s but not in %s: reported as removed\n", s.ID, path, f.config)
			old.Servers = append(old.Servers, s)
		}
	}
	r := diff.Compare(old, cur)
	r.Old, r.New = path, "live servers of "+f.config
	if err := c.finishReport(&r, rf); err != nil || len(failed) == 0 {
		return redact.Error(err, run.secrets)
	}
	return withExit(exitServer, fmt.Errorf("%d of %d servers failed (%s): they are not checked", len(failed), len(outcomes), strings.Join(failed, ", ")))
}

// findServer returns the bundle's server with id, or nil.
func findServer(b *bundle.Bundle, id string) *bundle.Server {
	for i := range b.Servers {
		if b.Servers[i].ID == id {
			return &b.Servers[i]
		}
	}
	return nil
}

// matchServer picks, in a bundle of several servers, the one the live
// server srv (exported under the slug of its name) is: the one with that id,
// else the only one whose serverInfo name has that slug.
func matchServer(b *bundle.Bundle, srv *bundle.Server) (*bundle.Server, error) {
	if s := findServer(b, srv.ID); s != nil {
		return s, nil
	}
	var found []*bundle.Server
	for i := range b.Servers {
		var info struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(b.Servers[i].ServerInfo, &info)
		if info.Name != "" && serverid.Slug(info.Name) == srv.ID {
			found = append(found, &b.Servers[i])
		}
	}
	if len(found) == 1 {
		return found[0], nil
	}
	return nil, fmt.Errorf("the live server is %q and the bundle has %s; say which to check with --id", describeServerInfo(srv.ServerInfo), serverIDs(b))
}

// serverIDs lists a bundle's server ids for messages.
func serverIDs(b *bundle.Bundle) string {
	ids := make([]string, len(b.Servers))
	for i, s := range b.Servers {
		ids[i] = fmt.Sprintf("%q", s.ID)
	}
	return plural(len(ids), "server ", "servers ") + strings.Join(ids, ", ")
}

// serverName is the name in a server's serverInfo ("" when it has none).
func serverName(s *bundle.Server) string {
	var info struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(s.ServerInfo, &info)
	return info.Name
}
