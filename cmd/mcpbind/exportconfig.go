package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/export"
	"github.com/mcpbind/mcpbind/internal/redact"
	"github.com/mcpbind/mcpbind/internal/serverconf"
)

// runExportConfig carries out `mcpbind export --config FILE`: every server
// of the config (or the one named by --id), exported concurrently into one
// bundle, or merged into the existing one with --append.
//
// A failed server makes the command exit 3 after the others have been
// exported; nothing is written unless --partial is given, in which case the
// servers that succeeded are written.
func (c *cli) runExportConfig(ctx context.Context, f *exportFlags, args []string, dash int) error {
	if len(args) > 0 || dash >= 0 {
		return usageErrorf("--config names the servers; give no server command or URL with it")
	}
	if err := checkConfigFlags(&f.server, f.config); err != nil {
		return err
	}
	output := f.output
	if output == "-" {
		output = ""
	}
	if err := checkOutputPath(output); err != nil {
		return err
	}
	base, err := c.appendBase(f, output)
	if err != nil {
		return err
	}
	run, err := c.exportConfigured(ctx, &f.server, f.config, f.id, f.probeEras)
	if err != nil {
		return err
	}
	outcomes, secrets, stderr := run.outcomes, run.secrets, run.stderr
	var done []bundle.Server
	var failed []string
	for _, o := range outcomes {
		if o.Err != nil {
			failed = append(failed, o.Target.ID)
			fmt.Fprintf(stderr, "mcpbind: [%s] failed: %v\n", o.Target.ID, o.Err)
			continue
		}
		done = append(done, *o.Server)
	}
	// Schema findings: warnings, or with --strict errors that write nothing.
	for i := range done {
		if err := c.checkExported(done[i].ID, done[i].CheckSchemas(), f.strict); err != nil {
			return err
		}
	}
	failure := func(wrote string) error {
		return withExit(exitServer, fmt.Errorf("%d of %d servers failed (%s); %s",
			len(failed), len(outcomes), strings.Join(failed, ", "), wrote))
	}
	if len(failed) > 0 && !f.partial {
		kept := "nothing was written"
		if _, err := os.Stat(output); output != "" && err == nil {
			kept = "nothing was written; " + output + " is unchanged"
		}
		return failure(kept + " (--partial writes the servers that succeeded)")
	}
	if len(done) == 0 {
		return failure("nothing was written")
	}

	data, err := c.bundleBytes(base, done, output)
	if err != nil {
		return redact.Error(err, secrets)
	}
	dest, err := c.writeBundle(output, data)
	if err != nil {
		return err
	}
	if !f.server.quiet {
		var names []string
		for _, s := range done {
			names = append(names, s.ID)
		}
		verb := "exported"
		if base != nil {
			verb = "updated"
		}
		fmt.Fprintf(stderr, "mcpbind: %s %d %s (%s) in %s\n", verb, len(done), plural(len(done), "server", "servers"), strings.Join(names, ", "), dest)
	}
	if len(failed) > 0 {
		return failure("wrote the others (--partial)")
	}
	return nil
}

// checkConfigFlags refuses the server flags that contradict --config FILE
// (a usage error).
func checkConfigFlags(f *serverFlags, config string) error {
	switch {
	case len(f.headers) > 0 || f.bearerEnv != "" || len(f.env) > 0:
		return usageErrorf("--header, --bearer-env and --env do not apply with --config: set headers and env per server in %s", config)
	case f.timeout < 0:
		return usageErrorf("--timeout must not be negative")
	case f.quiet && f.verbose:
		return usageErrorf("--quiet and -v contradict each other; give one")
	}
	return nil
}

// configRun is what exportConfigured returns: the outcomes in the config's
// order, the secrets the servers were given (to redact from later errors),
// and the stderr writer the servers' goroutines share.
type configRun struct {
	outcomes []export.Outcome
	secrets  []string
	stderr   io.Writer
}

// exportConfigured exports every server of the servers config file config
// (or the one named by id, when not "") concurrently, with the server flags
// f, as export --config and check --config do (probeEras: export's
// --probe-eras), logging progress (unless --quiet) and warnings (an
// unpinned package among them) to stderr. An error (exit 2) means a server could not be
// configured, and then none was started.
func (c *cli) exportConfigured(ctx context.Context, f *serverFlags, config, id string, probeEras bool) (*configRun, error) {
	stderr := &syncWriter{w: c.stderr}
	cfg, err := serverconf.Load(config)
	if err != nil {
		return nil, withExit(exitInput, err)
	}
	var ids []string
	if id != "" {
		ids = []string{id}
	}
	servers, err := cfg.Select(ids...)
	if err != nil {
		return nil, withExit(exitInput, fmt.Errorf("--id: %w", err))
	}

	// An "auth: oauth" server gets the login of the OAuth flags: --login
	// and --no-browser apply.
	login := func(o *serverconf.OAuth) (composition.Option, error) {
		a := authOptions{clientID: o.ClientID, scopes: o.Scopes, login: f.auth.login, noBrowser: f.auth.noBrowser}
		opt, _, err := c.loginOption(&a, false)
		return opt, err
	}
	var targets []*export.Target
	var problems []error
	for i := range servers {
		if u, ok := export.UnpinnedPackage(servers[i].Command); ok {
			fmt.Fprintf(stderr, "mcpbind: [%s] warning: %s\n", servers[i].ID, u.Warning())
		}
		res, err := servers[i].Resolve(c.lookupEnv)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		tr, opts, err := res.Connection(login)
		if err != nil {
			problems = append(problems, fmt.Errorf("server %q: %w", res.ID, err))
			continue
		}
		t := &export.Target{ID: res.ID, Transport: tr, Options: opts, ProtocolVersion: res.ProtocolVersion, Timeout: res.Timeout, Secrets: res.Secrets}
		if t.Timeout == 0 {
			t.Timeout = f.timeout
		}
		t.Options = append(t.Options, waitForDiscover(), composition.WithMaxResponseBytes(f.maxResponseBytes))
		if t.ProtocolVersion == "" && f.protocolVersion != "" {
			t.ProtocolVersion = f.protocolVersion
			t.Options = append(t.Options, composition.WithProtocolVersion(f.protocolVersion))
		}
		if f.verbose {
			t.Options = append(t.Options, composition.WithStderr(&prefixWriter{w: stderr, prefix: "[" + t.ID + "] "}))
		}
		targets = append(targets, t)
	}
	if len(problems) > 0 {
		return nil, withExit(exitInput, errors.Join(problems...))
	}

	var secrets []string
	for _, t := range targets {
		secrets = append(secrets, t.Secrets...)
	}
	outcomes := export.ExportAll(ctx, targets, export.MultiOptions{
		ProbeEras: probeEras,
		Log: func(server string, warning bool, msg string) {
			switch {
			case warning:
				fmt.Fprintf(stderr, "mcpbind: [%s] warning: %s\n", server, msg)
			case !f.quiet:
				fmt.Fprintf(stderr, "mcpbind: [%s] %s\n", server, msg)
			}
		},
	})
	return &configRun{outcomes: outcomes, secrets: secrets, stderr: stderr}, nil
}

// appendBase reads the bundle that --append updates, before any server is
// started; it returns nil without --append.
func (c *cli) appendBase(f *exportFlags, output string) (*bundle.Bundle, error) {
	if !f.append {
		return nil, nil
	}
	if output == "" {
		return nil, usageErrorf("--append needs -o FILE: the bundle to add the server to")
	}
	data, err := os.ReadFile(output)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, withExit(exitInput, fmt.Errorf("--append: %s does not exist; export without --append to create it", output))
	}
	if err != nil {
		return nil, withExit(exitInput, fmt.Errorf("--append: %w", err))
	}
	b, err := bundle.Parse(data, output)
	if err != nil {
		return nil, withExit(exitInput, err)
	}
	if canon, err := b.Marshal(); err == nil && !bytes.Equal(canon, data) {
		fmt.Fprintf(c.stderr, "mcpbind: warning: %s is not in the canonical form mcpbind writes; the servers kept from it are rewritten canonically\n", output)
	}
	return b, nil
}

// bundleBytes returns the bundle to write: servers alone, or merged into
// base (--append), where each replaces the server with its id and the
// others stay as they were.
func (c *cli) bundleBytes(base *bundle.Bundle, servers []bundle.Server, output string) ([]byte, error) {
	d, err := c.bundleDocument(base, servers, output)
	if err != nil {
		return nil, err
	}
	return c.documentBytes(d, output)
}

// bundleDocument is the checked document of the bundle bundleBytes writes.
func (c *cli) bundleDocument(base *bundle.Bundle, servers []bundle.Server, output string) (*bundle.Document, error) {
	if err := stampVersion(servers, thisBuild()); err != nil {
		return nil, withExit(exitServer, err)
	}
	b := &bundle.Bundle{Servers: servers}
	if base != nil {
		b = export.Merge(base, servers)
	}
	d, err := b.Document()
	if err != nil {
		return nil, withExit(exitServer, fmt.Errorf("writing the bundle %s: %w", output, err))
	}
	return d, nil
}

// documentBytes encodes a checked document, as bundleBytes does.
func (c *cli) documentBytes(d *bundle.Document, output string) ([]byte, error) {
	data, err := d.Marshal()
	if err != nil {
		return nil, withExit(exitServer, fmt.Errorf("writing the bundle %s: %w", output, err))
	}
	return data, nil
}

// writeBundle writes data to output atomically, or to stdout when output is
// "", and returns where it went.
func (c *cli) writeBundle(output string, data []byte) (string, error) {
	if output == "" {
		if _, err := c.stdout.Write(data); err != nil {
			return "", withExit(exitInput, fmt.Errorf("writing the bundle to stdout: %w", err))
		}
		return "stdout", nil
	}
	if err := bundle.WriteFile(output, data); err != nil {
		return "", withExit(exitInput, err)
	}
	return output, nil
}

// syncWriter serializes writes to w from several goroutines.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// Write writes p to w under the lock.
func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// prefixWriter writes each line of what it is given to w with prefix in
// front, one whole line per Write to w so that servers' lines do not
// interleave mid-line. It is used from one goroutine.
type prefixWriter struct {
	w       io.Writer
	prefix  string
	partial []byte
}

// Write writes the complete lines of p, keeping a trailing partial line for
// the next call.
func (p *prefixWriter) Write(b []byte) (int, error) {
	p.partial = append(p.partial, b...)
	for {
		i := bytes.IndexByte(p.partial, '\n')
		if i < 0 {
			break
		}
		line := append([]byte(p.prefix), p.partial[:i+1]...)
		p.partial = p.partial[i+1:]
		if _, err := p.w.Write(line); err != nil {
			return len(b), err
		}
	}
	if len(p.partial) > 4<<10 { // a very long line: flush it anyway
		line := append(append([]byte(p.prefix), p.partial...), '\n')
		p.partial = p.partial[:0]
		if _, err := p.w.Write(line); err != nil {
			return len(b), err
		}
	}
	return len(b), nil
}
