package golden

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/golden/hostile/hostile"
	"github.com/mcpbind/mcpbind/golden/styles/styles"
)

// TestHostileRoundTrip decodes sample instances into the types generated
// for golden/hostile and encodes them back: unions must pick the right
// variant, keep the tag, and the JSON must come back unchanged.
func TestHostileRoundTrip(t *testing.T) {
	for _, in := range []string{
		`{"id":"n1","maxLines":5,"type":"A"}`,
		`{"id":"n1","maxLines":5,"type":"a","foo-bar":"x","foo_bar":1.5,"2fa":true,"名前":"名"}`,
		`{"id":"n1","maxLines":5,"type":"b","range":true}`,
		`{"id":"n1","maxLines":5,"type":"b","range":"wide"}`,
		`{"id":"n1","maxLines":5,"type":"b","shape":{"kind":"circle","radius":2}}`,
		`{"id":"n1","maxLines":5,"type":"b","shape":{"kind":"square","side":3}}`,
		`{"id":"n1","maxLines":5,"type":"b","maybe":{"street":"Main","next":{"street":"Side"}}}`,
		`{"id":"n1","maxLines":5,"type":"b","items":[{"content":"c"}],"meta":{"k":[1,2]},"extra":{"a":9007199254740993}}`,
	} {
		var args hostile.ReadNote2Args
		if err := hostile.Unmarshal([]byte(in), &args); err != nil {
			t.Fatalf("unmarshal %s: %v", in, err)
		}
		out, err := hostile.Marshal(args)
		if err != nil {
			t.Fatalf("marshal %s: %v", in, err)
		}
		if !jsonEqual(t, in, string(out)) {
			t.Errorf("round trip changed the value:\n in: %s\nout: %s", in, out)
		}
	}
}

func TestHostileUnionsRejectWhatMatchesNoVariant(t *testing.T) {
	for _, in := range []string{
		`{"id":"n1","type":"b","shape":{"kind":"triangle"}}`,
		`{"id":"n1","type":"b","shape":{"radius":1}}`,
		`{"id":"n1","type":"b","range":3}`,
	} {
		var args hostile.ReadNote2Args
		if err := hostile.Unmarshal([]byte(in), &args); err == nil {
			t.Errorf("unmarshal %s: no error", in)
		}
	}
	var empty hostile.Shape
	if _, err := hostile.Marshal(empty); err == nil || !strings.Contains(err.Error(), "no variant is set") {
		t.Errorf("marshal of an empty union: %v", err)
	}
}

func TestHostileTaggedUnionWritesItsTag(t *testing.T) {
	s := hostile.Shape{Circle: &hostile.ShapeCircle{Radius: 1}}
	b, err := hostile.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"kind":"circle","radius":1}` {
		t.Fatalf("got %s", b)
	}
}

func jsonEqual(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y any
	dec := func(s string, v *any) {
		d := json.NewDecoder(strings.NewReader(s))
		d.UseNumber()
		if err := d.Decode(v); err != nil {
			t.Fatalf("decode %s: %v", s, err)
		}
	}
	dec(a, &x)
	dec(b, &y)
	return reflect.DeepEqual(x, y)
}

// TestHostileDefaults: an absent optional property with a "default" gets
// it on decode; a present one keeps its value.
func TestHostileDefaults(t *testing.T) {
	var a hostile.ReadNote2Args
	if err := hostile.Unmarshal([]byte(`{"id":"n1","type":"a"}`), &a); err != nil {
		t.Fatal(err)
	}
	if a.MaxLines == nil || *a.MaxLines != 10 {
		t.Fatalf("maxLines = %v, want the default 10", a.MaxLines)
	}
	if err := hostile.Unmarshal([]byte(`{"id":"n1","type":"a","maxLines":3}`), &a); err != nil || *a.MaxLines != 3 {
		t.Fatalf("maxLines = %v (%v), want 3", *a.MaxLines, err)
	}
}

// TestHostileValidate checks generated Validate methods against the
// schemas' constraints, with JSON pointers in the errors.
func TestHostileValidate(t *testing.T) {
	ok := hostile.ReadNote2Args{ID: "n1", Type: hostile.TypeA}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid args: %v", err)
	}
	zero := int64(0)
	for _, tc := range []struct {
		name string
		v    interface{ Validate() error }
		ptr  string
	}{
		{"pattern", hostile.ReadNote2Args{ID: "x1", Type: hostile.TypeA}, "/id"},
		{"minimum", hostile.ReadNote2Args{ID: "n1", Type: hostile.TypeA, MaxLines: &zero}, "/maxLines"},
		{"enum", hostile.ReadNote2Args{ID: "n1", Type: "c"}, "/type"},
		{"minLength", hostile.StrictArgs{Name: "x"}, "/name"},
		{"maxItems", hostile.StrictResult{"a", "b", "c"}, ""},
		{"items maxLength", hostile.StrictResult{"abcd"}, "/0"},
		{"enum type alone", hostile.Type("c"), ""},
	} {
		err := tc.v.Validate()
		var ve *composition.ValidationError
		if !errors.As(err, &ve) || ve.Pointer != tc.ptr {
			t.Errorf("%s: Validate() = %v, want a ValidationError at %q", tc.name, err, tc.ptr)
		}
	}
}

// TestHostileObjectsDecodeStrictly: required properties must be present,
// a closed object (additionalProperties false) rejects unknown ones, and an
// open object keeps them so the value round-trips.
func TestHostileObjectsDecodeStrictly(t *testing.T) {
	var s hostile.StrictArgs
	if err := hostile.Unmarshal([]byte(`{}`), &s); err == nil || !strings.Contains(err.Error(), `missing required property "name"`) {
		t.Errorf("missing required: %v", err)
	}
	if err := hostile.Unmarshal([]byte(`{"name":"ab","x":1}`), &s); err == nil || !strings.Contains(err.Error(), `"x" is not allowed`) {
		t.Errorf("closed object: %v", err)
	}
	if err := hostile.Unmarshal([]byte(`null`), &s); err == nil {
		t.Errorf("null into a required object: no error")
	}
	// An open argument object without additionalProperties has no extras
	// field: unknown properties are ignored. A result keeps them.
	var args hostile.ReadNote2Args
	if err := hostile.Unmarshal([]byte(`{"id":"n1","type":"b","zeta":1}`), &args); err != nil || args.ID != "n1" {
		t.Fatalf("open args: %+v %v", args, err)
	}
	in := `{"text":"t","zeta":{"k":[1,2]},"alpha":true}`
	var res hostile.ReadNote2Result
	if err := hostile.Unmarshal([]byte(in), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.AdditionalProperties) != 2 {
		t.Fatalf("extras = %v", res.AdditionalProperties)
	}
	out, err := hostile.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if !jsonEqual(t, in, string(out)) {
		t.Fatalf("round trip lost extra properties:\n in: %s\nout: %s", in, out)
	}
}

// TestHostileExactCase: property names match exactly (encoding/json would
// match {"COUNT":3} to the field of "count"). A key that differs only in
// case is an extra property where there is an extras field, and is ignored
// where there is none — never the field.
func TestHostileExactCase(t *testing.T) {
	var res hostile.ReadNote2Result
	if err := hostile.Unmarshal([]byte(`{"text":"a","TEXT":"b"}`), &res); err != nil {
		t.Fatal(err)
	}
	if res.Text != "a" || string(res.AdditionalProperties["TEXT"]) != `"b"` {
		t.Fatalf("text = %q, extras = %s", res.Text, res.AdditionalProperties)
	}
	if err := hostile.Unmarshal([]byte(`{"TEXT":"b","text":"a"}`), &res); err != nil || res.Text != "a" {
		t.Fatalf("key order changed the field: %q %v", res.Text, err)
	}
	out, _ := hostile.Marshal(res)
	if !jsonEqual(t, `{"text":"a","TEXT":"b"}`, string(out)) {
		t.Fatalf("round trip: %s", out)
	}
	var args hostile.ReadNote2Args
	if err := hostile.Unmarshal([]byte(`{"id":"n1","ID":"x9","type":"a"}`), &args); err != nil || args.ID != "n1" {
		t.Fatalf("id = %q (%v), want the exact-case n1", args.ID, err)
	}
	if err := hostile.Unmarshal([]byte(`{"ID":"x9","type":"a"}`), &args); err == nil {
		t.Fatalf("a required property given only in another case was accepted: %+v", args)
	}
}

// TestHostileTuples: prefixItems become positional structs that encode as
// arrays; optional positions may be absent; "items": false closes the
// tuple, an items schema types the rest.
func TestHostileTuples(t *testing.T) {
	for _, in := range []string{`{"at":[1,2]}`, `{"at":[1,2,"z"]}`} {
		var a hostile.PointArgs
		if err := hostile.Unmarshal([]byte(in), &a); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		out, err := hostile.Marshal(a)
		if err != nil || !jsonEqual(t, in, string(out)) {
			t.Errorf("round trip %s → %s (%v)", in, out, err)
		}
	}
	for _, in := range []string{`{"at":[1]}`, `{"at":[1,2,"z",4]}`, `{"at":{"0":1}}`} {
		var a hostile.PointArgs
		if err := hostile.Unmarshal([]byte(in), &a); err == nil {
			t.Errorf("%s: no error", in)
		}
	}
	var r hostile.PointResult
	in := `{"path":["root",1,2,3]}`
	if err := hostile.Unmarshal([]byte(in), &r); err != nil || r.Path.V0 == nil || *r.Path.V0 != "root" || len(r.Path.Rest) != 3 || r.Path.Rest[2] != 3 {
		t.Fatalf("%+v %v", r, err)
	}
	out, _ := hostile.Marshal(r)
	if !jsonEqual(t, in, string(out)) {
		t.Errorf("round trip %s → %s", in, out)
	}
}

// TestStyles exercises the schema styles real servers send: draft-04's
// boolean exclusiveMaximum (normalized), the direct-map shape, pydantic's
// nullable anyOf, zod's const-tagged oneOf and a schemars recursive tree.
func TestStyles(t *testing.T) {
	hundred, ninetyNine := 100.0, 99.5
	if err := (styles.Draft04RangeArgs{Low: 0, High: &ninetyNine}).Validate(); err != nil {
		t.Errorf("draft-04 range 0..99.5: %v", err)
	}
	var ve *composition.ValidationError
	if err := (styles.Draft04RangeArgs{Low: 0, High: &hundred}).Validate(); !errors.As(err, &ve) || ve.Pointer != "/high" {
		t.Errorf("draft-04 exclusiveMaximum: true must reject 100 at /high: %v", err)
	}
	var dm styles.DirectMapArgs
	if err := styles.Unmarshal([]byte(`{"amount":1.5,"currency":"EUR","tags":["a"]}`), &dm); err != nil || dm.Currency != styles.CurrencyEUR {
		t.Errorf("direct map: %+v %v", dm, err)
	}
	if err := styles.Unmarshal([]byte(`{"currency":"EUR"}`), &dm); err == nil {
		t.Errorf("direct map: a missing required field was accepted")
	}
	if err := (styles.DirectMapArgs{Amount: 1, Currency: "GBP"}).Validate(); err == nil {
		t.Errorf("direct map: an enum value outside the list was accepted")
	}
	var ps styles.PydanticSearchArgs
	in := `{"query":"q","limit":null,"filters":[{"field":"a","value":3},{"field":"b","value":"x"},{"field":"c","value":null}]}`
	if err := styles.Unmarshal([]byte(in), &ps); err != nil {
		t.Fatal(err)
	}
	if !ps.Limit.Set || !ps.Limit.Null || ps.Filters[0].Value.Value.Int == nil || *ps.Filters[0].Value.Value.Int != 3 {
		t.Errorf("pydantic nullable fields: %+v", ps)
	}
	if out, _ := styles.Marshal(ps); !jsonEqual(t, in, string(out)) {
		t.Errorf("pydantic round trip:\n in: %s\nout: %s", in, out)
	}
	var z styles.ZodShapeArgs
	if err := styles.Unmarshal([]byte(`{"shape":{"kind":"rect","w":2,"h":3}}`), &z); err != nil || z.Shape.Rect == nil || z.Shape.Rect.H != 3 {
		t.Errorf("zod union: %+v %v", z, err)
	}
	if err := styles.Unmarshal([]byte(`{"shape":{"kind":"rect","w":2,"h":3,"d":1}}`), &z); err == nil {
		t.Errorf("zod union: additionalProperties false was not enforced")
	}
	var tree styles.Node
	if err := styles.Unmarshal([]byte(`{"name":"root","children":[{"name":"leaf","children":[]}]}`), &tree); err != nil || tree.Children[0].Name != "leaf" {
		t.Errorf("recursive tree: %+v %v", tree, err)
	}
}

// TestHostileUnionByRequiredProperty: variants told apart by a required
// property only one of them declares.
func TestHostileUnionByRequiredProperty(t *testing.T) {
	for _, in := range []string{`{"src":{"url":"https://x","headers":{"a":"b"}}}`, `{"src":{"path":"/tmp/x"}}`} {
		var a hostile.FetchArgs
		if err := hostile.Unmarshal([]byte(in), &a); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if (a.Src.URL == nil) == (a.Src.LocalFile == nil) {
			t.Fatalf("%s: want exactly one variant: %+v", in, a.Src)
		}
		out, err := hostile.Marshal(a)
		if err != nil || !jsonEqual(t, in, string(out)) {
			t.Errorf("round trip %s → %s (%v)", in, out, err)
		}
	}
	var a hostile.FetchArgs
	if err := hostile.Unmarshal([]byte(`{"src":{"other":1}}`), &a); err == nil {
		t.Error("an object with neither url nor path was accepted")
	}
}

// TestUnionsAndTuplesThroughEncodingJSON: unions and tuples, whose Go shape
// differs from their JSON, encode and decode right through plain
// encoding/json too, inside any value (a user's own struct), not only
// through the package's Marshal and Unmarshal.
func TestUnionsAndTuplesThroughEncodingJSON(t *testing.T) {
	type wrapper struct {
		Shape hostile.Shape `json:"shape"`
		At    hostile.At    `json:"at"`
	}
	for _, in := range []string{
		`{"shape":{"kind":"circle","radius":2},"at":[1,2,"z"]}`,
		`{"shape":{"kind":"square","side":3},"at":[1.5,-2]}`,
	} {
		var w wrapper
		if err := json.Unmarshal([]byte(in), &w); err != nil {
			t.Fatalf("encoding/json unmarshal %s: %v", in, err)
		}
		if w.Shape.Circle == nil && w.Shape.Square == nil {
			t.Fatalf("encoding/json set no variant of %s", in)
		}
		out, err := json.Marshal(w)
		if err != nil {
			t.Fatalf("encoding/json marshal %s: %v", in, err)
		}
		if !jsonEqual(t, in, string(out)) {
			t.Errorf("encoding/json round trip changed the value:\n in: %s\nout: %s", in, out)
		}
	}
}
