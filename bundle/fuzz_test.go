package bundle

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse checks that Parse never panics and that whatever it accepts
// Marshal writes, and Parse reads back to the same bytes.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"canonical.json", "pmcp-export.json", "pmcp-cli-export.json"} {
		if data, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"bundleVersion":1,"servers":[]}`))
	f.Add([]byte(bundleWith("", `{"name":"a","inputSchema":{"type":"object"}}`)))
	f.Add([]byte(`{"bundleVersion":2}`))
	f.Add([]byte(`{"server_id":"a","tools":[{"name":"t","input_schema":{"type":"object"},"annotations":{"pmcp:outputSchema":{}}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := Parse(data, "fuzz.json")
		if err != nil {
			return
		}
		out, err := b.Marshal()
		if err != nil {
			t.Fatalf("Marshal of a parsed bundle: %v\ninput: %q", err, data)
		}
		b2, err := Parse(out, "out.json")
		if err != nil {
			t.Fatalf("Parse of Marshal output: %v\n%s", err, out)
		}
		out2, err := b2.Marshal()
		if err != nil || !bytes.Equal(out, out2) {
			t.Fatalf("not stable (err %v):\n%s\n%s", err, out, out2)
		}
	})
}
