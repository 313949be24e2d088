package export_test

import (
	"context"
	"testing"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/export"
	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// The runtime's session is what real exports read.
var _ export.Session = (*composition.Session)(nil)

// BenchmarkExport measures a whole export of sqlite-explorer over stdio, as
// `mcpbind export` does it: start the server, negotiate, list the tools,
// build and check the bundle document once and encode it, stop the server.
func BenchmarkExport(b *testing.B) {
	command, args := testenv.SQLiteExplorerStdio(b)
	ctx := context.Background()
	tools := 0
	for b.Loop() {
		s, err := composition.Connect(ctx, composition.Stdio(command, args...))
		if err != nil {
			b.Fatal(err)
		}
		srv, doc, err := export.ExportDocument(ctx, s, export.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := doc.Marshal(); err != nil {
			b.Fatal(err)
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		tools = len(srv.Tools)
	}
	b.ReportMetric(float64(tools), "tools")
}

// BenchmarkExportListOnly measures listing and marshalling on one open
// session, without the process start and handshake.
func BenchmarkExportListOnly(b *testing.B) {
	command, args := testenv.SQLiteExplorerStdio(b)
	ctx := context.Background()
	s, err := composition.Connect(ctx, composition.Stdio(command, args...))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for b.Loop() {
		_, doc, err := export.ExportDocument(ctx, s, export.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := doc.Marshal(); err != nil {
			b.Fatal(err)
		}
	}
}
