package composition_test

import (
	"bufio"
	"context"
	"io"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/composition"
)

// BenchmarkServeStdioLargeResult answers a tools/call whose handler returns
// a *Result of 2 MiB (a 1 MiB text block and a 1 MiB structuredContent, as
// bytes: what a forwarding handler returns) over pipes, served by
// composition.ServeStdio and by mcp-go's StdioServer: B/op is what the
// serving side allocates per answer (issue 16; peak RSS is measured with
// testservers/memdriver).
func BenchmarkServeStdioLargeResult(b *testing.B) {
	const n = 1 << 20
	serve := map[string]func(ctx context.Context, srv *server.MCPServer, in io.Reader, out io.Writer) error{
		"composition.ServeStdio": composition.ServeStdio,
		"mcp-go": func(ctx context.Context, srv *server.MCPServer, in io.Reader, out io.Writer) error {
			return server.NewStdioServer(srv).Listen(ctx, in, out)
		},
	}
	for _, name := range []string{"composition.ServeStdio", "mcp-go"} {
		b.Run(name, func(b *testing.B) {
			srv := server.NewMCPServer("bench", "1", server.WithToolCapabilities(false))
			if err := composition.Serve(srv, []composition.ServedTool{bigResultTool(n, "z")}); err != nil {
				b.Fatal(err)
			}
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan struct{})
			go func() {
				defer close(done)
				_ = serve[name](ctx, srv, inR, outW)
				_ = outW.Close()
			}()
			out := bufio.NewReaderSize(outR, 64<<10)
			exchange := func(line string) int {
				if _, err := io.WriteString(inW, line+"\n"); err != nil {
					b.Fatal(err)
				}
				size, err := readAnswer(out, nil)
				if err != nil {
					b.Fatal(err)
				}
				return size
			}
			exchange(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`)
			b.ReportAllocs()
			b.SetBytes(2 * n)
			for b.Loop() {
				if size := exchange(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fwd"}}`); size < 2*n {
					b.Fatalf("answer of %d bytes", size)
				}
			}
			b.StopTimer()
			_ = inW.Close()
			cancel()
			<-done
		})
	}
}
