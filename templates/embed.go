// Package templates holds the text/template files that gen/ renders, embedded
// in the binary. Each file defines named blocks ({{define "type/struct"}} …)
// named like their path, so gen can execute any block by name.
package templates

import "embed"

// FS holds every *.tmpl file of this folder.
//
//go:embed *.tmpl
var FS embed.FS
