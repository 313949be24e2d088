package composition_test

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// anyArgs is an own tool's argument type whose payload takes any JSON
// value, so hostile shapes reach decoding instead of stopping at the
// first type mismatch; strictArgs refuses them at the schema.
type anyArgs struct {
	Payload any `json:"payload" jsonschema:"Anything."`
}

type strictArgs struct {
	Table string `json:"table" jsonschema:"The table."`
}

// settleBound is how long a test waits for the goroutines a call or a
// host started to return once it is over: a hang bound, not a speed claim.
const settleBound = 30 * time.Second

var (
	anyTool    = composition.NewTool[anyArgs, int]("any", "Takes anything.")
	strictTool = composition.NewTool[strictArgs, int]("strict", "Takes a table name.")
)

// hostileArgs returns the hostile argument documents of the measurement,
// by name, each wrapping its shape as the value of key.
func hostileArgs(key string) []struct{ name, raw string } {
	nest := func(depth int) string {
		return `{"` + key + `":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}`
	}
	props := func(n int) string {
		var b strings.Builder
		b.WriteString(`{"` + key + `":{`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"p`)
			b.WriteString(itoa(i))
			b.WriteString(`":1`)
		}
		b.WriteString(`}}`)
		return b.String()
	}
	str := func(n int) string { return `{"` + key + `":"` + strings.Repeat("a", n) + `"}` }
	cases := []struct{ name, raw string }{
		{"depth=1000", nest(1000)},
		{"depth=10000", nest(10000)},
		{"depth=100000", nest(100000)},
		{"string=1MB", str(1 << 20)},
		{"props=10k", props(10_000)},
	}
	if !raceDetector { // the ×10 sizes show linearity; under -race they only cost a minute
		cases = append(cases,
			struct{ name, raw string }{"string=10MB", str(10 << 20)},
			struct{ name, raw string }{"props=100k", props(100_000)})
	}
	return cases
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// TestHostileArgsMeasured calls an own tool (NewTool) and the same tool
// forwarded through a proxy (Forwarding over InProcess) with hostile
// arguments, and logs per call the time, the bytes allocated, the heap
// still in use after a GC and the goroutines left: a measurement (figures
// in the log, `go test -run TestHostileArgsMeasured -v`), with the
// assertions that the call answers (a result or a clean refusal, no
// panic) and that the heap and the goroutines return after the session
// closes.
func TestHostileArgsMeasured(t *testing.T) {
	ctx := context.Background()
	newOwn := func(t *testing.T) *server.MCPServer {
		srv := server.NewMCPServer("own", "1", server.WithToolCapabilities(false))
		err := composition.Serve(srv, []composition.ServedTool{
			anyTool.Serve(func(context.Context, anyArgs) (int, error) { return 1, nil }),
			strictTool.Serve(func(context.Context, strictArgs) (int, error) { return 1, nil }),
		})
		if err != nil {
			t.Fatal(err)
		}
		return srv
	}
	type setup struct {
		name    string
		connect func(t *testing.T) (*composition.Session, func())
	}
	setups := []setup{
		{"own", func(t *testing.T) (*composition.Session, func()) {
			s, err := composition.Connect(ctx, composition.InProcess(newOwn(t)))
			if err != nil {
				t.Fatal(err)
			}
			return s, func() { _ = s.Close() }
		}},
		{"forwarded", func(t *testing.T) (*composition.Session, func()) {
			down, err := composition.Connect(ctx, composition.InProcess(newOwn(t)))
			if err != nil {
				t.Fatal(err)
			}
			up := server.NewMCPServer("proxy", "1", server.WithToolCapabilities(false))
			err = composition.Serve(up, []composition.ServedTool{
				anyTool.Serve(func(context.Context, anyArgs) (int, error) { return 0, errors.New("not forwarded") }),
				strictTool.Serve(func(context.Context, strictArgs) (int, error) { return 0, errors.New("not forwarded") }),
			}, composition.Forwarding(down))
			if err != nil {
				t.Fatal(err)
			}
			s, err := composition.Connect(ctx, composition.InProcess(up))
			if err != nil {
				t.Fatal(err)
			}
			return s, func() { _ = s.Close(); _ = down.Close() }
		}},
	}
	for _, st := range setups {
		for _, tool := range []struct{ name, key string }{{"any", "payload"}, {"strict", "table"}} {
			for _, h := range hostileArgs(tool.key) {
				t.Run(st.name+"/"+tool.name+"/"+h.name, func(t *testing.T) {
					var m0, m1, m2 runtime.MemStats
					runtime.GC()
					g0 := runtime.NumGoroutine()
					runtime.ReadMemStats(&m0)
					s, closeAll := st.connect(t)
					start := time.Now()
					_, err := s.CallResult(ctx, tool.name, json.RawMessage(h.raw))
					took := time.Since(start)
					runtime.ReadMemStats(&m1)
					closeAll()
					g1 := testenv.Goroutines(t, settleBound, g0)
					runtime.GC()
					runtime.GC() // twice: sync.Pool keeps its victims one cycle
					runtime.ReadMemStats(&m2)
					outcome := "ok"
					if err != nil {
						outcome = err.Error()
						if len(outcome) > 120 {
							outcome = outcome[:120] + "…"
						}
					}
					t.Logf("args %d B: %v, allocated %d MB, heap in use during %d MB, after close+GC %+d KB, goroutines %d→%d; %s",
						len(h.raw), took.Round(time.Microsecond), (m1.TotalAlloc-m0.TotalAlloc)>>20,
						m1.HeapInuse>>20, (int64(m2.HeapInuse)-int64(m0.HeapInuse))>>10, g0, g1, outcome)
				})
			}
		}
	}
}
