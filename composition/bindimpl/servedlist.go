package bindimpl

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/mcpbind/mcpbind/internal/rawjson"
)

// Listing is how a served tool is listed in each protocol era: its tool
// object as the bundle holds it, with the schemas a generated package
// keeps in its SchemaSet put back.
type Listing struct {
	// Name is the tool's name.
	Name string
	// Object is the tool object listed from 2026-07-28 on: the members of
	// the tool object as exported, in order, with inputSchema ({"type":
	// "object"} when the bundle has none, as MCP requires one) and the
	// natural outputSchema.
	Object json.RawMessage
	// LegacyObject is the tool object listed before 2026-07-28: Object
	// with LegacyOutputSchema as its outputSchema; nil when the tool is
	// listed alike in both eras.
	LegacyObject json.RawMessage
	// InputSchema and OutputSchema are Object's schemas (OutputSchema nil
	// when the tool has none).
	InputSchema, OutputSchema json.RawMessage
	// LegacyOutputSchema is the outputSchema listed before 2026-07-28,
	// whose results are then wrapped as {"result": v}; nil when the tool
	// is listed and answered alike in both eras.
	LegacyOutputSchema json.RawMessage
	// AlwaysWraps: the tool is listed with its envelope and answered
	// wrapped in every era (Output.AlwaysWraps).
	AlwaysWraps bool
}

// ObjectFor returns the tool object listed toward a request of the given
// era (legacy: before 2026-07-28).
func (l Listing) ObjectFor(legacy bool) json.RawMessage {
	if legacy && l.LegacyObject != nil {
		return l.LegacyObject
	}
	return l.Object
}

// listing builds the tool's listings from its tool object and the legacy
// outputSchema generate decided: nothing is derived here.
func (st ServedTool) listing() (Listing, error) {
	fail := func(format string, args ...any) (Listing, error) {
		return Listing{}, fmt.Errorf("composition: serving tool %q: %s", st.tool.Name, fmt.Sprintf(format, args...))
	}
	raw := json.RawMessage(st.toolJSON)
	members, err := rawjson.Members(raw)
	if err != nil {
		return fail("the tool object is not a JSON object: %v", err)
	}
	var f struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return fail("the tool object does not decode: %v", err)
	}
	if f.Name != st.tool.Name {
		return fail("the tool object is named %q", f.Name)
	}
	input, err := st.schemaMember(members, "inputSchema", st.tool.InputDoc)
	if err != nil {
		return fail("%v", err)
	}
	if input == nil {
		input = json.RawMessage(`{"type":"object"}`) // required by MCP; absent in the bundle
	}
	advertised, err := st.schemaMember(members, "outputSchema", st.tool.OutputDoc)
	if err != nil {
		return fail("%v", err)
	}
	l := Listing{Name: f.Name, InputSchema: input}
	if t := bytes.TrimSpace(advertised); len(t) == 0 || string(t) == "null" {
		if st.legacyOutput != "" {
			return fail("it has a legacy outputSchema but no outputSchema")
		}
		advertised = nil
	} else {
		l.OutputSchema, l.AlwaysWraps = advertised, st.tool.Output.AlwaysWraps
		if st.legacyOutput != "" {
			if l.AlwaysWraps {
				return fail("it always wraps, yet has a legacy outputSchema")
			}
			if !json.Valid([]byte(st.legacyOutput)) {
				return fail("its legacy outputSchema is not JSON")
			}
			l.LegacyOutputSchema = json.RawMessage(st.legacyOutput)
		}
	}
	if l.Object, err = withSchemas(members, input, advertised); err != nil {
		return fail("the tool object does not encode: %v", err)
	}
	if l.LegacyOutputSchema != nil {
		if l.LegacyObject, err = withSchemas(members, input, l.LegacyOutputSchema); err != nil {
			return fail("the tool object does not encode: %v", err)
		}
	}
	return l, nil
}

// withSchemas returns the tool object members with inputSchema input and
// outputSchema output (left out when nil), each in its place in members or
// appended.
func withSchemas(members []rawjson.Member, input, output json.RawMessage) (json.RawMessage, error) {
	out := make([]rawjson.Member, 0, len(members)+2)
	var hasInput, hasOutput bool
	for _, m := range members {
		switch m.Key {
		case "inputSchema":
			m.Value, hasInput = input, true
		case "outputSchema":
			if output == nil {
				continue
			}
			m.Value, hasOutput = output, true
		}
		out = append(out, m)
	}
	if !hasInput {
		out = append(out, rawjson.Member{Key: "inputSchema", Value: input})
	}
	if !hasOutput && output != nil {
		out = append(out, rawjson.Member{Key: "outputSchema", Value: output})
	}
	return rawjson.Object(out)
}

// schemaMember returns the tool object's member key (inputSchema or
// outputSchema). Generated code leaves a schema out of the tool object when
// it is byte for byte the document doc of the package's SchemaSet; it is
// taken from there. nil when the tool has no such schema.
func (st ServedTool) schemaMember(members []rawjson.Member, key, doc string) (json.RawMessage, error) {
	if v := rawjson.Get(members, key); v != nil || doc == "" {
		return v, nil
	}
	set := st.tool.SchemaDocs()
	if set == nil {
		return nil, fmt.Errorf("its %s is in schema document %q, but the tool has no schemas", key, doc)
	}
	text, ok := set.Doc(doc)
	if !ok {
		return nil, fmt.Errorf("its %s is in schema document %q, which the package does not have", key, doc)
	}
	return json.RawMessage(text), nil
}
