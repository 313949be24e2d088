package golden

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/bundle"
	"github.com/mcpbind/mcpbind/gen"
	"github.com/mcpbind/mcpbind/golden/brave/bravesearchmcpserver"
	"github.com/mcpbind/mcpbind/golden/everything/everything"
	"github.com/mcpbind/mcpbind/golden/github/githubmcpserver"
	"github.com/mcpbind/mcpbind/golden/hostile/hostile"
	"github.com/mcpbind/mcpbind/golden/sqlite-explorer/sqliteexplorer"
	"github.com/mcpbind/mcpbind/golden/styles/styles"
	"github.com/mcpbind/mcpbind/ir"
)

// corpusPackage is a golden package whose argument and result structs the
// corpus is made from.
type corpusPackage struct {
	bundle    string
	client    reflect.Type // *Client
	unmarshal func([]byte, any) error
}

// TestEncodingJSONCorpus: for every argument and result struct of six
// golden packages, a minimal valid instance (its required properties only)
// and the invalid instances of the corpus: each required property
// left out, each required property's name in upper case, and an unknown
// property in a closed object. json.Unmarshal must decide each one as the
// package's Unmarshal does — accept the valid ones, reject every invalid one.
func TestEncodingJSONCorpus(t *testing.T) {
	g, err := gen.New()
	if err != nil {
		t.Fatal(err)
	}
	pkgs := []corpusPackage{
		{"brave/bundle.json", reflect.TypeFor[*bravesearchmcpserver.Client](), bravesearchmcpserver.Unmarshal},
		{"everything/bundle.json", reflect.TypeFor[*everything.Client](), everything.Unmarshal},
		{"github/bundle.json", reflect.TypeFor[*githubmcpserver.Client](), githubmcpserver.Unmarshal},
		{"hostile/bundle.json", reflect.TypeFor[*hostile.Client](), hostile.Unmarshal},
		{"sqlite-explorer/bundle.json", reflect.TypeFor[*sqliteexplorer.Client](), sqliteexplorer.Unmarshal},
		{"styles/bundle.json", reflect.TypeFor[*styles.Client](), styles.Unmarshal},
	}
	var valid, invalid, pkgRejected, stdRejected, noBase int
	for _, p := range pkgs {
		b, err := bundle.Load(p.bundle)
		if err != nil {
			t.Fatal(err)
		}
		outs, err := g.Bundle(b, gen.Options{})
		if err != nil || len(outs) != 1 {
			t.Fatalf("%s: %d packages (%v)", p.bundle, len(outs), err)
		}
		for _, tool := range outs[0].IR.Tools {
			m, ok := p.client.MethodByName(tool.Method)
			if !ok {
				t.Fatalf("%s: Client has no method %s", p.bundle, tool.Method)
			}
			var goTypes []reflect.Type
			var irTypes []*ir.Type
			if tool.Args != nil {
				goTypes, irTypes = append(goTypes, m.Type.In(m.Type.NumIn()-1)), append(irTypes, tool.Args)
			}
			if tool.Result != nil && tool.Result.Kind == ir.KindStruct {
				rt := m.Type.Out(0)
				for rt.Kind() == reflect.Pointer {
					rt = rt.Elem()
				}
				goTypes, irTypes = append(goTypes, rt), append(irTypes, tool.Result)
			}
			for i, it := range irTypes {
				if it.Kind != ir.KindStruct {
					continue
				}
				base, ok := minimalInstance(it, 0)
				decide := func(in string) (pkgErr, stdErr error) {
					return p.unmarshal([]byte(in), reflect.New(goTypes[i]).Interface()), json.Unmarshal([]byte(in), reflect.New(goTypes[i]).Interface())
				}
				if !ok {
					noBase++
					continue
				}
				if pkgErr, stdErr := decide(base); pkgErr != nil || stdErr != nil {
					noBase++ // a minimal instance this harness cannot make
					continue
				}
				valid++
				for _, in := range invalidInstances(it, base) {
					invalid++
					pkgErr, stdErr := decide(in)
					if pkgErr != nil {
						pkgRejected++
					}
					if stdErr != nil {
						stdRejected++
					}
					if (pkgErr == nil) != (stdErr == nil) {
						t.Errorf("%s %s: Unmarshal: %v, json.Unmarshal: %v", goTypes[i].Name(), in, pkgErr, stdErr)
					}
				}
			}
		}
	}
	t.Logf("%d structs with a minimal valid instance (%d without); %d invalid instances: Unmarshal rejected %d, json.Unmarshal %d",
		valid, noBase, invalid, pkgRejected, stdRejected)
	if invalid < 100 || pkgRejected != invalid || stdRejected != invalid {
		t.Errorf("invalid instances: %d, Unmarshal rejected %d, json.Unmarshal %d: want all rejected both ways", invalid, pkgRejected, stdRejected)
	}
}

// invalidInstances returns the minimal instance base of the struct t with
// each required property left out, each renamed to upper case, and, when t
// is closed, with an unknown property added.
func invalidInstances(t *ir.Type, base string) []string {
	var members map[string]json.RawMessage
	if json.Unmarshal([]byte(base), &members) != nil {
		return nil
	}
	encode := func(m map[string]json.RawMessage) string {
		b, _ := json.Marshal(m)
		return string(b)
	}
	var out []string
	for _, r := range t.Required {
		if _, ok := members[r]; !ok {
			continue
		}
		m := maps.Clone(members)
		delete(m, r)
		out = append(out, encode(m))
		if up := strings.ToUpper(r); up != r && !slices.Contains(t.Required, up) {
			m[up] = members[r]
			out = append(out, encode(m))
		}
	}
	if t.Closed {
		m := maps.Clone(members)
		m["zz_not_a_property"] = json.RawMessage("1")
		out = append(out, encode(m))
	}
	return out
}

// minimalInstance returns the smallest JSON value the type t decodes
// (required properties only), or false for a type it cannot make one for.
func minimalInstance(t *ir.Type, depth int) (string, bool) {
	if depth > 30 {
		return "", false
	}
	switch t.Kind {
	case ir.KindBool:
		return "false", true
	case ir.KindInt, ir.KindFloat:
		return "0", true
	case ir.KindString:
		return `"x"`, true
	case ir.KindArray:
		return "[]", true
	case ir.KindMap, ir.KindRaw:
		return "{}", true
	case ir.KindEnum:
		if len(t.Enum.Values) == 0 {
			return "", false
		}
		lit := t.Enum.Values[0].Literal
		if s, err := strconv.Unquote(lit); err == nil {
			b, _ := json.Marshal(s)
			return string(b), true
		}
		return lit, true
	case ir.KindTuple:
		items := make([]string, 0, t.MinItems)
		for _, f := range t.Fields[:t.MinItems] {
			v, ok := minimalInstance(f.Type, depth+1)
			if !ok {
				return "", false
			}
			items = append(items, v)
		}
		return "[" + strings.Join(items, ",") + "]", true
	case ir.KindUnion:
		if len(t.Union.Variants) == 0 {
			return "", false
		}
		return minimalInstance(t.Union.Variants[0].Type, depth+1)
	case ir.KindStruct:
		var members []string
		if t.Tag != "" {
			k, _ := json.Marshal(t.Tag)
			members = append(members, string(k)+":"+t.TagValue)
		}
		for _, f := range t.Fields {
			if !f.Required {
				continue
			}
			v, ok := minimalInstance(f.Type, depth+1)
			if !ok {
				return "", false
			}
			k, _ := json.Marshal(f.JSONName)
			members = append(members, string(k)+":"+v)
		}
		return "{" + strings.Join(members, ",") + "}", true
	}
	return "", false
}
