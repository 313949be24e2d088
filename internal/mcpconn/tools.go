package mcpconn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpbind/mcpbind/internal/redact"
)

// ListToolsRaw lists every tool of the server, following nextCursor page by
// page, and returns each tool object exactly as the server sent it (same
// bytes, every field, schemas untouched), in the server's order.
//
// Paging is driven from the raw pages: mcp-go sends each tools/list request
// (with the session's protocol metadata), but decodes only a sanitized copy of
// the page (the tools that mcp.Tool can decode, which it caches for
// x-mcp-header mirroring), so a tool with a boolean or type-array schema
// root, or invalid x-mcp-header annotations, neither fails the listing nor
// goes missing.
//
// It fails, naming the server, the page and its cursor, when a request
// fails, a page is not an object with a "tools" array, a nextCursor is not a
// string, the server repeats a cursor it already gave, or there are more
// pages than [WithMaxPages] allows (default [DefaultMaxPages]).
func (s *Conn) ListToolsRaw(ctx context.Context) ([]json.RawMessage, error) {
	tools := []json.RawMessage{}
	seen := map[string]bool{}
	cursor := ""
	for page := 1; ; page++ {
		where := fmt.Sprintf("tools/list page %d", page)
		if cursor != "" {
			where += fmt.Sprintf(" (cursor %q)", truncate(cursor, 80))
		}
		if page > s.maxPages {
			return nil, fmt.Errorf("composition: %s: %s: the server has more than %d pages of tools (see WithMaxPages)", s.server, where, s.maxPages)
		}
		capt := newCapture(sanitizeToolsPage, string(mcp.MethodToolsList))
		req := mcp.ListToolsRequest{}
		req.Params.Cursor = mcp.Cursor(cursor)
		if _, err := s.client.ListToolsByPage(withCapture(ctx, capt), req); err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
				err = fmt.Errorf("%w (%w)", err, ctxErr)
			}
			err = s.annotate(err)
			if le := s.lostError(ctx, err); le != nil {
				err = &LostError{Server: le.Server, Sent: le.Sent, Err: err}
			}
			return nil, fmt.Errorf("composition: %s: %s: %w", s.server, where, err)
		}
		raw := capt.result(string(mcp.MethodToolsList))
		if raw == nil {
			return nil, fmt.Errorf("composition: %s: %s: no result was captured", s.server, where)
		}
		var body struct {
			Tools      *[]json.RawMessage `json:"tools"`
			NextCursor json.RawMessage    `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &body); err != nil {
			return nil, fmt.Errorf("composition: %s: %s: malformed result: %w (received %s)", s.server, where, err, truncate(string(raw), 200))
		}
		if body.Tools == nil {
			return nil, fmt.Errorf("composition: %s: %s: the result has no tools array (received %s)", s.server, where, truncate(string(raw), 200))
		}
		tools = append(tools, *body.Tools...)

		next := ""
		if c := nonNull(body.NextCursor); c != nil {
			if err := json.Unmarshal(c, &next); err != nil {
				return nil, fmt.Errorf("composition: %s: %s: nextCursor is not a string: %s", s.server, where, truncate(string(c), 80))
			}
		}
		if next == "" {
			return tools, nil
		}
		if seen[next] || next == cursor {
			return nil, fmt.Errorf("composition: %s: %s: the server repeated cursor %q; its pagination does not advance", s.server, where, truncate(next, 80))
		}
		seen[next] = true
		cursor = next
	}
}

// truncate shortens server text for a message to at most n bytes (on a rune
// boundary), marking the cut, after masking URL credentials in it (redact
// first, cut second).
func truncate(s string, n int) string { return redact.Cut(s, nil, n) }
