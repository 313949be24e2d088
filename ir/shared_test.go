package ir

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestSharedMembers: a member two tools hold with the same value of at
// least minSharedBytes bytes is declared once, named after its key and its
// first tool (by name) through the package's scope; a member one tool
// holds, a short one, and the name and schemas are not; a name that would
// collide with a tool's descriptor variable (key "tool") gets a suffix;
// the result does not depend on an unrelated tool.
func TestSharedMembers(t *testing.T) {
	icons := `[{"src":"data:image/png;base64,` + strings.Repeat("A", 80) + `","mimeType":"image/png"}]`
	other := `[{"src":"data:image/png;base64,` + strings.Repeat("B", 80) + `","mimeType":"image/png"}]`
	long := `{"x":"` + strings.Repeat("y", 70) + `"}`
	tool := func(name, extra string) string {
		return fmt.Sprintf(`{"name":%q,"inputSchema":{"type":"object","properties":{"a":{"type":"string","description":%q}}}%s}`,
			name, strings.Repeat("d", 80), extra)
	}
	tools := []string{
		tool("b_tool", `,"icons":`+icons+`,"tool":`+long),
		tool("a_tool", `,"icons":`+icons+`,"annotations":{"title":"t"}`),
		tool("c_tool", `,"icons":`+other+`,"annotations":{"title":"t"},"tool":`+long),
		tool("d_tool", `,"icons":`+other),
	}
	got := build(t, tools...).SharedMembers
	want := []SharedMember{
		{Const: "iconsATool", Key: "icons", JSON: icons, Tools: 2},
		// "tool" + BTool is b_tool's descriptor variable toolBTool.
		{Const: "toolBTool2", Key: "tool", JSON: long, Tools: 2},
		{Const: "iconsCTool", Key: "icons", JSON: other, Tools: 2},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("shared members:\n got %+v\nwant %+v", got, want)
	}

	unrelated := append(slices.Clone(tools), tool("0_first", `,"icons":[{"src":"x"}]`))
	if again := build(t, unrelated...).SharedMembers; !slices.Equal(again, want) {
		t.Errorf("an unrelated tool changed the shared members: %+v", again)
	}
}

// TestUnexported: the constant names start lower case, initialisms
// lower-cased whole, plural ones too.
func TestUnexported(t *testing.T) {
	namer := NewNamer(DefaultInitialisms())
	for in, want := range map[string]string{"Icons": "icons", "URL": "url", "URLList": "urlList", "X名前": "x名前", "Meta": "meta",
		"IDs": "ids", "userIDs": "userIDs", "_meta": "meta", "2fa": "x2Fa", "名前": "x名前", "": ""} {
		if got := namer.Unexported(in); got != want {
			t.Errorf("Unexported(%q) = %q, want %q", in, got, want)
		}
	}
}
