// Package schemasuite measures how much of JSON Schema mcpbind types
// precisely, on the draft 2020-12 files of the JSON-Schema-Test-Suite that
// the Go module github.com/google/jsonschema-go ships in its testdata.
//
// Its test, TestJSONSchemaTestSuite, puts every schema of the suite into a
// bundle as a tool's outputSchema, generates Go with the real generator,
// compiles all of it as one package with a generated driver, and checks each
// instance of the suite against the generated types: a valid instance must
// decode, pass Validate() when the type has one, and encode back to
// semantically equal JSON; an invalid instance must be rejected by decoding
// or by Validate(). It prints a table per keyword file (run it with -v, or
// set MCPBIND_SUITE_REPORT=FILE to get the table and every failing instance
// in a file), and fails below the targets of issue 3. A second test checks
// that schema.Normalize keeps the meaning of every draft-07 and 2020-12 schema
// of the suite, with santhosh-tekuri/jsonschema as the reference validator.
//
// This file holds the pieces of the harness that do not need the go tool:
// reading the suite's files and comparing JSON values by meaning.
package schemasuite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"os"
)

// Group is one entry of a suite file: a schema and the instances tested
// against it.
type Group struct {
	// Description says what the group tests.
	Description string `json:"description"`
	// Schema is the schema exactly as the file holds it.
	Schema json.RawMessage `json:"schema"`
	// Tests are the instances, in file order.
	Tests []Test `json:"tests"`
}

// Test is one instance of a Group.
type Test struct {
	// Description says what the instance tests.
	Description string `json:"description"`
	// Data is the instance exactly as the file holds it.
	Data json.RawMessage `json:"data"`
	// Valid tells whether Data is valid against the group's Schema.
	Valid bool `json:"valid"`
}

// ReadFile reads one suite file: a JSON array of groups.
func ReadFile(path string) ([]Group, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var groups []Group
	if err := json.Unmarshal(data, &groups); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for i, g := range groups {
		if len(g.Schema) == 0 {
			return nil, fmt.Errorf("%s: group %d (%q) has no schema", path, i, g.Description)
		}
	}
	return groups, nil
}

// SemanticEqual reports whether two JSON texts denote the same JSON value:
// objects compare by their members whatever the key order, arrays element by
// element, and numbers by their exact decimal value (1, 1.0 and 1e0 are
// equal; 9007199254740993 and 9007199254740992 are not), never through
// float64. It fails when either text is not a single JSON value.
func SemanticEqual(a, b []byte) (bool, error) {
	x, err := decodeExact(a)
	if err != nil {
		return false, err
	}
	y, err := decodeExact(b)
	if err != nil {
		return false, err
	}
	return equalValues(x, y), nil
}

// decodeExact decodes one JSON value keeping numbers as json.Number.
func decodeExact(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("not a single JSON value: %.60s", data)
	}
	return v, nil
}

func equalValues(x, y any) bool {
	switch a := x.(type) {
	case nil:
		return y == nil
	case bool:
		b, ok := y.(bool)
		return ok && a == b
	case string:
		b, ok := y.(string)
		return ok && a == b
	case json.Number:
		b, ok := y.(json.Number)
		if !ok {
			return false
		}
		ra, oka := new(big.Rat).SetString(string(a))
		rb, okb := new(big.Rat).SetString(string(b))
		if !oka || !okb {
			return a == b
		}
		return ra.Cmp(rb) == 0
	case []any:
		b, ok := y.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !equalValues(a[i], b[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		b, ok := y.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, va := range a {
			vb, ok := b[k]
			if !ok || !equalValues(va, vb) {
				return false
			}
		}
		return true
	}
	return false
}
