// Package synth builds the synthetic tools mcpbind's scale benchmarks and
// reference comparisons share, so that both measure the same input.
package synth

import "fmt"

// Tool returns the JSON definition of synthetic tool i ("tool_00042"): an
// inputSchema with a string, a bounded integer, an enum, a nested object
// and a two-variant oneOf told apart by a const "kind"; an outputSchema
// with an array of objects and a total.
func Tool(i int) string {
	return fmt.Sprintf(`{"name":"tool_%05d","description":"Synthetic tool %d.","inputSchema":%s,"outputSchema":{"type":"object","properties":{"rows":{"type":"array","items":{"type":"object","properties":{"id":{"type":"integer"},"name":{"type":"string"}},"required":["id"]}},"total":{"type":"integer"}},"required":["rows","total"]}}`,
		i, i, InputSchema())
}

// InputSchema returns the inputSchema every synthetic tool has.
func InputSchema() string {
	return `{"type":"object","properties":{"query":{"type":"string","minLength":1},"limit":{"type":"integer","minimum":1,"maximum":100},` +
		`"mode":{"enum":["fast","exact","fuzzy"]},"filter":{"type":"object","properties":{"field":{"type":"string"},"value":{"type":["string","number"]}},"required":["field"]},` +
		`"shape":{"oneOf":[{"type":"object","properties":{"kind":{"const":"a"},"x":{"type":"number"}},"required":["kind"]},{"type":"object","properties":{"kind":{"const":"b"},"y":{"type":"number"}},"required":["kind"]}]}` +
		`},"required":["query"]}`
}
