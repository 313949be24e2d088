package gen

import (
	"fmt"
	"regexp"
	"testing"
)

// typeDecl matches a generated type declaration and captures its name.
var typeDecl = regexp.MustCompile(`(?m)^type (\w+) `)

// generatedOf generates the one-tool bundle of inputSchema and returns the
// bytes of its files, the bytes of its declared type names and its longest
// declared type name.
func generatedOf(t *testing.T, inputSchema string) (size, names int, longest string) {
	t.Helper()
	g, err := New()
	if err != nil {
		t.Fatal(err)
	}
	outs, err := g.Bundle(oneTool(t, inputSchema), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range outs {
		for _, f := range o.Files {
			size += len(f.Content)
			for _, m := range typeDecl.FindAllSubmatch(f.Content, -1) {
				names += len(m[1])
				if len(m[1]) > len(longest) || (len(m[1]) == len(longest) && string(m[1]) > longest) {
					longest = string(m[1])
				}
			}
		}
	}
	return size, names, longest
}

// TestDeepSchemaNamesStayShort: a schema nested 200, 400 and 1,000
// objects deep (the same property "a" at every level) gives type names of
// a dozen characters (ALevel999), never the path of properties, and
// output linear in the depth, names and type table pointers included
// (issue 17: at depth 400 a name had 1,496 characters and the output was
// O(depth²) bytes; the pointers are written relative to the enclosing
// type's, TypeInfo.Base).
func TestDeepSchemaNamesStayShort(t *testing.T) {
	perLevel, bytesPerLevel := map[int]float64{}, map[int]float64{}
	for _, depth := range []int{200, 400, 1000} {
		size, names, longest := generatedOf(t, nestedSchema(depth))
		perLevel[depth] = float64(names) / float64(depth)
		bytesPerLevel[depth] = float64(size) / float64(depth)
		if len(longest) > 60 {
			t.Errorf("depth %d: longest type name has %d characters: %.80s…", depth, len(longest), longest)
		}
		if want := fmt.Sprintf("ALevel%d", depth-1); longest != want {
			t.Errorf("depth %d: longest type name %.80s, want %s", depth, longest, want)
		}
		t.Logf("depth %d: %d bytes of output, %d bytes of type names, longest type name %s (%d characters)", depth, size, names, longest, len(longest))
	}
	// Linear: the name bytes per level at depth 1,000 are within 25 % of
	// those at depth 200 (path names would make them 5 times as many).
	if perLevel[1000] > 1.25*perLevel[200] {
		t.Errorf("type name bytes per level: %.1f at depth 200, %.1f at depth 1,000: names grow with the depth", perLevel[200], perLevel[1000])
	}
	// The whole output: within 10 % per level (quadratic would be 5×).
	if bytesPerLevel[1000] > 1.1*bytesPerLevel[200] {
		t.Errorf("output bytes per level: %.0f at depth 200, %.0f at depth 1,000: the output grows faster than the depth", bytesPerLevel[200], bytesPerLevel[1000])
	}
}
