package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	colmetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/mcpbind/mcpbind/testservers/testenv"
)

// The service names the trace test gives each process through
// OTEL_SERVICE_NAME.
const (
	analystService  = "trace-test-analyst"
	insightsService = "trace-test-insights"
	explorerService = "trace-test-sqlite-explorer"
)

// receivedSpan is one span an OTLP exporter sent, with the service.name of
// its resource.
type receivedSpan struct {
	service string
	span    *tracepb.Span
}

// receiver is an OTLP/HTTP collector for the test: it decodes what the
// processes' exporters send to /v1/traces and /v1/metrics (protobuf,
// gzip or not) and keeps it.
type receiver struct {
	mu      sync.Mutex
	spans   []receivedSpan
	metrics map[string][]string // service.name → metric names received
	errs    []string
}

// ServeHTTP answers one export request as an OTLP collector does.
func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := readBody(req)
	if err != nil {
		r.fail("%s: %v", req.URL.Path, err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var resp proto.Message
	switch req.URL.Path {
	case "/v1/traces":
		var m coltrace.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &m); err != nil {
			r.fail("/v1/traces: %v", err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		for _, rs := range m.GetResourceSpans() {
			service := stringAttr(rs.GetResource().GetAttributes(), "service.name")
			for _, ss := range rs.GetScopeSpans() {
				for _, s := range ss.GetSpans() {
					r.spans = append(r.spans, receivedSpan{service, s})
				}
			}
		}
		r.mu.Unlock()
		resp = &coltrace.ExportTraceServiceResponse{}
	case "/v1/metrics":
		var m colmetrics.ExportMetricsServiceRequest
		if err := proto.Unmarshal(body, &m); err != nil {
			r.fail("/v1/metrics: %v", err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		for _, rm := range m.GetResourceMetrics() {
			service := stringAttr(rm.GetResource().GetAttributes(), "service.name")
			for _, sm := range rm.GetScopeMetrics() {
				for _, mt := range sm.GetMetrics() {
					r.metrics[service] = append(r.metrics[service], mt.GetName())
				}
			}
		}
		r.mu.Unlock()
		resp = &colmetrics.ExportMetricsServiceResponse{}
	default:
		r.fail("unexpected request %s %s", req.Method, req.URL.Path)
		http.NotFound(w, req)
		return
	}
	out, err := proto.Marshal(resp)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// fail records a problem with a request, reported by the test afterwards.
func (r *receiver) fail(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// readBody returns req's body, gunzipped when the exporter compressed it.
func readBody(req *http.Request) ([]byte, error) {
	var body io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		z, err := gzip.NewReader(req.Body)
		if err != nil {
			return nil, err
		}
		defer z.Close()
		body = z
	}
	return io.ReadAll(body)
}

// attr returns the value of the attribute key, or nil.
func attr(attrs []*commonpb.KeyValue, key string) *commonpb.AnyValue {
	for _, kv := range attrs {
		if kv.GetKey() == key {
			return kv.GetValue()
		}
	}
	return nil
}

// stringAttr returns the string value of the attribute key, "" when absent.
func stringAttr(attrs []*commonpb.KeyValue, key string) string {
	return attr(attrs, key).GetStringValue()
}

// otelEnv is this process's environment without its OTEL_ variables, plus
// the exporters' settings toward endpoint and OTEL_SERVICE_NAME=service.
func otelEnv(endpoint, service string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OTEL_") {
			env = append(env, kv)
		}
	}
	return append(env,
		"OTEL_EXPORTER_OTLP_ENDPOINT="+endpoint,
		"OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf",
		"OTEL_SERVICE_NAME="+service,
	)
}

// insightsTools and explorerTools are the tools analyst calls on insights
// and those insights calls on sqlite-explorer; memoryTools those insights
// calls on server-memory.
var (
	insightsTools = []string{"table_report", "remember_finding", "findings"}
	explorerTools = []string{"list_tables", "count_rows", "query"}
	memoryTools   = []string{"open_nodes", "create_entities", "add_observations", "read_graph"}
)

// TestOneTraceThroughThreeLevels runs analyst on insights on sqlite-explorer
// and server-memory, the real binaries, each of our three processes
// exporting OTLP/HTTP to a receiver this test runs, and checks what they
// sent once all have exited: one trace, rooted at analyst's INTERNAL span;
// analyst's CLIENT span of each tools/call is the parent of insights' SERVER
// span of it, whose children are insights' CLIENT spans of its downstream
// calls; each of those to sqlite-explorer is the parent of sqlite-explorer's
// SERVER span, and those to server-memory (not ours: it exports nothing) end
// their branch. Span names, kinds and the conventions' attributes are
// checked, and service.name per process from OTEL_SERVICE_NAME. Over stdio
// (insights started by analyst), and with insights serving streamable HTTP.
func TestOneTraceThroughThreeLevels(t *testing.T) {
	node, memArgs := testenv.ServerMemory(t)
	analyst := testenv.Build(t, "./examples/analyst")
	insightsBin := testenv.Build(t, "./examples/insights")
	explorer := testenv.Build(t, "./examples/sqlite-explorer")
	envCmd, err := exec.LookPath("env")
	if err != nil {
		t.Fatalf("the env command, which sets insights' OTEL_SERVICE_NAME, is not on PATH: %v", err)
	}
	config := filepath.Join(t.TempDir(), "servers.yaml")
	yaml := fmt.Sprintf("servers:\n"+
		"  sqlite-explorer:\n"+
		"    command: [%q]\n"+
		"    env: {OTEL_SERVICE_NAME: %s}\n"+
		"  memory:\n"+
		"    command: [%q, %q]\n", explorer, explorerService, node, memArgs[0])
	if err := os.WriteFile(config, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}

	t.Run("stdio", func(t *testing.T) {
		rec := startReceiver(t)
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		mem := filepath.Join(t.TempDir(), "memory.jsonl")
		cmd := exec.CommandContext(ctx, analyst, "--", envCmd, "OTEL_SERVICE_NAME="+insightsService, insightsBin, "--config", config, "--memory", mem, "--log")
		cmd.Env = otelEnv(rec.url, analystService)
		stderr := runAnalyst(t, cmd)
		// analyst has exited, and it waits for insights to exit when it
		// closes the session, which waits for sqlite-explorer: each
		// flushed its exporter before exiting.
		trace := checkTrace(t, rec, "pipe")
		// insights' --log records of its downstream calls (its stderr
		// reaches analyst's) carry the trace's id.
		if !strings.Contains(stderr, " trace_id="+trace+" span_id=") {
			t.Errorf("insights' --log records lack trace_id=%s span_id=…; analyst's stderr:\n%s", trace, stderr)
		}
	})

	t.Run("streamable HTTP", func(t *testing.T) {
		rec := startReceiver(t)
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		mem := filepath.Join(t.TempDir(), "memory.jsonl")
		srv := exec.CommandContext(ctx, insightsBin, "--config", config, "--memory", mem, "--http", "127.0.0.1:0")
		srv.Env = otelEnv(rec.url, insightsService)
		url, stop := startInsightsHTTP(t, srv)
		// At the initialize era, so that the session has an id.
		cmd := exec.CommandContext(ctx, analyst, "--url", url, "--protocol-version", "2025-11-25")
		cmd.Env = otelEnv(rec.url, analystService)
		_ = runAnalyst(t, cmd)
		stop() // insights flushes as it exits on SIGINT
		checkTrace(t, rec, "tcp")
	})
}

// startedReceiver is a receiver serving on loopback at url.
type startedReceiver struct {
	*receiver
	url string
}

// startReceiver starts a receiver on a loopback port, closed when t ends.
func startReceiver(t *testing.T) startedReceiver {
	t.Helper()
	rec := &receiver{metrics: map[string][]string{}}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	return startedReceiver{rec, srv.URL}
}

// runAnalyst runs cmd, an analyst command line, to its end, fails the test
// when it fails, and returns its stderr.
func runAnalyst(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("analyst: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "remember_finding no_such_table: tool error:") {
		t.Fatalf("analyst did not finish its run; stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
	return stderr.String()
}

// startInsightsHTTP starts cmd, insights with --http, and returns the URL it
// listens on and a func that stops it with SIGINT and waits for its exit.
func startInsightsHTTP(t *testing.T, cmd *exec.Cmd) (url string, stop func()) {
	t.Helper()
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	found := make(chan string, 1)
	var mu sync.Mutex
	var log strings.Builder
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			line := sc.Text()
			mu.Lock()
			log.WriteString(line + "\n")
			mu.Unlock()
			if u, ok := strings.CutPrefix(line, testenv.ListeningPrefix); ok {
				select {
				case found <- u:
				default:
				}
			}
		}
	}()
	stderr := func() string { mu.Lock(); defer mu.Unlock(); return log.String() }
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			t.Errorf("interrupting insights: %v", err)
		}
		<-drained
		if err := cmd.Wait(); err != nil {
			t.Errorf("insights: %v\nstderr:\n%s", err, stderr())
		}
	}
	t.Cleanup(stop)
	select {
	case url = <-found:
	case <-drained:
		t.Fatalf("insights exited before listening; stderr:\n%s", stderr())
	}
	return url, stop
}

// checkTrace checks the spans rec received from one analyst run whose
// connection to insights was over transport (network.transport: pipe or
// tcp); insights reaches its downstream servers over stdio. It returns the
// trace's id (hex).
func checkTrace(t *testing.T, rec startedReceiver, transport string) string {
	t.Helper()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, e := range rec.errs {
		t.Errorf("receiver: %s", e)
	}
	if len(rec.spans) == 0 {
		t.Fatal("the receiver got no span")
	}
	byID := map[string]receivedSpan{}
	children := map[string][]receivedSpan{}
	traces := map[string][]string{}
	services := map[string]int{}
	for _, s := range rec.spans {
		id := hex.EncodeToString(s.span.GetSpanId())
		byID[id] = s
		parent := hex.EncodeToString(s.span.GetParentSpanId())
		children[parent] = append(children[parent], s)
		trace := hex.EncodeToString(s.span.GetTraceId())
		traces[trace] = append(traces[trace], s.service+" "+s.span.GetName())
		services[s.service]++
	}
	for _, want := range []string{analystService, insightsService, explorerService} {
		if services[want] == 0 {
			t.Errorf("no span from service.name %q; spans by service: %v", want, services)
		}
	}
	if len(services) != 3 {
		t.Errorf("spans by service.name: %v; want only %s, %s and %s", services, analystService, insightsService, explorerService)
	}
	if len(traces) != 1 {
		t.Errorf("%d traces, want one:", len(traces))
		for id, spans := range traces {
			t.Errorf("  trace %s: %v", id, spans)
		}
	}

	// The root: analyst's span of the run, with no parent.
	roots := children[""]
	if len(roots) != 1 || roots[0].service != analystService || roots[0].span.GetName() != RootSpan || roots[0].span.GetKind() != tracepb.Span_SPAN_KIND_INTERNAL {
		t.Fatalf("want one root span, analyst's INTERNAL %q; the spans without parent: %v", RootSpan, describe(roots))
	}
	root := roots[0]
	traceID := hex.EncodeToString(root.span.GetTraceId())

	// Each span's kind, name and attributes by where it sits.
	checkCall := func(s receivedSpan, kind tracepb.Span_SpanKind, tools []string, transport string) string {
		t.Helper()
		sp := s.span
		tool := stringAttr(sp.GetAttributes(), "gen_ai.tool.name")
		what := fmt.Sprintf("%s span %q (%s)", s.service, sp.GetName(), sp.GetKind())
		if sp.GetKind() != kind {
			t.Errorf("%s: kind %s, want %s", what, sp.GetKind(), kind)
		}
		if !slices.Contains(tools, tool) {
			t.Errorf("%s: gen_ai.tool.name %q, want one of %v", what, tool, tools)
		}
		if want := "tools/call " + tool; sp.GetName() != want {
			t.Errorf("%s: name %q, want %q", what, sp.GetName(), want)
		}
		for key, want := range map[string]string{
			"mcp.method.name":       "tools/call",
			"gen_ai.operation.name": "execute_tool",
			"network.transport":     transport,
		} {
			if got := stringAttr(sp.GetAttributes(), key); got != want {
				t.Errorf("%s: %s = %q, want %q", what, key, got, want)
			}
		}
		for _, key := range []string{"mcp.protocol.version", "jsonrpc.request.id"} {
			if stringAttr(sp.GetAttributes(), key) == "" {
				t.Errorf("%s: no %s (a string)", what, key)
			}
		}
		if errType := stringAttr(sp.GetAttributes(), "error.type"); (errType != "") != (sp.GetStatus().GetCode() == tracepb.Status_STATUS_CODE_ERROR) {
			t.Errorf("%s: error.type %q with status %s; want status ERROR exactly when error.type is set", what, errType, sp.GetStatus().GetCode())
		}
		return tool
	}

	calls := children[hex.EncodeToString(root.span.GetSpanId())]
	var analystTools, explorerCalls, memoryCalls []string
	toolErrors := 0
	for _, c := range calls {
		if c.service != analystService {
			t.Errorf("a child of the root span is %s's %q, want only analyst's CLIENT spans", c.service, c.span.GetName())
			continue
		}
		tool := checkCall(c, tracepb.Span_SPAN_KIND_CLIENT, insightsTools, transport)
		analystTools = append(analystTools, tool)
		if stringAttr(c.span.GetAttributes(), "error.type") == "tool_error" {
			toolErrors++
		}
		if transport == "tcp" && (stringAttr(c.span.GetAttributes(), "server.address") != "127.0.0.1" || attr(c.span.GetAttributes(), "server.port").GetIntValue() == 0) {
			t.Errorf("analyst's %q over HTTP: server.address %v, server.port %v; want 127.0.0.1 and the port", c.span.GetName(), attr(c.span.GetAttributes(), "server.address"), attr(c.span.GetAttributes(), "server.port"))
		}
		session := stringAttr(c.span.GetAttributes(), "mcp.session.id")
		// Level two: insights' SERVER span of the same call.
		served := children[hex.EncodeToString(c.span.GetSpanId())]
		if len(served) != 1 || served[0].service != insightsService {
			t.Errorf("analyst's %q: children %v, want insights' one SERVER span", c.span.GetName(), describe(served))
			continue
		}
		if s := checkCall(served[0], tracepb.Span_SPAN_KIND_SERVER, insightsTools, transport); s != tool {
			t.Errorf("insights' SERVER span of analyst's %s call is of tool %s", tool, s)
		}
		sameRequestID(t, c, served[0])
		// Over HTTP at 2025-11-25 the session has an id (Mcp-Session-Id),
		// the same on both sides; over stdio the protocol has none.
		servedSession := stringAttr(served[0].span.GetAttributes(), "mcp.session.id")
		if servedSession != session || (session != "") != (transport == "tcp") {
			t.Errorf("analyst's %q: mcp.session.id %q, insights' SERVER span's %q; want the session's id on both over HTTP, none over stdio", c.span.GetName(), session, servedSession)
		}
		// Its children: insights' CLIENT spans of the downstream calls.
		for _, d := range children[hex.EncodeToString(served[0].span.GetSpanId())] {
			if d.service != insightsService {
				t.Errorf("a child of insights' SERVER span %q is %s's %q", served[0].span.GetName(), d.service, d.span.GetName())
				continue
			}
			dtool := checkCall(d, tracepb.Span_SPAN_KIND_CLIENT, append(slices.Clone(explorerTools), memoryTools...), "pipe")
			below := children[hex.EncodeToString(d.span.GetSpanId())]
			if slices.Contains(memoryTools, dtool) {
				// server-memory is not ours: its branch ends here.
				memoryCalls = append(memoryCalls, dtool)
				if len(below) > 0 {
					t.Errorf("insights' call %q to server-memory has children %v, want none", d.span.GetName(), describe(below))
				}
				continue
			}
			// Level three: sqlite-explorer's SERVER span.
			explorerCalls = append(explorerCalls, dtool)
			if len(below) != 1 || below[0].service != explorerService {
				t.Errorf("insights' %q: children %v, want sqlite-explorer's one SERVER span", d.span.GetName(), describe(below))
				continue
			}
			if s := checkCall(below[0], tracepb.Span_SPAN_KIND_SERVER, explorerTools, "pipe"); s != dtool {
				t.Errorf("sqlite-explorer's SERVER span of insights' %s call is of tool %s", dtool, s)
			}
			sameRequestID(t, d, below[0])
			if id := stringAttr(below[0].span.GetAttributes(), "mcp.session.id"); id != "" {
				t.Errorf("sqlite-explorer's %q over stdio: mcp.session.id %q, want none", below[0].span.GetName(), id)
			}
			if n := len(children[hex.EncodeToString(below[0].span.GetSpanId())]); n > 0 {
				t.Errorf("sqlite-explorer's %q has %d children, want none", below[0].span.GetName(), n)
			}
		}
	}
	// analyst's run: table_report, remember_finding twice, findings, and
	// remember_finding about a missing table (a tool error).
	slices.Sort(analystTools)
	if want := []string{"findings", "remember_finding", "remember_finding", "remember_finding", "table_report"}; !slices.Equal(analystTools, want) {
		t.Errorf("analyst's CLIENT spans are of the tools %v, want %v", analystTools, want)
	}
	if toolErrors != 1 {
		t.Errorf("%d of analyst's CLIENT spans have error.type tool_error, want 1 (remember_finding no_such_table)", toolErrors)
	}
	if len(explorerCalls) == 0 || len(memoryCalls) == 0 {
		t.Errorf("insights' downstream calls reached sqlite-explorer %d times and server-memory %d times; want both", len(explorerCalls), len(memoryCalls))
	}
	// Every span is in the tree walked above: none is left over.
	walked := 1 + len(calls)*2 + 2*len(explorerCalls) + len(memoryCalls)
	if len(rec.spans) != walked {
		t.Errorf("%d spans received, %d in the tree from analyst's root; all spans: %v", len(rec.spans), walked, describe(rec.spans))
	}

	// The histograms of the conventions, from each process: the client
	// ones where it calls, the server ones where it serves, and no other.
	client := []string{"mcp.client.operation.duration", "mcp.client.session.duration"}
	server := []string{"mcp.server.operation.duration", "mcp.server.session.duration"}
	for service, want := range map[string][]string{
		analystService:  client,
		insightsService: append(slices.Clone(client), server...),
		explorerService: server,
	} {
		got := slices.Clone(rec.metrics[service])
		slices.Sort(got)
		got = slices.Compact(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s sent the metrics %v, want %v", service, got, want)
		}
	}
	return traceID
}

// sameRequestID checks that a CLIENT span and the SERVER span of the same
// call name the same jsonrpc.request.id.
func sameRequestID(t *testing.T, client, server receivedSpan) {
	t.Helper()
	c := stringAttr(client.span.GetAttributes(), "jsonrpc.request.id")
	s := stringAttr(server.span.GetAttributes(), "jsonrpc.request.id")
	if c != s {
		t.Errorf("%s's %q has jsonrpc.request.id %q, %s's SERVER span of it %q", client.service, client.span.GetName(), c, server.service, s)
	}
}

// describe lists spans as "service kind name", for failure messages.
func describe(spans []receivedSpan) []string {
	var out []string
	for _, s := range spans {
		out = append(out, fmt.Sprintf("%s %s %q", s.service, s.span.GetKind(), s.span.GetName()))
	}
	return out
}
