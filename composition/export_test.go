package composition

import (
	"context"

	"github.com/mcpbind/mcpbind/composition/bindimpl"
)

// CallRaw calls tool through c and returns the result as sent (Invoke with
// an out of type **Result), as a Forwarding proxy does. It is exported for
// the external tests (package composition_test) too.
func CallRaw(ctx context.Context, c Caller, tool bindimpl.Tool, args any) (*Result, error) {
	var res *Result
	if err := c.Invoke(ctx, &tool, args, &res); err != nil {
		return nil, err
	}
	return res, nil
}
