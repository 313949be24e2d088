package composition

import (
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpbind/mcpbind/composition/bindimpl"
)

// listing is a served tool prepared for mcp-go: bindimpl's listing per
// era and answering, and the mcp-go tool registered.
type listing struct {
	*bindimpl.Prepared
	// tool is the mcp-go tool listed from 2026-07-28 on (natural
	// outputSchema), and registered with mcp-go.
	tool mcp.Tool
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

// newListing prepares st (bindimpl checks its tool object and schemas) and
// builds the mcp-go tool from its tool object: nothing is derived here.
func newListing(st ServedTool) (listing, error) {
	p, err := st.Prepare()
	if err != nil {
		return listing{}, err
	}
	var f toolFields
	if err := json.Unmarshal(p.Listing.Object, &f); err != nil {
		return listing{}, fmt.Errorf("composition: serving tool %q: the tool object does not decode: %v", p.Listing.Name, err)
	}
	return listing{Prepared: p, tool: mcp.Tool{
		Name: f.Name, Title: f.Title, Description: f.Description, Annotations: f.Annotations,
		Meta: f.Meta, Icons: f.Icons, Execution: f.Execution, DeferLoading: f.DeferLoading,
		RawInputSchema: p.Listing.InputSchema, RawOutputSchema: p.Listing.OutputSchema,
	}}, nil
}
