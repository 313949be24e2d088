package ir

import (
	"strings"

	"github.com/mcpbind/mcpbind/internal/schema"
)

// FormatType is the Go type a JSON Schema "format" (or a contentEncoding)
// maps to, instead of the plain type of the schema's "type".
type FormatType struct {
	// Expr is the Go type expression, e.g. "time.Time" or "int32".
	Expr string
	// Import is the package path Expr needs ("time"), or "" for none.
	Import string
	// JSONType is the schema "type" the mapping applies to: "string",
	// "integer" or "number".
	JSONType string
	// Nilable is true when the Go type has its own nil ([]byte), so an
	// optional field needs no pointer.
	Nilable bool
}

// DefaultFormats is mcpbind's format table. Formats without an entry (date,
// time, duration, uuid, uri, email, ipv4, ipv6, …) stay Go strings — their
// Go counterparts would not round-trip every valid spelling — and are shown
// in doc comments; Validate checks them when the validator asserts formats.
// The key "contentEncoding:base64" maps strings whose contentEncoding is
// base64.
func DefaultFormats() map[string]FormatType {
	return map[string]FormatType{
		"date-time":              {Expr: "time.Time", Import: "time", JSONType: "string"},
		"int32":                  {Expr: "int32", JSONType: "integer"},
		"int64":                  {Expr: "int64", JSONType: "integer"},
		"uint32":                 {Expr: "uint32", JSONType: "integer"},
		"uint64":                 {Expr: "uint64", JSONType: "integer"},
		"float":                  {Expr: "float32", JSONType: "number"},
		"double":                 {Expr: "float64", JSONType: "number"},
		"contentEncoding:base64": {Expr: "[]byte", JSONType: "string", Nilable: true},
	}
}

// ParseFormatType reads a format mapping given on the command line:
// "GOTYPE" or "GOTYPE@IMPORT" ("netip.Addr@net/netip") for the JSON type
// jsonType.
func ParseFormatType(spec, jsonType string) FormatType {
	expr, imp, _ := strings.Cut(spec, "@")
	return FormatType{Expr: expr, Import: imp, JSONType: jsonType, Nilable: strings.HasPrefix(expr, "[]") || strings.HasPrefix(expr, "map[")}
}

// formatType returns the format table entry for a schema of JSON type typ,
// recording the entry as used.
func (b *builder) formatType(n *schema.Node, typ string) (FormatType, bool) {
	keys := []string{n.S.Format}
	if n.S.ContentEncoding != "" {
		keys = append([]string{"contentEncoding:" + n.S.ContentEncoding}, keys...)
	}
	for _, k := range keys {
		if k == "" || k == "contentEncoding:" {
			continue
		}
		if ft, ok := b.cfg.Formats[k]; ok && ft.JSONType == typ {
			b.used["format:"+k] = true
			return ft, true
		}
	}
	return FormatType{}, false
}
