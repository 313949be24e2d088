package composition_test

import (
	"context"
	"testing"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/pinning"
	"github.com/mcpbind/mcpbind/golden/sqlite-explorer/sqliteexplorer"
)

// BenchmarkPinnedCall measures what pinning adds to a typed call: the same
// DescribeTable through the generated client over mcp-go's in-process
// transport to the sqlite-explorer server, without a digest check (with
// and without a tools/list first: pinning lists the tools, and mcp-go's
// client keeps the listed tools for its calls) and with the generated
// Pins through pinning.DigestCheck (DigestFail), whose calls look up the tool's verdict before
// sending.
func BenchmarkPinnedCall(b *testing.B) {
	ctx := context.Background()
	srv := explorerServer(b)
	for _, tc := range []struct {
		name   string
		listed bool // the tools were listed (mcp-go then keeps them for its calls)
		opts   []composition.Option
	}{
		{"unpinned", false, nil},
		{"unpinned-listed", true, nil},
		{"pinned", false, []composition.Option{pinning.DigestCheck(sqliteexplorer.Pins, composition.DigestFail)}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s, err := composition.Connect(ctx, composition.InProcess(srv), tc.opts...)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			if w := s.Warnings(); len(w) != 0 {
				b.Fatalf("warnings %q", w)
			}
			if tc.listed {
				if _, err := s.ListToolsRaw(ctx); err != nil {
					b.Fatal(err)
				}
			}
			describeBooks(b, sqliteexplorer.NewClient(s))
		})
	}
}

// describeBooks times DescribeTable of the table "books" through db.
func describeBooks(b *testing.B, db *sqliteexplorer.Client) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		d, err := db.DescribeTable(ctx, sqliteexplorer.DescribeTableArgs{Table: "books"})
		if err != nil || len(d.Columns) == 0 {
			b.Fatal(err, d)
		}
	}
}
