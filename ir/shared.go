package ir

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpbind/mcpbind/internal/rawjson"
)

// SharedMember is a member of the tool objects that several tools hold
// with the same value, such as an icon set: the generated server.go
// declares it once, as the constant Const, and each tool's object refers
// to it instead of repeating it.
type SharedMember struct {
	// Const is the name of the unexported package-level constant that
	// holds JSON: the member's key and the first tool's method
	// ("iconsActionsGet"), claimed in the package's scope.
	Const string
	// Key is the member's key ("icons").
	Key string
	// JSON is the member's value, compact (rawjson.Object writes it so).
	JSON string
	// Tools is the number of tools that hold it.
	Tools int
}

// minSharedBytes is the shortest member value worth declaring once: a
// shorter one reads better where it is used.
const minSharedBytes = 64

// ServedMembers returns the members of t's object (Tool.Raw) as the
// generated server lists it: its outputSchema is the one the IR decided to
// list toward 2026-07-28 sessions (Tool.ListedOutputSchema, when set), and
// an inputSchema or outputSchema member that is byte for byte the tool's
// document in p.Schemas (sorted by key; the schema needed no
// normalization) is left out:
// the runtime takes it from the package's SchemaSet, so the schema is in
// the package once.
func (p *Package) ServedMembers(t *Tool) ([]rawjson.Member, error) {
	members, err := rawjson.Members(t.Raw)
	if err != nil {
		return nil, fmt.Errorf("tool %q: %w", t.Name, err)
	}
	kept := members[:0:0]
	for _, m := range members {
		if m.Key == "outputSchema" && t.ListedOutputSchema != nil {
			m.Value = t.ListedOutputSchema
		}
		doc := map[string]string{"inputSchema": t.InputDoc, "outputSchema": t.OutputDoc}[m.Key]
		if doc != "" {
			i, found := slices.BinarySearchFunc(p.Schemas, doc, func(d SchemaDoc, key string) int { return strings.Compare(d.Key, key) })
			if found && p.Schemas[i].JSON == string(m.Value) {
				continue
			}
		}
		kept = append(kept, m)
	}
	return kept, nil
}

// sharedMembers finds the members of the tools' served objects
// (ServedMembers) other than "name" that at least two tools hold with the
// same compact value of at least minSharedBytes bytes, in the order of
// their first tool (p.Tools are in name order) and then member order, and
// names each through the naming module: the key converted by namer, first
// letter lower-cased, then the first tool's method, claimed in names (the
// package-level scope) after the tools' descriptor variables, so a name
// never collides with a type, a descriptor, a reserved name or another
// shared member. The result depends only on the tools that hold the
// members.
func sharedMembers(p *Package, namer *Namer, names *scope) ([]SharedMember, error) {
	type occurrence struct {
		first *Tool
		count int
	}
	type memberKey struct{ key, value string }
	seen := map[memberKey]*occurrence{}
	var order []memberKey
	for _, t := range p.Tools {
		if len(t.Raw) == 0 {
			continue
		}
		members, err := p.ServedMembers(t)
		if err != nil {
			return nil, err
		}
		for _, m := range members {
			if m.Key == "name" {
				continue
			}
			var buf bytes.Buffer
			if err := json.Compact(&buf, m.Value); err != nil {
				return nil, fmt.Errorf("tool %q, member %q: %w", t.Name, m.Key, err)
			}
			if buf.Len() < minSharedBytes {
				continue
			}
			k := memberKey{m.Key, buf.String()}
			if o, ok := seen[k]; ok {
				o.count++
				continue
			}
			seen[k] = &occurrence{first: t, count: 1}
			order = append(order, k)
		}
	}
	for _, t := range p.Tools {
		names.taken[t.DescriptorVar()] = true
	}
	var shared []SharedMember
	for _, k := range order {
		o := seen[k]
		if o.count < 2 {
			continue
		}
		base := namer.Unexported(k.key)
		if base == "" {
			base = "member"
		}
		shared = append(shared, SharedMember{Const: names.claim(base + o.first.Method), Key: k.key, JSON: k.value, Tools: o.count})
	}
	return shared, nil
}
