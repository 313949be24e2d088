package composition_test

import (
	"context"
	"slices"
	"testing"

	"github.com/mcpbind/mcpbind/composition"
)

// TestOptions: one Option made of several applies them all, in order: two
// interceptors joined run as given, the first the outermost, and a
// connection option inside (WithProtocolVersion) reaches the connection.
func TestOptions(t *testing.T) {
	ctx := context.Background()
	var order []string
	named := func(name string) composition.Interceptor {
		return func(ctx context.Context, c composition.Call, next composition.Invoker) (*composition.Result, error) {
			order = append(order, name)
			return next(ctx, c)
		}
	}
	opt := composition.Options(composition.WithInterceptor(named("a")), composition.WithProtocolVersion("2025-06-18"), composition.WithInterceptor(named("b")))
	s, err := composition.Connect(ctx, composition.InProcess(explorerServer(t)), opt)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.CallResult(ctx, "list_tables", nil); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(order, []string{"a", "b"}) {
		t.Errorf("interceptors ran %q, want a then b", order)
	}
	if v := s.ProtocolVersion(); v != "2025-06-18" {
		t.Errorf("protocol version %q, want the joined option's 2025-06-18", v)
	}
}
