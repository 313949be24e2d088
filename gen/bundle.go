package gen

import (
	"fmt"
	"sort"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/ir"
)

// Options control Bundle.
type Options struct {
	// Package overrides the Go package name. It is only accepted for a
	// bundle with exactly one server; by default each server's package is
	// named after its id (ir.PackageName).
	Package string
	// Config is the IR configuration (naming); zero means ir.DefaultConfig.
	Config ir.Config
	// Server adds server.go to each package (generate --server): a Handler
	// interface and a Register function serving the tools on SDK's server.
	Server bool
	// SDK is the MCP SDK server.go serves on (generate --sdk); the zero
	// value is mcp-go.
	SDK SDK
}

// Output is the generated package of one server.
type Output struct {
	// ServerID is the server's id in the bundle.
	ServerID string
	// Package is the Go package name, also the folder name.
	Package string
	// Files are the formatted sources, in a fixed order.
	Files []File
	// IR is the package's intermediate representation (for --dump-ir).
	IR *ir.Package
}

// UnusedOverrides lists the entries of cfg.TypeNames and of the format
// table that no type of any output used, as "type NAME" and "format NAME",
// sorted. Formats of the default table are not reported.
func UnusedOverrides(cfg ir.Config, outs []Output) []string {
	used := map[string]bool{}
	for _, o := range outs {
		for _, u := range o.IR.UsedOverrides {
			used[u] = true
		}
	}
	defaults := ir.DefaultFormats()
	var unused []string
	for name := range cfg.TypeNames {
		if !used["type:"+name] {
			unused = append(unused, "type "+name)
		}
	}
	for name, ft := range cfg.Formats {
		if d, ok := defaults[name]; ok && d == ft {
			continue
		}
		if !used["format:"+name] {
			unused = append(unused, "format "+name)
		}
	}
	sort.Strings(unused)
	return unused
}

// Bundle builds the IR of every server of b and renders it. Nothing is
// written: callers write the outputs only when every server succeeded, so
// a bad schema never leaves a half-updated package behind. Two servers
// whose package names collide are an error.
func (g *Generator) Bundle(b *bundle.Bundle, opts Options) ([]Output, error) {
	cfg := opts.Config
	if cfg.Namer == nil {
		cfg = ir.DefaultConfig()
	}
	if opts.Package != "" && len(b.Servers) != 1 {
		return nil, fmt.Errorf("--package names one package, but the bundle has %d servers", len(b.Servers))
	}
	if opts.Package != "" && !ir.ValidPackageName(opts.Package) {
		return nil, fmt.Errorf("--package %q is not a valid Go package name", opts.Package)
	}
	owner := map[string]string{}
	var outs []Output
	for i := range b.Servers {
		srv := &b.Servers[i]
		name := opts.Package
		if name == "" {
			name = ir.PackageName(srv.ID)
		}
		if other, ok := owner[name]; ok {
			return nil, fmt.Errorf("servers %q and %q both map to Go package %q", other, srv.ID, name)
		}
		owner[name] = srv.ID
		p, err := ir.BuildServer(srv, name, cfg)
		if err != nil {
			return nil, err
		}
		files, err := g.Package(p)
		if opts.Server {
			files, err = g.PackageWithServerOn(p, opts.SDK)
		}
		if err != nil {
			return nil, g.locate(srv, name, cfg, err)
		}
		outs = append(outs, Output{ServerID: srv.ID, Package: name, Files: files, IR: p})
	}
	sort.Slice(outs, func(i, j int) bool { return outs[i].Package < outs[j].Package })
	return outs, nil
}
