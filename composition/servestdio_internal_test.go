package composition

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestCallResultPieces: ServeStdio writes a tools/call response byte for
// byte as json.Marshal of mcp-go's response would (the same members in the
// same order: CallToolResult.MarshalJSON sorts them), whatever members the
// result has, with the raw pieces in their place.
func TestCallResultPieces(t *testing.T) {
	meta := &mcp.Meta{AdditionalFields: map[string]any{"io.modelcontextprotocol/serverInfo": map[string]any{"name": "s"}, "k": 1}}
	cases := map[string]*mcp.CallToolResult{
		"empty": {},
		"text":  mcp.NewToolResultText("hello <b> & é"),
		"raw":   {Content: []mcp.Content{rawContent{raw: json.RawMessage(`{"type":"text","text":"a"}`)}, mcp.NewImageContent("AAAA", "image/png")}},
		"error": {Content: []mcp.Content{rawContent{raw: json.RawMessage(`{"type":"text","text":"no"}`)}}, IsError: true},
		"raw structured": {
			Content:              []mcp.Content{mcp.NewTextContent(`{"a":[1,2]}`)},
			RawStructuredContent: json.RawMessage(`{"a":[1,2]}`),
		},
		"decoded structured": {Content: []mcp.Content{}, StructuredContent: map[string]any{"z": true, "a": []int{1}}},
		"modern": {
			Result:               mcp.Result{Meta: meta, ResultType: mcp.ResultTypeComplete},
			Content:              []mcp.Content{rawContent{raw: json.RawMessage(`{"type":"text","text":"x"}`)}},
			RawStructuredContent: json.RawMessage(`[1,"two",null]`),
			IsError:              true,
		},
		"pretty raw": {
			Content:              []mcp.Content{rawContent{raw: json.RawMessage("{\n  \"type\": \"text\",\r\n  \"text\": \"p\"\n}")}},
			RawStructuredContent: json.RawMessage("{\n \"s\": 1\n}"),
		},
	}
	for name, r := range cases {
		t.Run(name, func(t *testing.T) {
			for _, id := range []any{int64(7), "abc"} {
				resp := mcp.NewJSONRPCResultResponse(mcp.NewRequestId(id), r)
				want, err := json.Marshal(resp)
				if err != nil {
					t.Fatal(err)
				}
				pieces, err := callResultPieces(resp.ID, r)
				if err != nil {
					t.Fatal(err)
				}
				if got := bytes.Join(pieces, nil); !bytes.Equal(got, want) {
					t.Errorf("id %v:\n got %s\nwant %s", id, got, want)
				}
			}
		})
	}
}

// TestCallResultPiecesNotJSON: a RawStructuredContent that is not JSON is
// refused (the response would break the stream), as json.Marshal refuses it.
func TestCallResultPiecesNotJSON(t *testing.T) {
	r := &mcp.CallToolResult{Content: []mcp.Content{}, RawStructuredContent: json.RawMessage(`{"a":`)}
	if _, err := callResultPieces(mcp.NewRequestId(1), r); err == nil {
		t.Error("no error for a structuredContent that is not JSON")
	}
}
