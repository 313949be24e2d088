package schemasuite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpbind/mcpbind/internal/schema"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// TestNormalizePreservesSuiteSemantics runs schema.Normalize over every schema
// of the draft-07 and draft 2020-12 suites and checks, with an independent
// validator (santhosh-tekuri/jsonschema), that the normalized 2020-12
// schema accepts and rejects the same instances as the original did under
// its own dialect. Remote documents are not normalized, so refRemote.json
// is left out.
func TestNormalizePreservesSuiteSemantics(t *testing.T) {
	root := testenv.ModuleRoot(t)
	remotes := suiteSubdir(t, root, "jsonschema/testdata/remotes")
	for _, draft := range []struct {
		folder, schemaURI string
		d                 *jsonschema.Draft
	}{
		{"jsonschema/testdata/draft7", "http://json-schema.org/draft-07/schema#", jsonschema.Draft7},
		{"jsonschema/testdata/draft2020-12", "", jsonschema.Draft2020},
	} {
		t.Run(filepath.Base(draft.folder), func(t *testing.T) {
			dir := suiteSubdir(t, root, draft.folder)
			files, err := suiteFiles(dir)
			if err != nil {
				t.Fatal(err)
			}
			var same, changed, instances, skipped int
			for _, f := range files {
				if f == "refRemote.json" {
					continue
				}
				groups, err := ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				for i, g := range groups {
					doc := withSchema(g.Schema, draft.schemaURI)
					norm, _, err := schema.Normalize(doc)
					if err != nil {
						t.Errorf("%s #%d: Normalize: %v", f, i, err)
						continue
					}
					if bytes.Equal(norm, doc) {
						same++
					} else {
						changed++
					}
					orig, err := compile(doc, draft.d, remotes)
					if err != nil {
						skipped++ // the reference validator cannot compile the original either
						continue
					}
					got, err := compile(norm, jsonschema.Draft2020, remotes)
					if err != nil {
						t.Errorf("%s #%d (%s): the normalized schema does not compile: %v\n in: %s\nout: %s", f, i, g.Description, err, doc, norm)
						continue
					}
					for _, test := range g.Tests {
						inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(test.Data))
						if err != nil {
							t.Fatal(err)
						}
						instances++
						want := orig.Validate(inst) == nil
						if want != test.Valid {
							continue // the reference validator disagrees with the suite: no baseline
						}
						if ok := got.Validate(inst) == nil; ok != want {
							t.Errorf("%s #%d (%s) / %s: valid = %v after Normalize, %v before\n in: %s\nout: %s\ndata: %s",
								f, i, g.Description, test.Description, ok, want, doc, norm, test.Data)
						}
					}
				}
			}
			t.Logf("%d schemas rewritten, %d unchanged, %d instances checked, %d groups the reference validator cannot compile", changed, same, instances, skipped)
		})
	}
}

// withSchema adds "$schema": uri at the front of an object schema that has
// none.
func withSchema(schema json.RawMessage, uri string) json.RawMessage {
	s := bytes.TrimSpace(schema)
	if uri == "" || len(s) == 0 || s[0] != '{' || bytes.Contains(s, []byte(`"$schema"`)) {
		return s
	}
	rest := bytes.TrimSpace(s[1:])
	sep := ","
	if len(rest) > 0 && rest[0] == '}' {
		sep = ""
	}
	return json.RawMessage(fmt.Sprintf(`{"$schema":%q%s%s`, uri, sep, rest))
}

// compile compiles a schema with the reference validator; refs to
// http://localhost:1234/ load the suite's remotes folder.
func compile(schema json.RawMessage, d *jsonschema.Draft, remotes string) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(d)
	c.UseLoader(jsonschema.SchemeURLLoader{"http": remoteLoader(remotes)})
	const loc = "http://testsuite.invalid/schema.json"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, err
	}
	return c.Compile(loc)
}

// remoteLoader serves http://localhost:1234/… from the suite's remotes.
type remoteLoader string

func (dir remoteLoader) Load(url string) (any, error) {
	rest, ok := strings.CutPrefix(url, "http://localhost:1234/")
	if !ok {
		return nil, fmt.Errorf("no network: %s", url)
	}
	f, err := os.Open(filepath.Join(string(dir), filepath.FromSlash(rest)))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return jsonschema.UnmarshalJSON(f)
}
