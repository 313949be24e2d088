// Package diff compares two mcpbind bundles — or a bundle and what a live
// server lists now — and says what changed, how much it matters, and whether
// regenerating the Go client changes its API.
//
// Compare matches servers by id and tools by name and reports every change
// as a Change with a Class:
//
//   - Breaking: clients written or generated against the old contract may
//     fail against the new one. Changes are judged by direction. An
//     inputSchema describes what the client sends, so a change is breaking
//     when the server may now reject arguments it accepted before (a new
//     required property, a narrowed type, enum or bound, a property removed
//     under "additionalProperties": false). An outputSchema describes what
//     generated decoders receive, so a change is breaking when the server may
//     now send a value the old schema did not allow (a widened type, enum or
//     bound, a property removed, retyped or no longer required, a new
//     property where the old schema had "additionalProperties": false, which
//     generated structs reject). A removed tool or server is breaking.
//   - Compatible: the contract changed in a way old clients tolerate (the
//     opposite direction of each rule above, a new optional input property,
//     a new output property of an open object, a new tool or server).
//   - Cosmetic: documentation and metadata only: descriptions, titles,
//     examples, defaults, annotations, serverInfo, instructions, the
//     protocol version, the {"result": …} envelope of an older protocol era
//     (generated clients unwrap it either way).
//   - API: regenerating the Go package gives a different Go surface: a
//     method, named type, struct field, union variant or enum constant
//     added, renamed, removed or retyped. This is the second verdict; it is
//     computed from the IR (package ir) of both bundles, exactly as
//     `mcpbind generate` builds it.
//
// Schemas are compared semantically: local $refs are resolved (with their
// sibling keywords, as JSON Schema 2020-12 reads them), single and nested
// allOf members are merged, type arrays, "nullable" and enum-only schemas
// are split into one alternative per JSON type, and anyOf/oneOf
// alternatives are matched up (by JSON type, then a const discriminator, a
// $defs name, a title, equality and similarity) before their contents are
// compared. Recursive schemas terminate. Every change carries a JSON
// pointer: for schemas, a path from the schema root with $refs followed
// (/properties/sql/type), locating the change in the new schema, or in the
// old one for something removed.
package diff

import (
	"fmt"
	"slices"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/internal/tooldiff"
	"github.com/mcpbind/mcpbind/ir"
)

// Class is how much a change matters (see the package doc).
type Class = tooldiff.Class

// The classes, from most to least severe; API is the separate "Go API
// changes" verdict.
const (
	// Breaking changes may make existing clients fail.
	Breaking = tooldiff.Breaking
	// Compatible changes alter the contract in a way old clients tolerate.
	Compatible = tooldiff.Compatible
	// Cosmetic changes touch documentation and metadata only.
	Cosmetic = tooldiff.Cosmetic
	// API changes alter the generated Go package's exported surface.
	API = tooldiff.API
)

// Where says which part of a server a Change is about.
type Where = tooldiff.Where

// The places a Change can be.
const (
	// InServer: the server entry itself (serverInfo, instructions, …), or
	// the server added or removed.
	InServer = tooldiff.InServer
	// InTool: a tool's own fields (title, description, annotations, …), or
	// the tool added or removed.
	InTool = tooldiff.InTool
	// InInput: the tool's inputSchema.
	InInput = tooldiff.InInput
	// InOutput: the tool's outputSchema.
	InOutput = tooldiff.InOutput
	// InGo: the generated Go package (Class API).
	InGo = tooldiff.InGo
)

// Change is one difference between the old and the new contract: its
// Class, Server, Tool, Where, Pointer, Code, Message and the Old and New
// values (composition/pinning turns each into the composition.ToolChange
// that the runtime's *composition.ToolChangedError carries, so both
// classify alike).
type Change = tooldiff.Change

// Direction says which way values flow through a schema: Input or Output.
type Direction = tooldiff.Direction

// The directions.
const (
	// Input is a tool's inputSchema: the client sends the values, so a
	// schema that accepts fewer values than before is breaking.
	Input = tooldiff.Input
	// Output is a tool's outputSchema: the server sends the values and
	// generated code decodes them, so a schema that admits more values than
	// before is breaking.
	Output = tooldiff.Output
)

// CompareSchema compares two versions of one JSON Schema document, a
// tool's inputSchema or outputSchema, in direction d. The changes it returns
// have Where set (InInput or InOutput) and no Server or Tool. It fails only
// when old or new is not JSON. Envelopes are not looked for: Compare does
// that, through the IR.
func CompareSchema(old, new []byte, d Direction) ([]Change, error) {
	return tooldiff.CompareSchema(old, new, d)
}

// Report is the result of a comparison.
type Report struct {
	// Old and New name the two sides (file names, "live server"); callers
	// set them for the JSON and Markdown renderings.
	Old, New string
	// Changes in a stable order: by server id, then the server's own
	// changes, then tool by tool (by name) the tool's fields, its input,
	// output and Go changes, then changes to the Go package as a whole.
	Changes []Change
}

// Count returns how many changes have class c.
func (r *Report) Count(c Class) int {
	n := 0
	for _, ch := range r.Changes {
		if ch.Class == c {
			n++
		}
	}
	return n
}

// Has reports whether some change has class c.
func (r *Report) Has(c Class) bool { return r.Count(c) > 0 }

// Summary counts the changes by class: "1 breaking, 2 compatible, 0
// cosmetic, 1 Go API change".
func (r *Report) Summary() string {
	return fmt.Sprintf("%d breaking, %d compatible, %d cosmetic, %d Go API %s",
		r.Count(Breaking), r.Count(Compatible), r.Count(Cosmetic), r.Count(API), plural(r.Count(API), "change", "changes"))
}

// Compare compares two bundles. Neither is modified. It never fails: a
// schema that cannot be read is compared as opaque JSON, and a server whose
// Go package cannot be generated is reported as an API change.
func Compare(old, new *bundle.Bundle) Report {
	return CompareWith(old, new, ir.DefaultConfig())
}

// CompareWith is Compare with the IR configuration used to build the Go
// surface of both sides (Compare uses ir.DefaultConfig, as `mcpbind
// generate` does).
func CompareWith(old, new *bundle.Bundle, cfg ir.Config) Report {
	var r Report
	oldServers := serversByID(old)
	newServers := serversByID(new)
	ids := make([]string, 0, len(oldServers)+len(newServers))
	for id := range oldServers {
		ids = append(ids, id)
	}
	for id := range newServers {
		if _, ok := oldServers[id]; !ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		o, n := oldServers[id], newServers[id]
		switch {
		case o == nil:
			r.Changes = append(r.Changes, Change{Class: Compatible, Server: id, Where: InServer, Code: "server-added",
				Message: fmt.Sprintf("server added (%d %s)", len(n.Tools), plural(len(n.Tools), "tool", "tools"))})
			r.Changes = append(r.Changes, Change{Class: API, Server: id, Where: InGo, Pointer: ir.PackageName(id),
				Code: "go-package-added", Message: "package " + ir.PackageName(id) + " added"})
		case n == nil:
			r.Changes = append(r.Changes, Change{Class: Breaking, Server: id, Where: InServer, Code: "server-removed",
				Message: fmt.Sprintf("server removed (it had %d %s)", len(o.Tools), plural(len(o.Tools), "tool", "tools"))})
			r.Changes = append(r.Changes, Change{Class: API, Server: id, Where: InGo, Pointer: ir.PackageName(id),
				Code: "go-package-removed", Message: "package " + ir.PackageName(id) + " removed"})
		default:
			r.Changes = append(r.Changes, compareServer(o, n, cfg)...)
		}
	}
	return r
}

func serversByID(b *bundle.Bundle) map[string]*bundle.Server {
	m := map[string]*bundle.Server{}
	if b == nil {
		return m
	}
	for i := range b.Servers {
		m[b.Servers[i].ID] = &b.Servers[i]
	}
	return m
}

// compareServer compares two versions of one server.
func compareServer(o, n *bundle.Server, cfg ir.Config) []Change {
	id := n.ID
	var out []Change

	// The server entry's own fields: metadata only. The transport is how it
	// was reached, not part of its contract; x-mcpbind holds derived facts.
	for _, f := range []field{
		rawField("serverInfo", o.ServerInfo, n.ServerInfo),
		stringField("protocolVersion", o.ProtocolVersion, n.ProtocolVersion),
		rawField("capabilities", o.Capabilities, n.Capabilities),
		stringField("instructions", o.Instructions, n.Instructions),
	} {
		out = append(out, tooldiff.Metadata(id, "", InServer, "/"+f.name, f.old, f.new, f.oldOK, f.newOK)...)
	}

	// The Go surface, and each side's envelope facts, from the IR.
	oldPkg, oldErr := buildIR(o, cfg)
	newPkg, newErr := buildIR(n, cfg)
	apiByTool, apiRest := compareAPI(id, oldPkg, oldErr, newPkg, newErr)

	oldIR, newIR := irTools(oldPkg), irTools(newPkg)
	oldTools := toolsByName(o)
	newTools := toolsByName(n)
	names := make([]string, 0, len(oldTools)+len(newTools))
	for name := range oldTools {
		names = append(names, name)
	}
	for name := range newTools {
		if _, ok := oldTools[name]; !ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		ot, nt := oldTools[name], newTools[name]
		switch {
		case ot == nil:
			out = append(out, Change{Class: Compatible, Server: id, Tool: name, Where: InTool, Code: "tool-added", Message: "tool added", New: nt.Raw})
		case nt == nil:
			out = append(out, Change{Class: Breaking, Server: id, Tool: name, Where: InTool, Code: "tool-removed", Message: "tool removed", Old: ot.Raw})
		default:
			out = append(out, tooldiff.Tool(id, name, ot.Raw, nt.Raw, naturalPointer(oldIR[name]), naturalPointer(newIR[name]))...)
		}
		out = append(out, apiByTool[name]...)
	}
	return append(out, apiRest...)
}

// buildIR builds a server's Go package IR as `mcpbind generate` does; a
// panic in the IR becomes an error, so that one odd schema cannot take the
// whole comparison down.
func buildIR(s *bundle.Server, cfg ir.Config) (p *ir.Package, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("mcpbind bug: the IR panicked: %v", r)
		}
	}()
	return ir.BuildServer(s, ir.PackageName(s.ID), cfg)
}

// field is one member of a server entry, on both sides.
type field struct {
	name         string
	old, new     any
	oldOK, newOK bool
}

func rawField(name string, o, n []byte) field {
	ov, oerr := tooldiff.DecodeJSON(o)
	nv, nerr := tooldiff.DecodeJSON(n)
	return field{name, ov, nv, len(o) > 0 && oerr == nil, len(n) > 0 && nerr == nil}
}

func stringField(name, o, n string) field {
	return field{name, o, n, o != "", n != ""}
}

func toolsByName(s *bundle.Server) map[string]*bundle.Tool {
	m := map[string]*bundle.Tool{}
	for i := range s.Tools {
		m[s.Tools[i].Name] = &s.Tools[i]
	}
	return m
}

// irTools indexes a package's tools by name (nil p: none).
func irTools(p *ir.Package) map[string]*ir.Tool {
	m := map[string]*ir.Tool{}
	if p != nil {
		for _, t := range p.Tools {
			m[t.Name] = t
		}
	}
	return m
}

// naturalPointer is where the natural result schema sits in a tool's
// outputSchema: "" or, for a recognised {"result": S} envelope, the pointer
// of S ("/properties/result"), as the IR decided.
func naturalPointer(t *ir.Tool) string {
	if t == nil || !t.Wrapped {
		return ""
	}
	if t.NaturalPointer != "" {
		return t.NaturalPointer
	}
	return "/properties/result"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
