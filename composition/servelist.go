package composition

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpbind/mcpbind/internal/rawjson"
)

// listing is how a served tool is listed in each protocol era.
type listing struct {
	// tool is the mcp-go tool listed from 2026-07-28 on (natural
	// outputSchema), and registered with mcp-go.
	tool mcp.Tool
	// legacySchema is the outputSchema listed before 2026-07-28, whose
	// results are then wrapped as {"result": v}; nil when the tool is
	// listed and answered alike in both eras.
	legacySchema json.RawMessage
	// alwaysWraps: the tool is listed with its envelope and answered
	// wrapped in every era (Output.AlwaysWraps).
	alwaysWraps bool
}

// toolFields are the members of a tool object that mcp.Tool models,
// besides the schemas (which are kept as raw JSON).
type toolFields struct {
	Name         string             `json:"name"`
	Title        string             `json:"title"`
	Description  string             `json:"description"`
	Annotations  mcp.ToolAnnotation `json:"annotations"`
	Meta         *mcp.Meta          `json:"_meta"`
	Icons        []mcp.Icon         `json:"icons"`
	Execution    *mcp.ToolExecution `json:"execution"`
	DeferLoading bool               `json:"defer_loading"`
}

// listing builds the tool's listings from its tool object and the legacy
// outputSchema generate decided (see Serve): nothing is derived here.
func (st ServedTool) listing() (listing, error) {
	if st.err != nil {
		return listing{}, st.err
	}
	fail := func(format string, args ...any) (listing, error) {
		return listing{}, fmt.Errorf("composition: serving tool %q: %s", st.tool.Name, fmt.Sprintf(format, args...))
	}
	raw := json.RawMessage(st.toolJSON)
	members, err := rawjson.Members(raw)
	if err != nil {
		return fail("the tool object is not a JSON object: %v", err)
	}
	var f toolFields
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
	l := listing{tool: mcp.Tool{
		Name: f.Name, Title: f.Title, Description: f.Description, Annotations: f.Annotations,
		Meta: f.Meta, Icons: f.Icons, Execution: f.Execution, DeferLoading: f.DeferLoading,
		RawInputSchema: input,
	}}
	if len(bytes.TrimSpace(advertised)) == 0 || string(bytes.TrimSpace(advertised)) == "null" {
		if st.legacyOutput != "" {
			return fail("it has a legacy outputSchema but no outputSchema")
		}
		return l, nil
	}
	l.tool.RawOutputSchema, l.alwaysWraps = advertised, st.tool.Output.AlwaysWraps
	if st.legacyOutput != "" {
		if l.alwaysWraps {
			return fail("it always wraps, yet has a legacy outputSchema")
		}
		if !json.Valid([]byte(st.legacyOutput)) {
			return fail("its legacy outputSchema is not JSON")
		}
		l.legacySchema = json.RawMessage(st.legacyOutput)
	}
	return l, nil
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
