package composition

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpbind/mcpbind/internal/mcpconn"
)

// Serving streamable HTTP without copying large forwarded results.
//
// mcp-go's StreamableHTTPServer writes a response with
// json.NewEncoder(w).Encode (or json.Marshal and fmt.Fprintf for an SSE
// event), and encoding/json copies every MarshalJSON output while
// compacting it: a forwarded 30 MB result cost the composing server 5–6×
// its size. The sessions, SSE upgrade, resumability and header checks all
// live unexported in StreamableHTTPServer, so StreamableHTTPHandler keeps
// it and changes only what reaches the wire: a forwarded result's raw
// blocks are marshalled as short placeholder strings, and the response
// writer puts the held bytes in their place as the body is written.

// heldPrefix starts every placeholder, after its opening quote. ASCII
// letters, digits and '-' only: encoding/json writes them unchanged (no
// HTML escaping), so the placeholder reaches the writer as marshalled.
const heldPrefix = "mcpbind-held-"

// heldDigits is the most digits a placeholder's number has (an int).
const heldDigits = 19

// heldKey is the context key of a request's *heldBytes.
type heldKey struct{}

// heldBytes is one HTTP request's store of JSON values to be written in
// place of their placeholders: `"mcpbind-held-<token>-<n>"`, token being
// 128 random bits (hex) drawn per request, so a downstream cannot forge
// one, and n the value's index. It is emptied when the request ends,
// whether or not the values were written.
type heldBytes struct {
	needle []byte        // `"` + heldPrefix + token + "-"
	budget *ResultBudget // the handler's bound on bytes held at once

	mu       sync.Mutex
	values   [][]byte // by n; nil once released
	reserved int64    // bytes of budget reserved by this request
	done     bool
	// rpcErrs holds, by n, the code and data of a forwarded JSON-RPC
	// error whose message is held as n (see holdRPCError).
	rpcErrs map[int]mcp.JSONRPCErrorDetails
}

// newHeldBytes returns an empty store with a fresh token whose holds
// reserve budget.
func newHeldBytes(budget *ResultBudget) *heldBytes {
	var token [16]byte
	_, _ = rand.Read(token[:]) // crypto/rand.Read never fails (Go 1.24)
	return &heldBytes{needle: []byte(`"` + heldPrefix + hex.EncodeToString(token[:]) + "-"), budget: budget}
}

// reserve reserves n bytes of the budget for values about to be held,
// waiting for room until ctx ends (then it returns our error wrapping
// ctx's cause). Once the request has ended nothing is reserved: the values
// will not be held.
func (h *heldBytes) reserve(ctx context.Context, n int64) error {
	if h.budget == nil || n <= 0 {
		return nil
	}
	got := mcpconn.Reserve(h.budget, n, ctx.Done())
	if got == 0 {
		return fmt.Errorf("composition: no room to hold the tool's result (%d bytes) for its HTTP response "+
			"before the request ended (held-results budget of %d bytes; see WithHeldBudget): %w",
			n, h.budget.Capacity(), context.Cause(ctx))
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done {
		mcpconn.Release(h.budget, got)
		return nil
	}
	h.reserved += got
	return nil
}

// hold registers raw (valid JSON without line breaks) and returns its
// placeholder (a JSON string), or nil, false once the request has ended.
func (h *heldBytes) hold(raw []byte) (placeholder []byte, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done {
		return nil, false
	}
	n := len(h.values)
	h.values = append(h.values, raw)
	return append(strconv.AppendInt(bytes.Clone(h.needle), int64(n), 10), '"'), true
}

// holdRPCError holds a forwarded JSON-RPC error (see Forwarding): its
// message as a JSON string, whose placeholder (without its quotes) is
// returned for the handler's error, and its code and data, which the
// writer puts in place of mcp-go's -32603 when it replaces the
// placeholder. ok is false once the request has ended.
func (h *heldBytes) holdRPCError(d mcp.JSONRPCErrorDetails) (message string, ok bool) {
	msg, err := json.Marshal(d.Message)
	if err != nil {
		return "", false
	}
	p, ok := h.hold(msg)
	if !ok {
		return "", false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.rpcErrs == nil {
		h.rpcErrs = map[int]mcp.JSONRPCErrorDetails{}
	}
	h.rpcErrs[len(h.values)-1] = d
	return string(p[1 : len(p)-1]), true
}

// rpcError returns the error held as n by holdRPCError.
func (h *heldBytes) rpcError(n int) (mcp.JSONRPCErrorDetails, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	d, ok := h.rpcErrs[n]
	return d, ok
}

// value returns the bytes held as n.
func (h *heldBytes) value(n int) ([]byte, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if n < 0 || n >= len(h.values) {
		return nil, false
	}
	return h.values[n], true
}

// release drops the held values and gives back their budget; later holds
// fail.
func (h *heldBytes) release() {
	h.mu.Lock()
	reserved := h.reserved
	h.values, h.reserved, h.done = nil, 0, true
	h.mu.Unlock()
	mcpconn.Release(h.budget, reserved)
}

// holdResult replaces r's raw blocks (rawContent) and RawStructuredContent
// by placeholders when ctx carries a request's store (StreamableHTTPHandler)
// and req is answered by that request (not run as a task, whose result
// another request fetches), so that mcp-go marshals a few bytes per block
// instead of copying the received ones; otherwise r is left as it is. A raw
// value with line breaks is compacted first (a copy) since it is written as
// it is, maybe inside an SSE data line.
//
// The values' bytes are reserved in the handler's held-results budget, all
// at once, before any placeholder is handed out; when ctx ends before there
// is room, the error (wrapping ctx's cause) fails the call: mcp-go answers
// it as a JSON-RPC internal error (-32603).
func holdResult(ctx context.Context, req mcp.CallToolRequest, r *mcp.CallToolResult) (*mcp.CallToolResult, error) {
	h, _ := ctx.Value(heldKey{}).(*heldBytes)
	if h == nil || r == nil || req.Params.Task != nil {
		return r, nil
	}
	var total int64
	compact := func(raw []byte, what string) ([]byte, error) {
		raw, err := wireJSON(raw, true)
		if err != nil {
			return nil, fmt.Errorf("composition: encoding the handler's result: %s: %w", what, err)
		}
		total += int64(len(raw))
		return raw, nil
	}
	var err error
	for i, c := range r.Content {
		if rc, isRaw := c.(rawContent); isRaw {
			if rc.raw, err = compact(rc.raw, fmt.Sprintf("content block %d", i)); err != nil {
				return nil, err
			}
			r.Content[i] = rc
		}
	}
	if len(r.RawStructuredContent) > 0 {
		if r.RawStructuredContent, err = compact(r.RawStructuredContent, "structuredContent"); err != nil {
			return nil, err
		}
	}
	if err := h.reserve(ctx, total); err != nil {
		return nil, err
	}
	hold := func(raw []byte) []byte {
		if p, ok := h.hold(raw); ok {
			return p
		}
		return raw // the request has ended: nothing will be written
	}
	for i, c := range r.Content {
		if rc, isRaw := c.(rawContent); isRaw {
			r.Content[i] = rawContent{raw: hold(rc.raw)}
		}
	}
	if len(r.RawStructuredContent) > 0 {
		r.RawStructuredContent = hold(r.RawStructuredContent)
	}
	return r, nil
}

// StreamableHTTPHandler serves srv (mcp-go's streamable HTTP transport,
// MCP spec "Transports: Streamable HTTP") so that the tools/call results
// of composition.Serve tools returning a *Result (a forwarded result) are
// written as the bytes received, not copied by encoding/json: a forwarded
// 30 MB result costs the serving process about 3× its size instead of
// 5–6×. Everything else is srv's (sessions, SSE upgrade, headers, errors);
// the response body is the same but for raw blocks keeping their sender's
// bytes (encoding/json would HTML-escape <, >, & in them).
//
// Each request gets a store of held values in its context; the handler of
// a served tool puts its raw blocks there and hands mcp-go placeholders,
// which the response writer replaces by the held bytes as the body is
// written (http.Flusher is kept, so SSE streams as before). Held values
// are dropped when the request ends.
//
// srv must not be made with server.WithEventStore: an event stored for
// resumption would keep placeholders (a client resuming the stream would
// get them, not the result). Middleware, including one that rewrites the
// body (compression), wraps the returned handler: it sees the bytes after
// the placeholders were replaced.
//
// Held results are bounded: a result's bytes reserve a [ResultBudget]
// (by default one of [DefaultHeldBytes] per handler; see [WithHeldBudget])
// before mcp-go gets its placeholders and give them back when its request
// ends, so slow clients cannot make the server hold any number of large
// results. A call that finds the budget full waits for a request to end;
// if its own request ends first (the client went away) it fails with a
// JSON-RPC internal error (-32603) whose message says so (the handler's
// error wraps the request context's cause, context.Canceled). Results
// that are not a *Result, and task-augmented calls' results, are not held
// nor counted.
func StreamableHTTPHandler(srv *server.StreamableHTTPServer, opts ...HTTPOption) http.Handler {
	var cfg httpConfig
	for _, o := range opts {
		if o.apply != nil {
			o.apply(&cfg)
		}
	}
	if cfg.held == nil {
		cfg.held = NewResultBudget(DefaultHeldBytes)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := newHeldBytes(cfg.held)
		defer h.release()
		hw := &heldWriter{w: w, held: h}
		var out http.ResponseWriter = hw
		if f, ok := w.(http.Flusher); ok {
			out = &heldFlushWriter{heldWriter: hw, flusher: f}
		}
		srv.ServeHTTP(out, r.WithContext(context.WithValue(r.Context(), heldKey{}, h)))
		_ = hw.end()
	})
}

// DefaultHeldBytes is the size of a [StreamableHTTPHandler]'s held-results
// budget when no [WithHeldBudget] is given: 4 × [DefaultMaxResponseBytes]
// (128 MiB), so four results of the largest size a session accepts by
// default (or many smaller ones) wait for their clients at once, and the
// memory of forwarded results waiting to be written stays near 128 MiB
// whatever the number of clients. A single result larger than the budget
// is still held, alone.
const DefaultHeldBytes = 4 * DefaultMaxResponseBytes

// HTTPOption configures [StreamableHTTPHandler].
type HTTPOption struct {
	apply func(*httpConfig)
}

// httpConfig is what the HTTPOptions set.
type httpConfig struct {
	held *ResultBudget
}

// WithHeldBudget makes the handler reserve b for the results it holds
// until written (see [StreamableHTTPHandler]): the bytes of the forwarded
// results (their raw content blocks and structuredContent, as written) of
// all requests in progress stay within b's capacity, except for one
// result larger than the capacity, held alone. A nil b means a budget of
// [DefaultHeldBytes] of the handler's own.
//
// b may be shared: by several handlers, and with the sessions whose
// results are forwarded ([WithResultBudget]), making one bound for the
// results being read and the results waiting to be written. That cannot
// deadlock: a request reserves once, for its whole result, after the
// result has been read, and a stdio session gives its reservation back
// once the result is handed to the handler, whatever the handler does; so
// a call waiting to hold has nothing reserved, and what it waits for is
// either a read that completes on its own or a request that ends when its
// client reads the body. (A session's reads do wait, and so its other
// calls, while slow clients keep the budget full.)
func WithHeldBudget(b *ResultBudget) HTTPOption {
	return HTTPOption{apply: func(c *httpConfig) { c.held = b }}
}

// heldWriter is an http.ResponseWriter that writes the body through,
// replacing each placeholder of its store (with its quotes) by the held
// bytes. A placeholder may be split across Write calls: the bytes that
// could begin one are kept until the next Write shows whether they do.
type heldWriter struct {
	w    http.ResponseWriter
	held *heldBytes

	mu      sync.Mutex
	pending []byte // a tail that may begin a placeholder; shorter than maxPlaceholder
}

// heldFlushWriter is a heldWriter whose underlying writer streams.
type heldFlushWriter struct {
	*heldWriter
	flusher http.Flusher
}

// Flush sends what was written so far (not a pending partial placeholder).
func (f *heldFlushWriter) Flush() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.flusher.Flush()
}

// Header returns the underlying writer's header map.
func (hw *heldWriter) Header() http.Header { return hw.w.Header() }

// WriteHeader sends the status code.
func (hw *heldWriter) WriteHeader(status int) { hw.w.WriteHeader(status) }

// Unwrap returns the underlying writer (for http.ResponseController).
func (hw *heldWriter) Unwrap() http.ResponseWriter { return hw.w }

// maxPlaceholder is the length of the longest placeholder.
func (hw *heldWriter) maxPlaceholder() int { return len(hw.held.needle) + heldDigits + 1 }

// Write writes p, placeholders replaced. It reports len(p) on success.
func (hw *heldWriter) Write(p []byte) (int, error) {
	hw.mu.Lock()
	defer hw.mu.Unlock()
	size := len(p)
	if len(hw.pending) > 0 {
		// Resolve the pending tail with at most maxPlaceholder bytes of p
		// (a small copy), then go on with the rest of p. A tail still
		// pending after that starts in p unless all of p was joined: a
		// placeholder is shorter than maxPlaceholder.
		k := min(len(p), hw.maxPlaceholder())
		joined := append(hw.pending, p[:k]...)
		hw.pending = nil
		n, err := hw.scan(joined)
		if err != nil {
			return 0, err
		}
		from := len(joined) - k
		if n < from {
			hw.pending = append([]byte(nil), joined[n:]...)
			return size, nil
		}
		p = p[n-from:]
	}
	n, err := hw.scan(p)
	if err != nil {
		return 0, err
	}
	hw.pending = append(hw.pending, p[n:]...)
	return size, nil
}

// scan writes data with placeholders replaced, up to a tail that may
// begin a placeholder, and returns how many bytes of data it consumed.
func (hw *heldWriter) scan(data []byte) (int, error) {
	needle := hw.held.needle
	i := 0
	for {
		at := bytes.Index(data[i:], needle)
		if at < 0 {
			end := len(data) - partialSuffix(data[i:], needle)
			return end, hw.write(data[i:end])
		}
		at += i
		digits := at + len(needle)
		j := digits
		for j < len(data) && j-digits <= heldDigits && '0' <= data[j] && data[j] <= '9' {
			j++
		}
		if j == len(data) && j-digits <= heldDigits {
			// The placeholder may go on in the next Write.
			return at, hw.write(data[i:at])
		}
		if j > digits && j-digits <= heldDigits && data[j] == '"' {
			if n, err := strconv.Atoi(string(data[digits:j])); err == nil {
				if v, ok := hw.held.value(n); ok {
					if err := hw.writeHeld(data[i:at], n, v); err != nil {
						return 0, err
					}
					i = j + 1
					continue
				}
			}
		}
		// Not one of ours: written as it is.
		if err := hw.write(data[i:digits]); err != nil {
			return 0, err
		}
		i = digits
	}
}

// mcpgoHandlerError is how mcp-go's error object for a tool handler's
// error starts, up to the message string: the bytes before the
// placeholder of a held JSON-RPC error.
const mcpgoHandlerError = `{"code":-32603,"message":`

// writeHeld writes before and the value v held as n in place of its
// placeholder. For a forwarded JSON-RPC error (holdRPCError) whose
// placeholder follows mcp-go's error object start in before, that start
// is written with the forwarded code, and the forwarded data follows the
// message.
func (hw *heldWriter) writeHeld(before []byte, n int, v []byte) error {
	d, isErr := hw.held.rpcError(n)
	if !isErr || !bytes.HasSuffix(before, []byte(mcpgoHandlerError)) {
		if err := hw.write(before); err != nil {
			return err
		}
		return hw.write(v)
	}
	if err := hw.write(before[:len(before)-len(mcpgoHandlerError)]); err != nil {
		return err
	}
	head := append(strconv.AppendInt([]byte(`{"code":`), int64(d.Code), 10), `,"message":`...)
	head = append(head, v...)
	if d.Data != nil {
		if data, err := json.Marshal(d.Data); err == nil {
			head = append(append(head, `,"data":`...), data...)
		}
	}
	return hw.write(head)
}

// partialSuffix is the length of the longest suffix of data that is a
// proper prefix of needle.
func partialSuffix(data, needle []byte) int {
	for n := min(len(data), len(needle)-1); n > 0; n-- {
		if bytes.HasPrefix(needle, data[len(data)-n:]) {
			return n
		}
	}
	return 0
}

// write writes b to the underlying writer.
func (hw *heldWriter) write(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	_, err := hw.w.Write(b)
	return err
}

// end writes a pending tail that turned out not to be a placeholder.
func (hw *heldWriter) end() error {
	hw.mu.Lock()
	defer hw.mu.Unlock()
	err := hw.write(hw.pending)
	hw.pending = nil
	return err
}
