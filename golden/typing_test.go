package golden

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpbind/mcpbind/golden/typing/typing"
)

// typingCase is an instance of one type generated for golden/typing: new
// returns a pointer to a zero value of the type.
type typingCase struct {
	new func() any
	in  string
}

func chooseArgs() any      { return new(typing.ChooseArgs) }
func createIndexArgs() any { return new(typing.CreateIndexArgs) }
func aggregateResult() any { return new(typing.AggregateResult) }
func chartArgs() any       { return new(typing.ChartArgs) }
func geometryArgs() any    { return new(typing.GeometryArgs) }
func leftoversArgs() any   { return new(typing.LeftoversArgs) }

// TestTypingRoundTrip decodes valid instances of each shape that issue 17
// item 3 types (string-const unions, integer|number, enum-or-pattern,
// number-or-const, nullable map values and items, mixed const maps, fixed
// tuples, and the raw fallbacks left) into the generated types, checks them
// with Validate, and encodes them back, through the package's Unmarshal and
// Marshal and through encoding/json: the JSON must come back unchanged.
func TestTypingRoundTrip(t *testing.T) {
	for _, tc := range []typingCase{
		{new: chooseArgs, in: `{"mode":"fast","ratio":1.5,"scale":2,"freshness":"2022-04-01to2022-07-30","level":3}`},
		{new: chooseArgs, in: `{"mode":"slow","ratio":2,"freshness":"pd","level":"low"}`},
		{new: chooseArgs, in: `{"mode":"slow","level":null}`},
		{new: chooseArgs, in: `{"mode":"slow","direction":null}`},
		{new: chooseArgs, in: `{"mode":"slow","direction":"up"}`},
		{new: createIndexArgs, in: `{"keys":{"a":1,"b":-1,"loc":"2dsphere"},"sort":{"x":"asc","y":-1},"numPartitions":"4"}`},
		{new: aggregateResult, in: `{"count":12}`},
		{new: aggregateResult, in: `{"count":2.5}`},
		{new: aggregateResult, in: `{"count":"indeterminate"}`},
		{new: chartArgs, in: `{"rows":[{"name":"a","v":1.5,"none":null}],"cell":null,"labels":{"a":"x","b":null},"tags":["a",null],"weights":[1,null]}`},
		{new: chartArgs, in: `{"rows":[],"cell":"c"}`},
		{new: chartArgs, in: `{"rows":[],"cell":7}`},
		{new: geometryArgs, in: `{"point":[1,2],"pair":["a",1],"path":["p",1,null,2.5]}`},
		{new: leftoversArgs, in: `{"shape":{"a":"x"},"shapes":{"k":{"b":"y"}},"list":[{"a":"1"}],"either":{"x-a":"1"},"headers":{"host":"h"},"steps":["s",{"a":"b"}]}`},
		{new: leftoversArgs, in: `{"headers":{"host":"h","x-y":"z"}}`},
		{new: leftoversArgs, in: `{"either":"s"}`},
		{new: leftoversArgs, in: `{"csv":{"id":{"v":"1"},"x,y":2}}`},
	} {
		v := tc.new()
		if err := typing.Unmarshal([]byte(tc.in), v); err != nil {
			t.Errorf("Unmarshal %s: %v", tc.in, err)
			continue
		}
		if err := reflect.ValueOf(v).Elem().Interface().(interface{ Validate() error }).Validate(); err != nil {
			t.Errorf("Validate %s: %v", tc.in, err)
		}
		out, err := typing.Marshal(reflect.ValueOf(v).Elem().Interface())
		if err != nil {
			t.Errorf("Marshal %s: %v", tc.in, err)
			continue
		}
		if !jsonEqual(t, tc.in, string(out)) {
			t.Errorf("round trip changed the value:\n in: %s\nout: %s", tc.in, out)
		}
		w := tc.new()
		if err := json.Unmarshal([]byte(tc.in), w); err != nil {
			t.Errorf("json.Unmarshal %s: %v", tc.in, err)
			continue
		}
		if out, err := json.Marshal(w); err != nil || !jsonEqual(t, tc.in, string(out)) {
			t.Errorf("encoding/json round trip changed the value (%v):\n in: %s\nout: %s", err, tc.in, out)
		}
	}
}

// TestTypingRejectsInvalid: an instance the schema rejects fails to decode
// (wrong JSON kind for the Go type, a union variant no value matches, a
// tuple too long or short) or fails Validate (a value outside an enum, a
// pattern, a minimum).
func TestTypingRejectsInvalid(t *testing.T) {
	for _, tc := range []typingCase{
		{new: chooseArgs, in: `{"mode":"medium"}`},
		{new: chooseArgs, in: `{"mode":"fast","ratio":"1"}`},
		{new: chooseArgs, in: `{"mode":"fast","scale":true}`},
		{new: chooseArgs, in: `{"mode":"fast","freshness":"yesterday"}`},
		{new: chooseArgs, in: `{"mode":"fast","level":true}`},
		{new: chooseArgs, in: `{"mode":"fast","level":"mid"}`},
		{new: chooseArgs, in: `{"mode":"fast","level":-1}`},
		{new: chooseArgs, in: `{"mode":"fast","direction":"left"}`},
		{new: createIndexArgs, in: `{"keys":{"a":2}}`},
		{new: createIndexArgs, in: `{"keys":{"a":true}}`},
		{new: createIndexArgs, in: `{"keys":{"a":"up"}}`},
		{new: createIndexArgs, in: `{"keys":{"a":null}}`},
		{new: createIndexArgs, in: `{"keys":{},"sort":{"x":"2d"}}`},
		{new: createIndexArgs, in: `{"keys":{},"numPartitions":"3"}`},
		{new: createIndexArgs, in: `{"keys":{},"numPartitions":4}`},
		{new: aggregateResult, in: `{"count":"many"}`},
		{new: aggregateResult, in: `{"count":null}`},
		{new: aggregateResult, in: `{}`},
		{new: chartArgs, in: `{"rows":[{"v":true}]}`},
		{new: chartArgs, in: `{"rows":[{"v":[1]}]}`},
		{new: chartArgs, in: `{"rows":[],"labels":{"a":1}}`},
		{new: chartArgs, in: `{"rows":[],"tags":[1]}`},
		{new: chartArgs, in: `{"rows":[],"weights":[1.5]}`},
		{new: geometryArgs, in: `{"point":[1,2,3]}`},
		{new: geometryArgs, in: `{"point":[1]}`},
		{new: geometryArgs, in: `{"point":[1,2],"pair":["a",1,2]}`},
		{new: geometryArgs, in: `{"point":[1,2],"path":["p","q"]}`},
		{new: leftoversArgs, in: `{"either":{"x-a":1}}`},
		{new: leftoversArgs, in: `{"either":3}`},
		{new: leftoversArgs, in: `{"headers":{"x-y":1}}`},
		{new: leftoversArgs, in: `{"csv":{"x,y":"a"}}`},
	} {
		v := tc.new()
		err := typing.Unmarshal([]byte(tc.in), v)
		if err == nil {
			err = reflect.ValueOf(v).Elem().Interface().(interface{ Validate() error }).Validate()
		}
		if err == nil {
			t.Errorf("%T %s: decoded and validated, want an error", v, tc.in)
		}
	}
}

// TestTypingShapes pins the Go shapes a person would write for the shapes
// of issue 17 item 3, so that a regression to raw JSON fails here by field.
// Shapes are spelled without the names of nested types (naming is decided
// elsewhere): a named scalar is "enum(string)", a struct "{Field type; …}".
func TestTypingShapes(t *testing.T) {
	for _, tc := range []struct {
		typ   any
		field string
		want  string
	}{
		{typing.ChooseArgs{}, "Mode", "enum(string)"},
		{typing.ChooseArgs{}, "Ratio", "*float64"},
		{typing.ChooseArgs{}, "Scale", "*float64"},
		{typing.ChooseArgs{}, "Freshness", "*string"},
		{typing.ChooseArgs{}, "Level", "Nullable[{Int *int64; String *enum(string)}]"},
		{typing.ChooseArgs{}, "Direction", "Nullable[enum(string)]"},
		{typing.CreateIndexArgs{}, "Keys", "map[string]{Int *enum(int64); String *enum(string)}"},
		{typing.CreateIndexArgs{}, "Sort", "map[string]{Int *enum(int64); String *enum(string)}"},
		{typing.CreateIndexArgs{}, "NumPartitions", "*enum(string)"},
		{typing.AggregateResult{}, "Count", "{Float *float64; String *enum(string)}"},
		{typing.ChartArgs{}, "Rows", "[]map[string]*{String *string; Float *float64}"},
		{typing.ChartArgs{}, "Labels", "map[string]*string"},
		{typing.ChartArgs{}, "Tags", "[]*string"},
		{typing.ChartArgs{}, "Weights", "[]*int64"},
		{typing.GeometryArgs{}, "Point", "{V0 float64; V1 float64}"},
		{typing.GeometryArgs{}, "Pair", "*{V0 *string; V1 *int64}"},
		{typing.GeometryArgs{}, "Path", "*{V0 *string; Rest []*float64}"},
	} {
		f, ok := reflect.TypeOf(tc.typ).FieldByName(tc.field)
		if !ok {
			t.Errorf("%T has no field %s", tc.typ, tc.field)
			continue
		}
		if got := goShape(f.Type, 0); got != tc.want {
			t.Errorf("%T.%s is %s, want %s", tc.typ, tc.field, got, tc.want)
		}
	}
}

// goShape spells rt without the names of the package's types.
func goShape(rt reflect.Type, depth int) string {
	switch {
	case depth > 8:
		return "…"
	case strings.HasPrefix(rt.Name(), "Nullable["):
		f, _ := rt.FieldByName("Value")
		return "Nullable[" + goShape(f.Type, depth+1) + "]"
	}
	switch rt.Kind() {
	case reflect.Pointer:
		return "*" + goShape(rt.Elem(), depth+1)
	case reflect.Slice:
		if rt == reflect.TypeFor[json.RawMessage]() {
			return "json.RawMessage"
		}
		return "[]" + goShape(rt.Elem(), depth+1)
	case reflect.Map:
		return "map[string]" + goShape(rt.Elem(), depth+1)
	case reflect.Struct:
		var fs []string
		for i := range rt.NumField() {
			fs = append(fs, rt.Field(i).Name+" "+goShape(rt.Field(i).Type, depth+1))
		}
		return "{" + strings.Join(fs, "; ") + "}"
	}
	if rt.PkgPath() != "" {
		return "enum(" + rt.Kind().String() + ")"
	}
	return rt.String()
}
