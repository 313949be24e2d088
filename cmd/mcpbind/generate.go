package main

import (
	"errors"
	"fmt"
	"go/token"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/gen"
	"github.com/mcpbind/mcpbind/ir"
)

// newGenerateCmd builds `mcpbind generate BUNDLE -o DIR [--package NAME]`:
// one Go package per server of the bundle, in DIR/<package>/ (DESIGN §4).
//
// Every package is rendered and formatted in memory before any file is
// written, so a schema mcpbind cannot type (exit 2, naming server, tool and
// JSON pointer) leaves earlier output untouched; each file is then replaced
// atomically. A formatting failure is an mcpbind bug: the raw source is
// written beside the target as <file>.dump and the command fails.
func newGenerateCmd(c *cli) *cobra.Command {
	var out, pkg string
	var dumpIR bool
	var maxDepth int
	var typeNames, formatTypes []string
	cmd := &cobra.Command{
		Use:   "generate BUNDLE -o DIR",
		Short: "Generate typed Go clients from a bundle",
		Long: `Generate turns a bundle written by "mcpbind export" into Go: for each server, a
package DIR/<package>/ with argument and result types for every tool and a
Client with one method per tool. The package is named after the server id
(sqlite-explorer → sqliteexplorer) unless --package is given (single-server
bundles only). The generated code imports github.com/mcpbind/mcpbind/composition.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" && !dumpIR {
				return usageErrorf("generate: -o DIR is required")
			}
			b, err := bundle.Load(args[0])
			if err != nil {
				return withExit(exitInput, err)
			}
			if b.Format != bundle.FormatBundle {
				fmt.Fprintf(c.stderr, "mcpbind: read %s %s\n", b.Format, args[0])
			}
			g, err := gen.New()
			if err != nil {
				return err
			}
			cfg, err := generateConfig(typeNames, formatTypes)
			if err != nil {
				return err
			}
			cfg.MaxSchemaDepth = maxDepth
			outs, err := g.Bundle(b, gen.Options{Package: pkg, Config: cfg})
			if err != nil {
				return withExit(exitInput, generateError(args[0], out, err))
			}
			for _, o := range outs {
				for _, w := range o.IR.Warnings {
					fmt.Fprintf(c.stderr, "mcpbind: warning: server %q, %s\n", o.ServerID, w)
				}
			}
			for _, u := range gen.UnusedOverrides(cfg, outs) {
				fmt.Fprintf(c.stderr, "mcpbind: warning: override %s matched nothing\n", u)
			}
			if dumpIR {
				for _, o := range outs {
					d, err := o.IR.Dump()
					if err != nil {
						return err
					}
					if _, err := c.stdout.Write(d); err != nil {
						return err
					}
				}
				return nil
			}
			for _, o := range outs {
				dir := filepath.Join(out, o.Package)
				if err := gen.Write(dir, o.Files); err != nil {
					return withExit(exitInput, fmt.Errorf("write %s: %w", dir, err))
				}
				fmt.Fprintf(c.stderr, "mcpbind: server %q → %s (%d files)\n", o.ServerID, dir, len(o.Files))
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "folder that receives one package folder per server (required)")
	cmd.Flags().StringVar(&pkg, "package", "", "Go package name (single-server bundles; default: from the server id)")
	cmd.Flags().BoolVar(&dumpIR, "dump-ir", false, "print the intermediate representation as JSON to stdout instead of writing Go")
	cmd.Flags().StringArrayVar(&typeNames, "type-name", nil, "rename a generated type: DEFAULT=NAME (repeatable)")
	cmd.Flags().StringArrayVar(&formatTypes, "format-type", nil, "map a JSON Schema format to a Go type: FORMAT=GOTYPE[@IMPORT] (repeatable), e.g. uuid=uuid.UUID@github.com/google/uuid")
	addMaxSchemaDepthFlag(cmd, &maxDepth)
	return cmd
}

// generateError names the bundle in an IR error and dumps unformattable
// source beside its target.
func generateError(bundlePath, outDir string, err error) error {
	var fe *gen.FormatError
	if errors.As(err, &fe) {
		if path, ok := gen.WriteDump(outDir, err); ok {
			return fmt.Errorf("%s: %w (raw source written to %s)", bundlePath, err, path)
		}
	}
	return fmt.Errorf("%s: %w", bundlePath, err)
}

// generateConfig builds the IR configuration from --type-name and
// --format-type.
func generateConfig(typeNames, formatTypes []string) (ir.Config, error) {
	cfg := ir.DefaultConfig()
	for _, tn := range typeNames {
		from, to, ok := strings.Cut(tn, "=")
		if !ok || from == "" || !token.IsIdentifier(to) || !token.IsExported(to) {
			return cfg, usageErrorf("--type-name %q: want DEFAULT=NAME with NAME an exported Go identifier", tn)
		}
		if cfg.TypeNames == nil {
			cfg.TypeNames = map[string]string{}
		}
		cfg.TypeNames[from] = to
	}
	for _, ft := range formatTypes {
		format, spec, ok := strings.Cut(ft, "=")
		if !ok || format == "" || spec == "" {
			return cfg, usageErrorf("--format-type %q: want FORMAT=GOTYPE[@IMPORT]", ft)
		}
		jsonType := "string"
		switch expr, _, _ := strings.Cut(spec, "@"); {
		case strings.HasPrefix(expr, "int"), strings.HasPrefix(expr, "uint"):
			jsonType = "integer"
		case strings.HasPrefix(expr, "float"):
			jsonType = "number"
		}
		cfg.Formats[format] = ir.ParseFormatType(spec, jsonType)
	}
	return cfg, nil
}
