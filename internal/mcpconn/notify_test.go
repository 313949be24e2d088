package mcpconn

import (
	"os"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestRepeatedNotificationDecodedOnce: a notification line equal byte for
// byte to the last one without params is delivered again without being
// decoded (a list_changed flood costs a comparison per line), while a
// notification with params is decoded every time and each delivery gets
// its own values.
func TestRepeatedNotificationDecodedOnce(t *testing.T) {
	const changed = `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`
	const empty = `{"jsonrpc":"2.0","method":"notifications/x","params":{}}`
	const progress = `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}`
	lines := []string{changed, changed, changed, progress, progress, changed, `{"jsonrpc":"2.0","id":7,"result":{}}`, changed,
		`{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}`, changed, empty, empty}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	tr := newStdioTransport(strings.NewReader(strings.Join(lines, "\n")+"\n"), w, stdinStall)
	var got []mcp.JSONRPCNotification
	tr.SetNotificationHandler(func(n mcp.JSONRPCNotification) { got = append(got, n) })
	if err := tr.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	<-tr.done // stdout ended: every line has been read and delivered
	defer tr.Close()

	want := []string{"notifications/tools/list_changed", "notifications/tools/list_changed", "notifications/tools/list_changed",
		"notifications/progress", "notifications/progress", "notifications/tools/list_changed", "notifications/tools/list_changed",
		"notifications/resources/list_changed", "notifications/tools/list_changed", "notifications/x", "notifications/x"}
	if len(got) != len(want) {
		t.Fatalf("%d notifications delivered, want %d: %v", len(got), len(want), got)
	}
	for i, n := range got {
		if n.Method != want[i] || n.JSONRPC != "2.0" {
			t.Errorf("notification %d: %q (jsonrpc %q), want %q", i, n.Method, n.JSONRPC, want[i])
		}
	}
	// Decoded: the first list_changed, both progress (params), the list_changed
	// after them (the progress line replaced the remembered one), the
	// resources one, the list_changed after it and the first empty-params one.
	if tr.decoded != 7 {
		t.Errorf("%d notifications decoded, want 7 (a repeated line without params is not decoded again)", tr.decoded)
	}
	for i := 9; i < 11; i++ {
		if p := got[i].Params; p.Meta != nil || p.AdditionalFields != nil {
			t.Errorf("notification %d (params {}): params %+v, want no maps (an empty map would be shared by the deliveries)", i, p)
		}
	}
	p3, p4 := got[3].Params.AdditionalFields, got[4].Params.AdditionalFields
	if p3["progress"] != float64(1) || p4["progress"] != float64(1) {
		t.Fatalf("progress params %v, %v", p3, p4)
	}
	p3["progress"] = 2.0
	if p4["progress"] != float64(1) {
		t.Error("two deliveries of a notification with params share their params")
	}
}
