package golden

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/golden/brave/bravesearchmcpserver"
	"github.com/mcpbind/mcpbind/golden/hostile/hostile"
	"github.com/mcpbind/mcpbind/golden/styles/styles"
)

// userRecord is a Go user's own struct holding generated values, as a
// program that decodes with encoding/json first would write it.
type userRecord struct {
	Name   string                                   `json:"name"`
	Note   hostile.ReadNote2Args                    `json:"note"`
	Shape  *styles.ZodShapeArgs                     `json:"shape,omitempty"`
	Hits   []styles.Hit                             `json:"hits,omitempty"`
	Points map[string]hostile.PointArgs             `json:"points,omitempty"`
	Search *bravesearchmcpserver.BraveWebSearchArgs `json:"search,omitempty"`
}

// stdjsonCase is one instance of a generated type, decoded both ways.
type stdjsonCase struct {
	field string // the userRecord field the value goes in
	in    string // JSON of the value
	bad   string // "" when valid, else what the package's Unmarshal error says
}

// stdjsonCases are instances of the rules Unmarshal applies that
// encoding/json alone would not: required properties, exact-case keys,
// closed objects, extras, defaults, unions and tuples.
var stdjsonCases = []stdjsonCase{
	{"note", `{"id":"n1","type":"a"}`, ""}, // maxLines gets its default
	{"note", `{"id":"n1","type":"a","maxLines":3,"shape":{"kind":"circle","radius":2}}`, ""},
	{"note", `{"id":"n1","type":"b","range":"wide","maybe":null}`, ""},
	{"note", `{"type":"a"}`, `missing required property "id"`},
	{"note", `{"ID":"n1","type":"a"}`, `missing required property "id"`},
	{"note", `{"id":"n1","TYPE":"a"}`, `missing required property "type"`},
	{"note", `{"id":"n1","type":"b","shape":{"kind":"triangle"}}`, `no variant has kind`},
	{"note", `{"id":"n1","type":"b","shape":{"kind":"circle"}}`, `missing required property "radius"`},
	{"note", `{"id":"n1","type":"b","range":3}`, `matches no variant`},
	{"shape", `{"shape":{"kind":"rect","w":1,"h":2}}`, ""},
	{"shape", `{"shape":{"kind":"rect","w":1,"h":2,"d":3}}`, `property "d" is not allowed`},
	{"shape", `{"shape":{"kind":"circle","radius":1},"Shape":1}`, `property "Shape" is not allowed`},
	{"shape", `{"Shape":{"kind":"circle","radius":1}}`, `missing required property "shape"`},
	{"hits", `[{"id":"h1","score":0.5,"Score":7,"note":"x"}]`, ""}, // Score and note are extras
	{"hits", `[{"id":"h1"}]`, `missing required property "score"`},
	{"points", `{"p":{"at":[1,2]},"q":{"at":[1,2,"z"]}}`, ""},
	{"points", `{"p":{"at":[1]}}`, `want at least 2 items`},
	{"points", `{"p":{"at":[1,2,"z",4]}}`, `want at most 3 items`},
	{"points", `{"p":{"at":{"0":1}}}`, `want a JSON array`},
	{"search", `{"query":"go"}`, ""}, // count, country, … get their defaults
	{"search", `{"Query":"go"}`, `missing required property "query"`},
}

// TestEncodingJSONParity: json.Unmarshal and json.Marshal on generated
// values, alone and inside a user's struct, give what the package's
// Unmarshal and Marshal give: the same value or an error with the same
// words, and the same JSON back.
func TestEncodingJSONParity(t *testing.T) {
	rt := reflect.TypeFor[userRecord]()
	for _, c := range stdjsonCases {
		f, ok := fieldByTag(rt, c.field)
		if !ok {
			t.Fatalf("userRecord has no field %q", c.field)
		}
		pkgUnmarshal, pkgMarshal := codecOf(f.Type)

		// The value alone: the package's Unmarshal, then json.Unmarshal.
		viaPkg := reflect.New(f.Type)
		errPkg := pkgUnmarshal([]byte(c.in), viaPkg.Interface())
		viaStd := reflect.New(f.Type)
		errStd := json.Unmarshal([]byte(c.in), viaStd.Interface())
		switch {
		case c.bad == "" && (errPkg != nil || errStd != nil):
			t.Errorf("%s: valid, but Unmarshal: %v, json.Unmarshal: %v", c.in, errPkg, errStd)
			continue
		case c.bad != "" && (errPkg == nil || !strings.Contains(errPkg.Error(), c.bad)):
			t.Errorf("%s: Unmarshal gave %v, want an error saying %s", c.in, errPkg, c.bad)
			continue
		case c.bad != "" && (errStd == nil || !strings.Contains(errStd.Error(), c.bad)):
			t.Errorf("%s: json.Unmarshal gave %v (Unmarshal: %v)", c.in, errStd, errPkg)
			continue
		}

		// The same value inside the user's struct.
		doc := `{"name":"r","note":{"id":"n0","type":"a"},"` + c.field + `":` + c.in + `}`
		if c.field == "note" {
			doc = `{"name":"r","note":` + c.in + `}`
		}
		var rec userRecord
		errRec := json.Unmarshal([]byte(doc), &rec)
		if c.bad != "" {
			if errRec == nil || !strings.Contains(errRec.Error(), c.bad) {
				t.Errorf("%s in a user struct: json.Unmarshal gave %v, want an error saying %s", c.in, errRec, c.bad)
			}
			continue
		}
		if errRec != nil {
			t.Errorf("%s in a user struct: %v", c.in, errRec)
			continue
		}
		got := reflect.ValueOf(rec).FieldByIndex(f.Index)
		if !reflect.DeepEqual(viaPkg.Elem().Interface(), viaStd.Elem().Interface()) || !reflect.DeepEqual(viaPkg.Elem().Interface(), got.Interface()) {
			t.Errorf("%s: Unmarshal gave %+v, json.Unmarshal %+v, in a user struct %+v", c.in, viaPkg.Elem(), viaStd.Elem(), got)
		}

		// And back: json.Marshal writes what Marshal writes, alone and
		// inside the user's struct.
		outPkg, err := pkgMarshal(viaPkg.Elem().Interface())
		if err != nil {
			t.Fatalf("%s: Marshal: %v", c.in, err)
		}
		outStd, err := json.Marshal(viaPkg.Elem().Interface())
		if err != nil || string(outStd) != string(outPkg) {
			t.Errorf("%s: json.Marshal gave %s (%v), Marshal %s", c.in, outStd, err, outPkg)
		}
		outRec, err := json.Marshal(rec)
		if err != nil {
			t.Fatalf("%s: json.Marshal of the user struct: %v", c.in, err)
		}
		var back map[string]json.RawMessage
		if err := json.Unmarshal(outRec, &back); err != nil || string(back[c.field]) != string(outPkg) {
			t.Errorf("%s: in a user struct json.Marshal wrote %s, Marshal %s (%v)", c.in, back[c.field], outPkg, err)
		}
	}
}

// fieldByTag returns the field of rt whose json name is name.
func fieldByTag(rt reflect.Type, name string) (reflect.StructField, bool) {
	for i := range rt.NumField() {
		f := rt.Field(i)
		if n, _, _ := strings.Cut(f.Tag.Get("json"), ","); n == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// codecOf returns the package Unmarshal and Marshal of the generated
// package that declares the named type inside ft.
func codecOf(ft reflect.Type) (func([]byte, any) error, func(any) ([]byte, error)) {
	for ft.Name() == "" {
		ft = ft.Elem()
	}
	switch {
	case strings.HasSuffix(ft.PkgPath(), "/hostile"):
		return hostile.Unmarshal, hostile.Marshal
	case strings.HasSuffix(ft.PkgPath(), "/styles"):
		return styles.Unmarshal, styles.Marshal
	}
	return bravesearchmcpserver.Unmarshal, bravesearchmcpserver.Marshal
}
