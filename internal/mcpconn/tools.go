package mcpconn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpbind/mcpbind/internal/redact"
)

// ListToolsRaw lists every tool of the server, following nextCursor page by
// page, and returns each tool object exactly as the server sent it (same
// bytes, every field, schemas untouched), in the server's order.
//
// Paging is driven from the raw pages: mcp-go sends each tools/list request
// (with the session's protocol metadata), but decodes only a sanitized copy of
// the page (see toolsPage.sanitize), so a tool with a boolean or type-array
// schema root, or invalid x-mcp-header annotations, neither fails the listing
// nor goes missing. Each page is parsed once.
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
		// mcp-go mirrors x-mcp-header parameters only over HTTP.
		pg := toolsPage{mirrors: s.kind != TransportStdio}
		capt := newCapture(pg.sanitize, string(mcp.MethodToolsList))
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
		body := pg.body // parsed by pg.sanitize from raw, the last result recorded
		if pg.err != nil {
			return nil, fmt.Errorf("composition: %s: %s: malformed result: %w (received %s)", s.server, where, pg.err, truncate(string(raw), 200))
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

// toolsPage is one tools/list page as ListToolsRaw reads it, parsed once by
// sanitize (the capture's hook) from the raw result.
type toolsPage struct {
	// body is the parsed page: Tools is nil when the page has no "tools"
	// member (or it is null).
	body struct {
		Tools      *[]json.RawMessage `json:"tools"`
		NextCursor json.RawMessage    `json:"nextCursor"`
	}
	// err is why the page could not be parsed, if it could not.
	err error
	// mirrors says whether mcp-go may mirror x-mcp-header parameters into
	// HTTP headers on this connection (not over stdio), and so needs the
	// tools' definitions.
	mirrors bool
}

// stubInputSchema is the inputSchema of a tool as mcpgoView shows it to
// mcp-go when the tool's own has no x-mcp-header annotation.
const stubInputSchema = `{"type":"object"}`

// sanitize parses raw into p (each call replaces what the previous one
// parsed) and returns what mcp-go decodes of the page: the nextCursor when it
// is a string, and, when p.mirrors, one definition per tool (see
// mcpgoView); otherwise no tool, since mcp-go would not use one.
//
// A page that is not an object with a tools array becomes {"tools":[]}, and
// ListToolsRaw reports the problem from p.
func (p *toolsPage) sanitize(raw json.RawMessage) json.RawMessage {
	p.body.Tools, p.body.NextCursor = nil, nil
	p.err = json.Unmarshal(raw, &p.body)
	out := struct {
		Tools      []json.RawMessage `json:"tools"`
		NextCursor json.RawMessage   `json:"nextCursor,omitempty"`
	}{Tools: []json.RawMessage{}}
	if p.err == nil && p.body.Tools != nil {
		for _, t := range *p.body.Tools {
			if !p.mirrors {
				break
			}
			if v, ok := mcpgoView(t); ok {
				out.Tools = append(out.Tools, v)
			}
		}
		var cursor string
		if json.Unmarshal(p.body.NextCursor, &cursor) == nil {
			out.NextCursor = p.body.NextCursor
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return json.RawMessage(`{"tools":[]}`)
	}
	return b
}

// mcpgoView is the definition of one raw tool that sanitize shows mcp-go,
// and false when mcp-go is not shown the tool. mcp-go caches the definitions
// it lists only to mirror x-mcp-header annotated parameters of the
// inputSchema into HTTP headers on later calls (SEP-2243), so it is shown
// the tool's name and inputSchema, nothing else:
//   - when the inputSchema may hold "x-mcp-header" (see mayAnnotateHeaders),
//     as listed, provided mcp.Tool decodes it and
//     mcp.ValidateParamHeaderAnnotations accepts it (a tool mcp-go cannot
//     decode would fail the whole page);
//   - otherwise with the inputSchema {"type":"object"}: that mirrors nothing,
//     as the tool's own would not, replaces a definition cached from an
//     earlier listing, and spares mcp-go's typed decode of the schema.
//
// A tool whose name is not a string is left out.
func mcpgoView(t json.RawMessage) (json.RawMessage, bool) {
	var view struct {
		Name        json.RawMessage `json:"name"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	if json.Unmarshal(t, &view) != nil || len(view.Name) == 0 || view.Name[0] != '"' {
		return nil, false
	}
	annotated := mayAnnotateHeaders(view.InputSchema)
	if !annotated {
		view.InputSchema = json.RawMessage(stubInputSchema)
	}
	b, err := json.Marshal(view)
	if err != nil {
		return nil, false
	}
	if annotated {
		var tool mcp.Tool
		if json.Unmarshal(b, &tool) != nil || mcp.ValidateParamHeaderAnnotations(&tool) != nil {
			return nil, false
		}
	}
	return b, true
}

// mayAnnotateHeaders reports whether a raw schema may hold the key
// "x-mcp-header": its bytes contain it, or a \u escape of one of its
// characters (JSON may spell any character so; escapes of other characters,
// such as the \u003c that Go's encoder writes for '<', do not count).
func mayAnnotateHeaders(t json.RawMessage) bool {
	const key = "x-mcp-header"
	if bytes.Contains(t, []byte(key)) {
		return true
	}
	for rest := t; ; {
		i := bytes.Index(rest, []byte(`\u`))
		if i < 0 || i+6 > len(rest) {
			return false
		}
		if r, err := strconv.ParseUint(string(rest[i+2:i+6]), 16, 16); err == nil && r < 0x80 && strings.IndexByte(key, byte(r)) >= 0 {
			return true
		}
		rest = rest[i+2:]
	}
}
