package schema

import (
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Dialect is a JSON Schema dialect that mcpbind reads.
type Dialect int

// The dialects, oldest first. DialectUnknown is a "$schema" mcpbind does
// not know (read as 2020-12 by Normalize, refused by the bundle checks).
const (
	DialectUnknown Dialect = iota
	Draft03                // read as draft-04, with a warning
	Draft04
	Draft06
	Draft07
	Draft2019
	Draft2020
)

// Dialects lists the dialects whose meta-schemas mcpbind checks against.
func Dialects() []Dialect { return []Dialect{Draft2020, Draft2019, Draft07, Draft06, Draft04} }

// DialectOf returns the dialect whose "$schema" URI is uri: a
// json-schema.org meta-schema URI over http or https, with or without a
// trailing "#"; "https://json-schema.org/schema" is the latest (2020-12).
// A schema without "$schema" is 2020-12, the dialect MCP specifies; that is
// the caller's to apply.
func DialectOf(uri string) Dialect {
	switch {
	case strings.Contains(uri, "json-schema.org/draft/2020-12/"):
		return Draft2020
	case strings.Contains(uri, "json-schema.org/draft/2019-09/"):
		return Draft2019
	case strings.Contains(uri, "json-schema.org/draft-07/"):
		return Draft07
	case strings.Contains(uri, "json-schema.org/draft-06/"):
		return Draft06
	case strings.Contains(uri, "json-schema.org/draft-04/"):
		return Draft04
	case strings.Contains(uri, "json-schema.org/draft-03/"):
		return Draft03
	case strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(uri, "https://"), "http://"), "#") == "json-schema.org/schema":
		return Draft2020
	}
	return DialectUnknown
}

// String names the dialect: "2020-12", "2019-09", "draft-07", …
func (d Dialect) String() string {
	switch d {
	case Draft03:
		return "draft-03"
	case Draft04:
		return "draft-04"
	case Draft06:
		return "draft-06"
	case Draft07:
		return "draft-07"
	case Draft2019:
		return "2019-09"
	case Draft2020:
		return "2020-12"
	}
	return "unknown"
}

// MetaSchemaURL is the URL of the dialect's meta-schema, as
// santhosh-tekuri/jsonschema embeds it.
func (d Dialect) MetaSchemaURL() string {
	switch d {
	case Draft2020:
		return "https://json-schema.org/draft/2020-12/schema"
	case Draft2019:
		return "https://json-schema.org/draft/2019-09/schema"
	}
	return "http://json-schema.org/" + d.String() + "/schema"
}

// noFetch is a jsonschema.URLLoader that loads nothing: mcpbind never
// fetches a schema (SEP-2106 forbids clients to resolve remote
// references). The meta-schemas come embedded in the library, which looks
// them up before asking a loader.
type noFetch struct{}

// Load refuses every URL.
func (noFetch) Load(url string) (any, error) {
	return nil, fmt.Errorf("mcpbind never fetches schemas (%s)", url)
}

// NewCompiler returns a santhosh-tekuri/jsonschema compiler that fetches
// nothing: a "$ref" or "$schema" outside the resources added to it fails.
func NewCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.UseLoader(noFetch{})
	return c
}
