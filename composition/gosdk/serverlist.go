package gosdk

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpbind/mcpbind/composition/bindimpl"
	"github.com/mcpbind/mcpbind/internal/rawjson"
)

// listingMiddleware returns the receiving middleware that lists the tools
// of one Serve call (listed, keyed by the *mcp.Tool registered) as their
// tool objects of the request's era. Another Serve call's middleware adds
// its own tools to the same answer.
func listingMiddleware(listed map[*mcp.Tool]bindimpl.Listing) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if err != nil || method != "tools/list" {
				return res, err
			}
			switch r := res.(type) {
			case *mcp.ListToolsResult:
				lr, _ := req.(*mcp.ListToolsRequest)
				legacy := true
				if lr != nil && lr.Params != nil {
					legacy = legacyMeta(lr.Params.Meta)
				}
				return &toolList{ListToolsResult: r, legacy: legacy, listed: []map[*mcp.Tool]bindimpl.Listing{listed}}, nil
			case *toolList:
				r.listed = append(r.listed, listed)
			}
			return res, err
		}
	}
}

// toolList is a tools/list result whose served tools are written as their
// tool objects, byte for byte, instead of as go-sdk's mcp.Tool. It embeds
// the result go-sdk built (pagination, _meta, resultType stay go-sdk's).
type toolList struct {
	*mcp.ListToolsResult
	// legacy: the request's era is before 2026-07-28.
	legacy bool
	// listed are the served tools of each Serve call.
	listed []map[*mcp.Tool]bindimpl.Listing
}

// MarshalJSON writes the result go-sdk built with each served tool as its
// tool object of the request's era; other tools as go-sdk writes them.
func (t *toolList) MarshalJSON() ([]byte, error) {
	tools := make([]json.RawMessage, len(t.Tools))
	for i, tool := range t.Tools {
		if l, ok := t.lookup(tool); ok {
			tools[i] = l.ObjectFor(t.legacy)
			continue
		}
		b, err := json.Marshal(tool)
		if err != nil {
			return nil, fmt.Errorf("gosdk: encoding tool %q for tools/list: %w", tool.Name, err)
		}
		tools[i] = b
	}
	list, err := json.Marshal(tools)
	if err != nil {
		return nil, err
	}
	base := *t.ListToolsResult
	base.Tools = nil
	b, err := json.Marshal(&base)
	if err != nil {
		return nil, err
	}
	members, err := rawjson.Members(b)
	if err != nil {
		return nil, err
	}
	for i := range members {
		if members[i].Key == "tools" {
			members[i].Value = list
		}
	}
	return rawjson.Object(members)
}

// lookup returns the listing of a served tool.
func (t *toolList) lookup(tool *mcp.Tool) (bindimpl.Listing, bool) {
	for _, m := range t.listed {
		if l, ok := m[tool]; ok {
			return l, true
		}
	}
	return bindimpl.Listing{}, false
}
