package composition_test

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/composition"
)

// benchArgs and benchFinding are the types of the benchmarked tool, shaped
// like insights' remember_finding.
type benchArgs struct {
	Table       string `json:"table" jsonschema:"The table."`
	Observation string `json:"observation" jsonschema:"The finding."`
}

type benchFinding struct {
	Table        string   `json:"table"`
	Observations []string `json:"observations"`
	Exists       bool     `json:"exists"`
	RowCount     int64    `json:"row_count"`
}

var benchTool = composition.NewTool[benchArgs, benchFinding]("remember", "Remember a finding.",
	composition.WithAnnotations(composition.Annotations{Idempotent: true}))

func benchHandler(_ context.Context, a benchArgs) (benchFinding, error) {
	return benchFinding{Table: a.Table, Observations: []string{a.Observation, "second"}, Exists: true, RowCount: 24}, nil
}

// BenchmarkOwnToolCall compares one call of a server's own tool declared
// with composition.NewTool (arguments validated against the inferred
// inputSchema, result by era) with the same tool written on plain mcp-go
// (mcp.NewTool with the schemas mcp-go infers, mcp.NewStructuredToolHandler;
// arguments not validated, then with server.WithInputSchemaValidation),
// each served on its own mcp-go server and called in process by the same
// composition session, decoded into the same Go type.
func BenchmarkOwnToolCall(b *testing.B) {
	ctx := context.Background()
	own := server.NewMCPServer("own", "1", server.WithToolCapabilities(false))
	if err := composition.Serve(own, []composition.ServedTool{benchTool.Serve(benchHandler)}); err != nil {
		b.Fatal(err)
	}
	plainTool := mcp.NewTool("remember", mcp.WithDescription("Remember a finding."),
		mcp.WithInputSchema[benchArgs](), mcp.WithOutputSchema[benchFinding](),
		mcp.WithIdempotentHintAnnotation(true))
	plainHandler := mcp.NewStructuredToolHandler(func(ctx context.Context, _ mcp.CallToolRequest, a benchArgs) (benchFinding, error) {
		return benchHandler(ctx, a)
	})
	plain := server.NewMCPServer("plain", "1", server.WithToolCapabilities(false))
	plain.AddTool(plainTool, plainHandler)
	validated := server.NewMCPServer("plain", "1", server.WithToolCapabilities(false), server.WithInputSchemaValidation())
	validated.AddTool(plainTool, plainHandler)

	args := benchArgs{Table: "books", Observation: "Two authors wrote all the books."}
	for _, srv := range []struct {
		name string
		s    *server.MCPServer
	}{{"composition.NewTool", own}, {"mcp-go", plain}, {"mcp-go+WithInputSchemaValidation", validated}} {
		for _, version := range []string{"2025-06-18", composition.ModernProtocolVersion} {
			s, err := composition.Connect(ctx, composition.InProcess(srv.s), composition.WithProtocolVersion(version))
			if err != nil {
				b.Fatal(err)
			}
			b.Run(srv.name+"/"+version, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if f, err := benchTool.Call(ctx, s, args); err != nil || len(f.Observations) != 2 {
						b.Fatal(err, f)
					}
				}
			})
			_ = s.Close()
		}
	}
}
