// Package tooldiff compares two versions of an MCP tool — its own fields,
// its inputSchema and its outputSchema — and classifies every difference as
// breaking, compatible or cosmetic. It is the classification of `mcpbind
// diff` (package diff, which adds bundles, servers and the Go API verdict)
// and of the runtime's pinning (package composition/pinning, which compares
// a live tool with the schemas and digest its generated package embeds;
// package composition does not import it). It depends on the standard
// library only, so that a program that pins does not pull in the bundle
// and IR packages.
package tooldiff

import (
	"encoding/json"
	"fmt"
)

// Class is how much a change matters.
type Class string

// The classes, from most to least severe; API is the separate "Go API
// changes" verdict.
const (
	// Breaking changes may make existing clients fail.
	Breaking Class = "breaking"
	// Compatible changes alter the contract in a way old clients tolerate.
	Compatible Class = "compatible"
	// Cosmetic changes touch documentation and metadata only.
	Cosmetic Class = "cosmetic"
	// API changes alter the generated Go package's exported surface.
	API Class = "api"
)

// Where says which part of a server a Change is about.
type Where string

// The places a Change can be.
const (
	// InServer: the server entry itself (serverInfo, instructions, …), or
	// the server added or removed.
	InServer Where = "server"
	// InTool: a tool's own fields (title, description, annotations, …), or
	// the tool added or removed.
	InTool Where = "tool"
	// InInput: the tool's inputSchema.
	InInput Where = "input"
	// InOutput: the tool's outputSchema.
	InOutput Where = "output"
	// InGo: the generated Go package (Class API).
	InGo Where = "go"
)

// Change is one difference between the old and the new contract.
type Change struct {
	// Class says how much the change matters.
	Class Class `json:"class"`
	// Server is the server id.
	Server string `json:"server"`
	// Tool is the tool name ("" for a change to the server or to the Go
	// package as a whole).
	Tool string `json:"tool,omitempty"`
	// Where is the part the change is in.
	Where Where `json:"where"`
	// Pointer locates the change: a JSON pointer into the schema (input,
	// output), the tool object (tool) or the server entry (server); for
	// InGo, the Go identifier ("Client.Query", "QueryArgs.Limit").
	Pointer string `json:"pointer,omitempty"`
	// Code is a stable, machine-readable name of the kind of change, such
	// as "property-added" or "go-field-type-changed".
	Code string `json:"code"`
	// Message says what changed, in words.
	Message string `json:"message"`
	// Old and New are the values before and after (JSON; for InGo, Go
	// source as a JSON string), when there is one.
	Old json.RawMessage `json:"old,omitempty"`
	New json.RawMessage `json:"new,omitempty"`
}

// Location renders Server/Tool as the text format shows it.
func (c Change) Location() string {
	if c.Tool == "" {
		return c.Server
	}
	return c.Server + "/" + c.Tool
}

// Tool compares two versions of the tool name of server, given as the tool
// objects as listed (old and new JSON): its own fields (title, description,
// annotations, …: cosmetic), its inputSchema (direction Input) and its
// outputSchema (direction Output) from the natural result schema, found at
// oldNat and newNat ("" for the root; "/properties/result" for a
// {"result": …} envelope). A tool that is not a readable JSON object is
// one breaking change when its bytes differ.
func Tool(server, name string, old, new json.RawMessage, oldNat, newNat string) []Change {
	ov, oerr := decodeJSON(old)
	nv, nerr := decodeJSON(new)
	oo, _ := ov.(*object)
	no, _ := nv.(*object)
	if oerr != nil || nerr != nil || oo == nil || no == nil {
		if string(old) == string(new) {
			return nil
		}
		return []Change{{Class: Breaking, Server: server, Tool: name, Where: InTool, Code: "tool-unreadable",
			Message: "the tool is not a readable JSON object; it changed", Old: old, New: new}}
	}
	var out []Change

	// Fields other than the schemas: documentation and hints.
	fields := &object{vals: map[string]any{}}
	oldFields := &object{vals: map[string]any{}}
	for _, pair := range []struct{ from, to *object }{{no, fields}, {oo, oldFields}} {
		for _, k := range pair.from.keys {
			switch k {
			case "name", "inputSchema", "outputSchema":
				continue
			}
			pair.to.keys = append(pair.to.keys, k)
			pair.to.vals[k] = pair.from.vals[k]
		}
	}
	var leaves []leafChange
	valueDiff(oldFields, fields, true, true, "", &leaves)
	for _, l := range leaves {
		out = append(out, cosmeticLeaf(server, name, InTool, l))
	}

	add := func(cs []Change) {
		for _, c := range cs {
			c.Server, c.Tool = server, name
			out = append(out, c)
		}
	}

	// inputSchema: what the client sends.
	oin, oinOK := oo.get("inputSchema")
	nin, ninOK := no.get("inputSchema")
	if !oinOK {
		oin = true
	}
	if !ninOK {
		nin = true
	}
	add(compareDocs(oin, nin, "", "", Input))

	// outputSchema: what decoders receive, compared in its natural form.
	oout, ooutOK := oo.get("outputSchema")
	nout, noutOK := no.get("outputSchema")
	switch {
	case !ooutOK && !noutOK:
	case !ooutOK:
		add([]Change{{Class: Compatible, Where: InOutput, Code: "output-schema-added",
			Message: "the tool now declares an outputSchema", New: encodeJSON(nout)}})
	case !noutOK:
		add([]Change{{Class: Breaking, Where: InOutput, Code: "output-schema-removed",
			Message: "the tool no longer declares an outputSchema: its results are no longer typed", Old: encodeJSON(oout)}})
	default:
		oNat, nNat := oldNat, newNat
		if oNat != nNat {
			c := Change{Class: Cosmetic, Where: InOutput, Code: "envelope-changed"}
			if nNat != "" {
				c.Message = `the result is now wrapped as {"result": …} (a protocol version before 2026-07-28); generated clients unwrap it`
			} else {
				c.Message = `the result is no longer wrapped as {"result": …}; generated clients accept either form`
			}
			add([]Change{c})
		}
		add(compareDocs(oout, nout, oNat, nNat, Output))
	}
	return out
}

// cosmeticLeaf turns a metadata difference into a cosmetic Change.
func cosmeticLeaf(server, tool string, where Where, l leafChange) Change {
	c := Change{Class: Cosmetic, Server: server, Tool: tool, Where: where, Pointer: l.ptr}
	switch {
	case !l.oldOK:
		c.Code, c.Message, c.New = "field-added", "added: "+display(l.new), encodeJSON(l.new)
	case !l.newOK:
		c.Code, c.Message, c.Old = "field-removed", "removed (was "+display(l.old)+")", encodeJSON(l.old)
	default:
		c.Code, c.Old, c.New = "field-changed", encodeJSON(l.old), encodeJSON(l.new)
		c.Message = "changed"
		_, os := l.old.(string)
		_, ns := l.new.(string)
		if !os || !ns || len(display(l.old))+len(display(l.new)) < 60 {
			c.Message = "changed: " + display(l.old) + " → " + display(l.new)
		}
	}
	return c
}

// Metadata compares two versions of a metadata value at ptr (decoded with
// DecodeJSON, or a Go string; oldOK and newOK say whether each side has
// one): every difference is a cosmetic Change with the given server, tool
// and where.
func Metadata(server, tool string, where Where, ptr string, old, new any, oldOK, newOK bool) []Change {
	var leaves []leafChange
	valueDiff(old, new, oldOK, newOK, ptr, &leaves)
	out := make([]Change, 0, len(leaves))
	for _, l := range leaves {
		out = append(out, cosmeticLeaf(server, tool, where, l))
	}
	return out
}

// DecodeJSON decodes a JSON value into the form Metadata compares: objects
// keep their key order, numbers stay exact.
func DecodeJSON(data []byte) (any, error) { return decodeJSON(data) }

// CompareSchemaAt is CompareSchema starting at the natural schema pointers
// oldRoot and newRoot ("" for the documents' roots): an outputSchema is
// compared from the schema of the unwrapped result.
func CompareSchemaAt(old, new []byte, oldRoot, newRoot string, d Direction) ([]Change, error) {
	ov, err := decodeJSON(old)
	if err != nil {
		return nil, fmt.Errorf("old schema: %w", err)
	}
	nv, err := decodeJSON(new)
	if err != nil {
		return nil, fmt.Errorf("new schema: %w", err)
	}
	return compareDocs(ov, nv, oldRoot, newRoot, d), nil
}
