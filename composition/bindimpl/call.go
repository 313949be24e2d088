package bindimpl

import "context"

// Invoker carries out one tool call for generated code: it encodes args (a
// value that encodes as a JSON object, or nil for {}), sends tools/call for
// tool, and decodes the natural result into out (a pointer to the tool's
// result type; nil discards it). A *composition.Session and a
// composition.Registry's server binding implement it, through the
// composition.Caller interface, which has the same method set: generated
// code targets this one method as gRPC's generated code targets
// grpc.ClientConnInterface.Invoke. tool is read, never modified.
type Invoker interface {
	Invoke(ctx context.Context, tool *Tool, args any, out any) error
}

// CallAs calls tool through c and returns its decoded natural result as a T
// (a pointer type such as *QueryResult, a value type such as int64 or
// []string, or *composition.Result for the result as sent); on error it
// returns T's zero value and c's error unchanged. Generated clients use it so
// that each method is one line.
func CallAs[T any](ctx context.Context, c Invoker, tool *Tool, args any) (T, error) {
	var out T
	if err := c.Invoke(ctx, tool, args, &out); err != nil {
		var zero T
		return zero, err
	}
	return out, nil
}
