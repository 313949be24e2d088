package composition_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/bindimpl"
)

// countedArgs encodes as {"table": table} and counts how often it is
// encoded.
type countedArgs struct {
	table   any
	encoded *atomic.Int32
}

// MarshalJSON counts the call.
func (a countedArgs) MarshalJSON() ([]byte, error) {
	a.encoded.Add(1)
	return json.Marshal(map[string]any{"table": a.table})
}

// TestArgsEncodedOnce calls count_rows of the sqlite-explorer server (in
// process) through every entry of the call pipeline, with argument
// validation on, and counts the encodings of the arguments: the bytes
// encoded once are validated and sent (issue 20: they were encoded up to
// three times, to encode, to validate and to send). Refused arguments are
// encoded once too, and not sent.
func TestArgsEncodedOnce(t *testing.T) {
	ctx := t.Context()
	srv := explorerServer(t)
	schemas := bindimpl.NewSchemaSet(map[string]string{
		"count_rows#inputSchema": `{"type":"object","properties":{"table":{"type":"string"}},"required":["table"],"additionalProperties":false}`,
	})
	plain := bindimpl.Tool{Name: "count_rows", Schemas: schemas, InputDoc: "count_rows#inputSchema", ReadOnly: true}
	typed := plain
	typed.Types = bindimpl.NewTypes(schemas)

	s, err := composition.Connect(ctx, composition.InProcess(srv), composition.WithArgsValidation())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	reg := composition.NewRegistry(composition.WithArgsValidation())
	defer reg.Close()
	if err := reg.Add("explorer", composition.InProcess(srv)); err != nil {
		t.Fatal(err)
	}

	calls := map[string]func(args any) (int64, error){
		"Invoke/encoding-json": func(args any) (int64, error) { return bindimpl.CallAs[int64](ctx, s, &plain, args) },
		"Invoke/types":         func(args any) (int64, error) { return bindimpl.CallAs[int64](ctx, s, &typed, args) },
		"registry": func(args any) (int64, error) {
			return bindimpl.CallAs[int64](ctx, reg.Server("explorer"), &typed, args)
		},
		"CallResult": func(args any) (int64, error) {
			res, err := s.CallResult(ctx, "count_rows", args)
			if err != nil {
				return 0, err
			}
			var n int64
			return n, res.DecodeJSON(&n)
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			var encoded atomic.Int32
			n, err := call(countedArgs{table: "authors", encoded: &encoded})
			if err != nil || n != 10 {
				t.Fatalf("count_rows(authors) = %d, %v; want 10", n, err)
			}
			if got := encoded.Load(); got != 1 {
				t.Errorf("the arguments were encoded %d times, want once", got)
			}
			if name == "CallResult" {
				return // no schema: nothing to refuse
			}
			encoded.Store(0)
			_, err = call(countedArgs{table: 5, encoded: &encoded})
			if ve, ok := errors.AsType[*composition.ValidationError](err); !ok || ve.Pointer != "/table" {
				t.Errorf("table 5: err = %v, want a *ValidationError at /table", err)
			}
			if got := encoded.Load(); got != 1 {
				t.Errorf("refused arguments were encoded %d times, want once", got)
			}
		})
	}
}

// TestInvokeOut covers what Invoke does with out: a **Result receives the
// result as sent (here the {"result": v} envelope an older session gets,
// not unwrapped), nil discards the value, and an error leaves out as it
// was. An interceptor that returns neither a result nor an error is an
// error, not a crash.
func TestInvokeOut(t *testing.T) {
	ctx := t.Context()
	srv := explorerServer(t)
	s, err := composition.Connect(ctx, composition.InProcess(srv), composition.WithProtocolVersion("2025-06-18"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	count := &bindimpl.Tool{Name: "count_rows"}
	args := map[string]string{"table": "authors"}

	var res *composition.Result
	if err := s.Invoke(ctx, count, args, &res); err != nil || res == nil || string(res.StructuredContent) != `{"result":10}` {
		t.Fatalf("**Result: %+v, %v; want structuredContent {\"result\":10} as sent", res, err)
	}
	if err := s.Invoke(ctx, count, args, nil); err != nil {
		t.Errorf("nil out: %v", err)
	}
	n := int64(-1)
	err = s.Invoke(ctx, count, map[string]string{"table": "no_such_table"}, &n)
	if _, ok := errors.AsType[*composition.ToolError](err); !ok || n != -1 {
		t.Errorf("tool error: n = %d, err = %v; want a *ToolError and n untouched", n, err)
	}

	swallow := func(ctx context.Context, c composition.Call, next composition.Invoker) (*composition.Result, error) {
		return nil, nil
	}
	quiet, err := composition.Connect(ctx, composition.InProcess(srv), composition.WithInterceptor(swallow))
	if err != nil {
		t.Fatal(err)
	}
	defer quiet.Close()
	if err := quiet.Invoke(ctx, count, args, &n); err == nil || !strings.Contains(err.Error(), "neither a result nor an error") {
		t.Errorf("interceptor returning nil, nil: err = %v", err)
	}
}
