// Command analyst is the second level of the composing example: it calls the
// insights server (examples/insights, itself composed of sqlite-explorer and
// server-memory) through the typed client mcpbind generated from insights'
// bundle (package insights, beside this file). It reports on the tables,
// remembers two findings and reads them back joined with live row counts —
// three MCP servers, two levels deep, and no hand-written JSON.
//
// By default it starts insights over stdio with
// "go run github.com/mcpbind/mcpbind/examples/insights --config
// examples/insights/servers.yaml" (run it from the repository root, after
// npm ci --prefix testservers); --url talks to an insights already serving
// streamable HTTP (insights --http 127.0.0.1:8080), and arguments after --
// name another stdio command. --protocol-version pins an older protocol
// version (insights serves both protocol eras).
//
// OpenTelemetry: configured by the standard environment variables
// (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_TRACES_EXPORTER, OTEL_METRICS_EXPORTER,
// OTEL_SERVICE_NAME, default service name analyst; see
// examples/internal/telemetry). One run is one trace: a root span "analyst"
// (kind INTERNAL: the run is local work, not a request to a peer; the calls
// to insights are its CLIENT children, "tools/call table_report" and so on),
// whose context reaches insights in each request's params._meta, and from
// there sqlite-explorer. The insights started over stdio inherits the
// environment, OTEL_SERVICE_NAME included: leave it unset to have each
// program name itself. With none of the variables set it exports nothing.
// The spans are flushed before analyst exits.
//
// The generated package is checked in and refreshed by go generate, which
// exports insights' bundle from the running server (it starts the
// downstream servers too):
//
//go:generate go run github.com/mcpbind/mcpbind/cmd/mcpbind export --probe-eras --timeout 5m -o insights.json -- go run github.com/mcpbind/mcpbind/examples/insights --config ../insights/servers.yaml
//go:generate go run github.com/mcpbind/mcpbind/cmd/mcpbind generate --type-name Table=TableSummary insights.json -o .
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/examples/analyst/insights"
	"github.com/mcpbind/mcpbind/examples/internal/telemetry"
)

// Name is analyst's default service.name, and RootSpan the name of the span
// of one run.
const (
	Name     = "analyst"
	RootSpan = "analyst"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "analyst:", err)
		os.Exit(1)
	}
}

// run parses args and runs the analysis, in one trace when tracing is on.
func run(ctx context.Context, args []string, w, stderr io.Writer) (err error) {
	fs := flag.NewFlagSet("analyst", flag.ContinueOnError)
	fs.SetOutput(stderr)
	url := fs.String("url", "", "streamable HTTP URL of a running insights server (default: start one over stdio)")
	config := fs.String("config", filepath.Join("examples", "insights", "servers.yaml"), "the servers config passed to the insights server started over stdio")
	version := fs.String("protocol-version", "", "pin this protocol version (default: the newest both sides speak)")
	timeout := fs.Duration("timeout", 5*time.Minute, "give up after this long (the first run compiles the servers)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()

	tel, err := telemetry.Start(ctx, Name, stderr)
	if err != nil {
		return err
	}
	defer tel.End(ctx) // after the root span has ended
	ctx, span := tel.TracerProvider.Tracer("github.com/mcpbind/mcpbind/examples/analyst").
		Start(ctx, RootSpan, trace.WithSpanKind(trace.SpanKindInternal))
	defer func() {
		if err != nil {
			span.SetStatus(codes.Error, "analyst failed")
		}
		span.End()
	}()

	t := composition.Stdio("go", "run", "github.com/mcpbind/mcpbind/examples/insights", "--config", *config)
	switch {
	case *url != "":
		t = composition.HTTP(*url)
	case fs.NArg() > 0:
		t = composition.Stdio(fs.Arg(0), fs.Args()[1:]...)
	}
	s, err := composition.Connect(ctx, t, composition.WithProtocolVersion(*version), composition.WithStderr(stderr), tel.MCP.ClientOption())
	if err != nil {
		return err
	}
	defer s.Close()
	var info struct{ Name, Version string }
	_ = json.Unmarshal(s.ServerInfo(), &info)
	fmt.Fprintf(w, "connected to %s %s at protocol version %s over %s\n", info.Name, info.Version, s.ProtocolVersion(), s.Transport())
	return analyse(ctx, insights.NewClient(s), w)
}

// analyse reports on the tables, remembers findings about the largest one
// and about loans, and prints what insights remembers.
func analyse(ctx context.Context, in *insights.Client, w io.Writer) error {
	report, err := in.TableReport(ctx, insights.TableReportArgs{SampleRows: ptr[int64](2)})
	if err != nil {
		return err
	}
	var largest insights.TableSummary
	for _, t := range report.Tables {
		fmt.Fprintf(w, "%-8s %4d rows  (%s)\n", t.Table, t.RowCount, strings.Join(t.Columns, ", "))
		for _, row := range t.Sample {
			cells := make([]string, len(row))
			for i, v := range row {
				cells[i] = string(v)
			}
			fmt.Fprintf(w, "           %s\n", strings.Join(cells, " | "))
		}
		if t.RowCount > largest.RowCount {
			largest = t
		}
	}
	if largest.Table == "" {
		return errors.New("table_report found no rows in any table")
	}

	f, err := in.RememberFinding(ctx, insights.RememberFindingArgs{
		Table:       largest.Table,
		Observation: fmt.Sprintf("%s is the largest table (%d rows at the first report).", largest.Table, largest.RowCount),
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "remembered about %s (entity %q): %d observation(s)\n", f.Table, f.Entity, len(f.Observations))
	if _, err := in.RememberFinding(ctx, insights.RememberFindingArgs{
		Table:       "authors",
		Observation: "Every book's author_id refers to a row of authors.",
	}); err != nil {
		return err
	}

	all, err := in.Findings(ctx, insights.FindingsArgs{})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "findings (%d tables):\n", len(all.Findings))
	for _, f := range all.Findings {
		fmt.Fprintf(w, "  %s (%d rows now):\n", f.Table, f.RowCount)
		for _, o := range f.Observations {
			fmt.Fprintf(w, "    - %s\n", o)
		}
	}

	// A failure downstream comes back as a typed tool error.
	_, err = in.RememberFinding(ctx, insights.RememberFindingArgs{Table: "no_such_table", Observation: "x"})
	var te *composition.ToolError
	if !errors.As(err, &te) {
		return fmt.Errorf("remember_finding about a missing table: want a *composition.ToolError, got %v", err)
	}
	fmt.Fprintf(w, "remember_finding no_such_table: tool error: %s\n", te.Text)
	return nil
}

// ptr returns a pointer to v, for optional arguments.
func ptr[T any](v T) *T { return &v }
