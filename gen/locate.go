package gen

import (
	"errors"
	"fmt"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/ir"
)

// PackageError is a failure to render one server's package that is not the
// schema's fault: the output did not format (*FormatError) or held
// something the IR did not plan (*UnsafeOutputError). It names the server,
// the Go package and, when rendering that tool alone fails too, the tool.
type PackageError struct {
	// Server is the server's id in the bundle.
	Server string
	// Package is the Go package name (the folder under -o).
	Package string
	// Tool is the first tool, in bundle order, whose package alone fails
	// the same way; "" when no single tool does.
	Tool string
	// Err is the *FormatError or *UnsafeOutputError.
	Err error
}

// Error names server, tool and the underlying failure.
func (e *PackageError) Error() string {
	if e.Tool != "" {
		return fmt.Sprintf("server %q, tool %q: %v", e.Server, e.Tool, e.Err)
	}
	return fmt.Sprintf("server %q: %v", e.Server, e.Err)
}

// Unwrap returns the *FormatError or *UnsafeOutputError.
func (e *PackageError) Unwrap() error { return e.Err }

// locate wraps a rendering failure of srv's package in a *PackageError and
// finds the tool that causes it: the first tool whose package, built and
// rendered alone, fails as well. Other errors pass through unchanged.
func (g *Generator) locate(srv *bundle.Server, pkg string, cfg ir.Config, err error) error {
	var fe *FormatError
	var ue *UnsafeOutputError
	if !errors.As(err, &fe) && !errors.As(err, &ue) {
		return err
	}
	pe := &PackageError{Server: srv.ID, Package: pkg, Err: err}
	for _, t := range srv.Tools {
		one := *srv
		one.Tools = []bundle.Tool{t}
		p, berr := ir.BuildServer(&one, pkg, cfg)
		if berr != nil {
			continue
		}
		if _, rerr := g.Package(p); rerr != nil {
			pe.Tool = t.Name
			break
		}
	}
	return pe
}
