package digest

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestToolCanonical(t *testing.T) {
	// sha256 of the bytes {"a":"é","b":100,"c":[1,true,null]}, computed with sha256sum.
	const want = "sha256:a36aacf918b0b8dc632d5ffe8469fdb3b2a2a0e089a004ef1a5a9177213817fb"
	for _, in := range []string{
		`{"a":"é","b":100,"c":[1,true,null]}`,
		"{ \"c\" : [1, true, null],\n  \"b\": 1e2, \"a\": \"\\u00e9\" }",
		`{"b":100.0,"a":"\u00E9","c":[1.0,true,null]}`,
	} {
		got, err := Tool(json.RawMessage(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
	other, _ := Tool(json.RawMessage(`{"a":"é","b":101,"c":[1,true,null]}`))
	if other == want {
		t.Error("a different value has the same digest")
	}
}

func TestServerSortsByName(t *testing.T) {
	// sha256 of [{"name":"a"},{"name":"b","x":1}], computed with sha256sum.
	const want = "sha256:62b0cd29bf8a6477548e65d13bef4498003a260a591eeb007037977015f5288f"
	for _, tools := range [][]string{
		{`{"name":"a"}`, `{"name":"b","x":1}`},
		{`{"x":1, "name":"b"}`, ` {"name":"a"}`},
	} {
		var raws []json.RawMessage
		for _, s := range tools {
			raws = append(raws, json.RawMessage(s))
		}
		got, err := Server(raws)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%v: %s, want %s", tools, got, want)
		}
	}
	empty, err := Server(nil)
	if err != nil || empty != Of([]byte("[]")) {
		t.Errorf("no tools: %s %v", empty, err)
	}
}

func TestErrors(t *testing.T) {
	for _, in := range []string{``, ` `, `{`, `{"a":1e400}`, `{"a":1,"a":2}`, `{} x`} {
		if d, err := Tool(json.RawMessage(in)); err == nil {
			t.Errorf("Tool(%q) = %s, want an error", in, d)
		}
	}
	if _, err := Server([]json.RawMessage{json.RawMessage(`{"name":"a"}`), json.RawMessage(`[1]`)}); err == nil || !strings.Contains(err.Error(), "tool 1") {
		t.Errorf("Server with an array tool: %v", err)
	}
	if _, err := Server([]json.RawMessage{json.RawMessage(`{"name":"a","max":1e400}`)}); err == nil {
		t.Error("Server with 1e400: no error")
	}
}

func TestValid(t *testing.T) {
	d, _ := Tool(json.RawMessage(`{}`))
	for s, want := range map[string]bool{
		d:                  true,
		"sha256:00":        false,
		strings.ToUpper(d): false,
		"md5:" + d[7:]:     false,
		d + "0":            false,
		"sha256:" + d[8:]:  false,
	} {
		if got := Valid(s); got != want {
			t.Errorf("Valid(%q) = %v", s, got)
		}
	}
}

// TestCanonicalRefusesDeepNesting: JSON nested beyond MaxDepth is an error,
// found before the canonicalizer's depth-times-size copying; at MaxDepth it
// canonicalizes, and brackets inside strings do not count.
func TestCanonicalRefusesDeepNesting(t *testing.T) {
	nest := func(d int) []byte {
		return []byte(strings.Repeat(`{"a":`, d-1) + `["[[{{\"\\"]` + strings.Repeat(`}`, d-1))
	}
	if _, err := Canonical(nest(MaxDepth)); err != nil {
		t.Fatalf("depth %d: %v", MaxDepth, err)
	}
	if _, err := Canonical(nest(MaxDepth + 1)); err == nil || !strings.Contains(err.Error(), "nested more than") {
		t.Fatalf("depth %d: err = %v", MaxDepth+1, err)
	}
}
