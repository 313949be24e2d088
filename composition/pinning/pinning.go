// Package pinning classifies how a pinned tool changed, for the pinning of
// package composition: [DigestCheck] is the Connect (and Registry.Add/Use)
// option that compares a server's tools with what a generated package pins
// (its variable Pins) and, for a tool that changed, says what changed and
// how much it matters by the schema rules of `mcpbind diff` — a JSON pointer
// and a class ([composition.Breaking], [composition.Compatible] or
// [composition.Cosmetic]) per change.
//
// It is a package of its own so that a program that pins nothing does not
// link the diff engine: composition compares digests, and only a program
// that imports pinning carries the schema comparison.
//
//	s, err := composition.Connect(ctx, transport, pinning.DigestCheck(sqliteexplorer.Pins, composition.DigestFail))
//	err = reg.Use("sqlite-explorer", pinning.DigestCheck(sqliteexplorer.Pins, composition.DigestFail))
package pinning

import (
	"encoding/json"
	"slices"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/bindimpl"
	"github.com/mcpbind/mcpbind/internal/digest"
	"github.com/mcpbind/mcpbind/internal/tooldiff"
)

// DigestCheck returns a composition.Connect option that compares the live
// server's tools with p — a generated package's Pins: its ServerDigest and
// each tool's digest — at Connect and whenever the server sends
// notifications/tools/list_changed (see [composition.WithPins] for the
// rules). With [composition.DigestFail] a call of a tool that changed since
// the package was generated fails with a *[composition.ToolChangedError]
// while the other tools keep working; with [composition.DigestWarn] each
// change is a warning. In a session of the other protocol era each tool is
// compared by meaning: the {"result": …} envelope a server adds for
// sessions before 2026-07-28 is not a change.
//
// A changed tool's [composition.ToolChange] values come from its schemas,
// compared by meaning with those the package embeds by the rules of
// `mcpbind diff` (codes such as "property-added", with a JSON pointer), and
// from its other fields: when the live tool with the embedded schemas put
// back has another digest than the pinned one, one [composition.Cosmetic]
// change "tool-fields-changed" (the package embeds only the digest of the
// whole tool object; `mcpbind diff` of the bundle against a fresh export
// shows the values). A tool that is not a JSON object is one
// [composition.Breaking] change "tool-unreadable"; an outputSchema added is
// [composition.Compatible] ("output-schema-added"), one removed
// [composition.Breaking] ("output-schema-removed").
func DigestCheck(p composition.Pins, mode composition.DigestMode) composition.Option {
	return composition.WithPins(p, mode, comparer{})
}

// comparer is the composition.PinComparer of DigestCheck.
type comparer struct{}

// Compare says what differs between the pinned tool t and the live one,
// whose natural result schema is at liveRoot of its outputSchema: its
// schemas, compared by meaning with those the package embeds (package
// internal/tooldiff), and its other fields, which changed when the live
// tool with the embedded schemas put back has another digest than the
// pinned one. The session sets Server and Tool.
func (comparer) Compare(t *bindimpl.Tool, live json.RawMessage, liveRoot string) []composition.ToolChange {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(live, &members); err != nil {
		return []composition.ToolChange{{Class: composition.Breaking, Where: composition.InTool, Code: "tool-unreadable",
			Message: "the tool is not a readable JSON object; it changed"}}
	}
	set := t.SchemaDocs()
	doc := func(key string) (json.RawMessage, bool) {
		if set == nil || key == "" {
			return nil, false
		}
		d, ok := set.Doc(key)
		return json.RawMessage(d), ok
	}
	var out []composition.ToolChange
	add := func(cs []tooldiff.Change, _ error) {
		for _, c := range cs {
			out = append(out, toolChange(c))
		}
	}
	oldIn, inKnown := doc(t.InputDoc)
	if inKnown {
		newIn, ok := members["inputSchema"]
		if !ok {
			newIn = json.RawMessage("true")
		}
		add(tooldiff.CompareSchemaAt(oldIn, newIn, "", "", tooldiff.Input))
	}
	oldOut, outKnown := doc(t.OutputDoc)
	newOut, liveOut := members["outputSchema"]
	switch {
	case set == nil:
	case !outKnown && liveOut:
		out = append(out, composition.ToolChange{Class: composition.Compatible, Where: composition.InOutput, Code: "output-schema-added",
			Message: "the tool now declares an outputSchema", New: newOut})
	case outKnown && !liveOut:
		out = append(out, composition.ToolChange{Class: composition.Breaking, Where: composition.InOutput, Code: "output-schema-removed",
			Message: "the tool no longer declares an outputSchema: its results are no longer typed"})
	case outKnown:
		add(tooldiff.CompareSchemaAt(oldOut, newOut, t.ResultPointer, liveRoot, tooldiff.Output))
	}
	// The other fields: put the embedded schemas back and compare digests.
	fieldsChanged := true
	if set != nil && inKnown {
		members["inputSchema"] = oldIn
		delete(members, "outputSchema")
		if outKnown {
			members["outputSchema"] = oldOut
		}
		if raw, err := json.Marshal(members); err == nil {
			if d, err := digest.Tool(raw); err == nil && d == t.Digest {
				fieldsChanged = false
			}
		}
	}
	if fieldsChanged {
		msg := "the tool's own fields (title, description, annotations, …) changed"
		if set == nil || !inKnown {
			msg = "the tool changed (the client embeds no schemas to compare)"
		}
		out = append(out, composition.ToolChange{Class: composition.Cosmetic, Where: composition.InTool, Code: "tool-fields-changed", Message: msg})
	}
	slices.SortStableFunc(out, func(a, b composition.ToolChange) int { return classRank(a.Class) - classRank(b.Class) })
	return out
}

// toolChange is the composition.ToolChange of a change of the diff engine.
func toolChange(c tooldiff.Change) composition.ToolChange {
	return composition.ToolChange{Class: composition.ChangeClass(c.Class), Server: c.Server, Tool: c.Tool, Where: composition.ToolPart(c.Where),
		Pointer: c.Pointer, Code: c.Code, Message: c.Message, Old: c.Old, New: c.New}
}

// classRank orders classes from most to least severe.
func classRank(c composition.ChangeClass) int {
	switch c {
	case composition.Breaking:
		return 0
	case composition.Compatible:
		return 1
	}
	return 2
}
