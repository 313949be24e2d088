package mcpconn

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// The JSON-RPC transport of a stdio server.
//
// mcp-go's transport.Stdio cannot be made to fail safely: it skips a line it
// cannot parse (so the request waits for its deadline), holds a lock across
// a blocking write to the server's stdin (so once the 64 KiB pipe is full,
// every caller waits on that lock past its deadline, whatever its context),
// and copies each line four times while decoding it. stdioTransport
// implements mcp-go's transport.Interface (and BidirectionalInterface) with
// mcp-go's message types and encoding/json, so the mcp-go client runs on it
// unchanged, and differs where that matters:
//
//   - Writes go through stdinWriter: a caller queues its frame (waiting for
//     room in a bounded queue, or for its context) and one goroutine writes
//     the frames to the pipe. No caller ever waits on the pipe itself. A
//     write that makes no progress for stdinStall marks the session lost.
//   - A message that exceeds a limit (limits.go) or cannot be parsed as a
//     JSON-RPC message makes the session lost: the stream is out of step, so
//     no later answer could be trusted. Lines that do not start like JSON
//     ('{' or '[') are skipped as before: stdoutWatch notes them for
//     Connect's errors, and a server that prints a banner still works.
//   - Each line is read into one buffer of its exact size, and a response's
//     result is a slice of that buffer (no copy).

const (
	// stdinQueueBytes bounds the frames waiting to be written to a stdio
	// server's stdin. A frame larger than that is queued only alone.
	stdinQueueBytes = 4 << 20
	// stdinStall is how long a write to a stdio server's stdin may make no
	// progress before the session is taken for lost: the server stopped
	// reading (hung, or stopped with SIGSTOP).
	stdinStall = 30 * time.Second
	// stdinChunk is the most written to the pipe under one deadline.
	stdinChunk = 64 << 10
	// stdoutBuffer is the read buffer of a stdio server's stdout.
	stdoutBuffer = 64 << 10
)

// errNotWritten marks the error of a request whose frame was never written
// to the server, so it certainly did not run.
var errNotWritten = errors.New("the request was not written to the server")

// ParseError is why a stdio session was lost on a message it could not
// read: the server wrote a line that starts like JSON but is not a JSON-RPC
// message.
type ParseError struct {
	// Err is encoding/json's error.
	Err error
}

// Error says that the server's message could not be parsed, without the
// message itself.
func (e *ParseError) Error() string {
	return fmt.Sprintf("the server sent a message that is not valid JSON-RPC (%v)", e.Err)
}

// Unwrap returns Err.
func (e *ParseError) Unwrap() error { return e.Err }

// StallError is why a stdio session was lost when the server stopped
// reading its stdin.
type StallError struct {
	// After is how long the write made no progress.
	After time.Duration
}

// Error says that the server stopped reading its input.
func (e *StallError) Error() string {
	return fmt.Sprintf("the server has not read its stdin for %s (a write to it made no progress)", e.After)
}

// closedError is the error of a request on a stdio transport that has
// stopped: it matches transport.ErrTransportClosed and the cause.
type closedError struct{ cause error }

func (e *closedError) Error() string {
	if e.cause == nil || errors.Is(e.cause, io.EOF) {
		return transport.ErrTransportClosed.Error()
	}
	return transport.ErrTransportClosed.Error() + ": " + e.cause.Error()
}

func (e *closedError) Unwrap() []error { return []error{transport.ErrTransportClosed, e.cause} }

// stdioTransport is the transport of one stdio server (see above).
type stdioTransport struct {
	out io.Reader // the server's stdout, through limitReader and stdoutWatch
	w   *stdinWriter
	// budget, if set, is reserved while a large message is read: see
	// readLine. reserve is what such a message reserves (the session's
	// largest message, WithMaxResponseBytes).
	budget  *ResultBudget
	reserve int64
	// lost, if set, is called once, before the requests in flight fail,
	// when the connection must be given up (a limit, an unparsable
	// message, a stalled write).
	lost     func(error)
	lostOnce sync.Once

	mu      sync.Mutex
	pending map[string]chan *transport.JSONRPCResponse
	err     error // why the transport stopped; set before done is closed
	done    chan struct{}

	hmu       sync.RWMutex
	notify    func(mcp.JSONRPCNotification)
	onRequest transport.RequestHandler
	ctx       context.Context // of server-to-client requests (Start's)

	// last is the last notification decoded, used only by the read
	// goroutine (see notification).
	last    lastNotification
	decoded int // notifications decoded (not reused), for tests

	startOnce sync.Once
}

// newStdioTransport is the transport over a stdio server's stdout (out) and
// stdin (in, which it closes on Close); stall is stdinStall.
func newStdioTransport(out io.Reader, in *os.File, stall time.Duration) *stdioTransport {
	t := &stdioTransport{
		out:     out,
		pending: map[string]chan *transport.JSONRPCResponse{},
		done:    make(chan struct{}),
		ctx:     context.Background(),
	}
	t.w = newStdinWriter(in, stall, func(err error) {
		var se *StallError
		if errors.As(err, &se) {
			// The stall is the cause before giving up ends the process:
			// its stdout then ends, and the reader's fail(io.EOF) may run
			// before the fail below; the requests in flight must report
			// the stall, not a closed transport.
			t.setCause(err)
			t.giveUp(err)
		}
		t.fail(err)
	})
	return t
}

// Start starts reading the server's stdout.
func (t *stdioTransport) Start(ctx context.Context) error {
	t.startOnce.Do(func() {
		t.hmu.Lock()
		t.ctx = ctx
		t.hmu.Unlock()
		go t.w.run()
		go t.read()
	})
	return nil
}

// giveUp reports a connection that must be given up, once.
func (t *stdioTransport) giveUp(err error) {
	t.lostOnce.Do(func() {
		if t.lost != nil {
			t.lost(err)
		}
	})
}

// fail stops the transport with err (the first cause recorded counts,
// by setCause or fail): requests in flight and later ones fail with a
// *closedError.
func (t *stdioTransport) fail(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err == nil {
		t.err = &closedError{cause: err}
	}
	select {
	case <-t.done:
	default:
		close(t.done)
	}
}

// setCause records err as why the transport stops, unless a cause is
// already recorded, without waking the requests in flight yet (fail
// does): later requests are refused at once.
func (t *stdioTransport) setCause(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err == nil {
		t.err = &closedError{cause: err}
	}
}

// stopped returns why the transport stopped.
func (t *stdioTransport) stopped() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// read reads and dispatches the server's messages until stdout ends or a
// message makes the session lost.
func (t *stdioTransport) read() {
	br := bufio.NewReaderSize(t.out, stdoutBuffer)
	for {
		line, held, err := t.readLine(br)
		if err != nil {
			if le := new(LimitError); errors.As(err, &le) {
				t.giveUp(le)
			}
			t.fail(err)
			return
		}
		err = t.dispatch(line)
		t.budget.release(held)
		if err != nil {
			t.giveUp(err)
			t.fail(err)
			return
		}
	}
}

// readLine reads one line (without its '\n') into a new buffer of exactly
// its size: fragments are kept until the end of the line is seen, then
// joined once. held is what the line holds of t.budget, to be released
// once the line has been dispatched.
//
// With a budget, a line longer than the read buffer (64 KiB) reserves
// t.reserve bytes (the largest message; at most the budget) before more of
// it is read, waiting for room: the line's size is not known before its
// end, and reserving the most it can be, at once, cannot deadlock two
// sessions that each hold part of the budget. Once the line is joined the
// reservation shrinks to the line's size and is released after dispatch,
// when the result belongs to its caller. So the bytes of large messages
// being read and joined at once, over all sessions sharing the budget, stay
// within it (plus one read buffer per session).
func (t *stdioTransport) readLine(br *bufio.Reader) (line []byte, held int64, err error) {
	var parts [][]byte
	total := 0
	for {
		frag, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if parts == nil && t.budget != nil {
				if held = t.budget.acquire(t.reserve, t.done); held == 0 {
					return nil, 0, t.stopped()
				}
			}
			parts = append(parts, bytes.Clone(frag))
			total += len(frag)
			continue
		}
		if err != nil {
			t.budget.release(held)
			return nil, 0, err // a last line without '\n' is cut: not a message
		}
		frag = frag[:len(frag)-1]
		line := make([]byte, total+len(frag))
		n := 0
		for _, p := range parts {
			n += copy(line[n:], p)
		}
		copy(line[n:], frag)
		if keep := min(held, int64(len(line))); keep < held {
			t.budget.release(held - keep)
			held = keep
		}
		return line, held, nil
	}
}

// rawRef is a JSON value kept as a slice of the buffer it was decoded from
// (json.Unmarshal passes a slice of its input to UnmarshalJSON). It is used
// only on buffers that are not reused.
type rawRef []byte

// UnmarshalJSON keeps data without copying it.
func (r *rawRef) UnmarshalJSON(data []byte) error {
	*r = data
	return nil
}

// envelope is what dispatch decodes of every message.
type envelope struct {
	ID     *mcp.RequestId           `json:"id"`
	Method string                   `json:"method"`
	Result rawRef                   `json:"result"`
	Error  *mcp.JSONRPCErrorDetails `json:"error"`
}

// dispatch handles one line of the server's stdout; an error means the
// session must be given up.
func (t *stdioTransport) dispatch(line []byte) error {
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 || (trimmed[0] != '{' && trimmed[0] != '[') {
		return nil // not a message; stdoutWatch has noted it
	}
	if t.last.same(trimmed) {
		t.deliver(t.last.n)
		return nil
	}
	var m envelope
	if err := json.Unmarshal(trimmed, &m); err != nil {
		return &ParseError{Err: err}
	}
	switch {
	case m.Method != "" && m.ID == nil:
		n, err := t.notification(trimmed)
		if err != nil {
			return err
		}
		t.deliver(n)
	case m.Method != "":
		var req transport.JSONRPCRequest
		if err := json.Unmarshal(trimmed, &req); err != nil {
			return &ParseError{Err: err}
		}
		t.handleRequest(req)
	case m.ID == nil:
		// An error about a message the server could not read (id null):
		// no request of ours waits for it.
	default:
		t.mu.Lock()
		ch, ok := t.pending[m.ID.String()]
		delete(t.pending, m.ID.String())
		t.mu.Unlock()
		if ok {
			ch <- &transport.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: *m.ID, Result: json.RawMessage(m.Result), Error: m.Error}
		}
	}
	return nil
}

// notification decodes the notification line and remembers it when it has
// no params (see lastNotification).
func (t *stdioTransport) notification(line []byte) (mcp.JSONRPCNotification, error) {
	var n mcp.JSONRPCNotification
	if err := json.Unmarshal(line, &n); err != nil {
		return n, &ParseError{Err: err}
	}
	t.decoded++
	if len(n.Params.Meta) == 0 && len(n.Params.AdditionalFields) == 0 {
		n.Params = mcp.NotificationParams{} // no empty map to share between deliveries
		t.last = lastNotification{line: append(t.last.line[:0], line...), n: n}
	} else {
		t.last = lastNotification{line: t.last.line[:0]}
	}
	return n, nil
}

// deliver hands a server notification to mcp-go's handler, on the read
// goroutine (so a slow handler slows reading: notifications are not
// queued).
func (t *stdioTransport) deliver(n mcp.JSONRPCNotification) {
	t.hmu.RLock()
	h := t.notify
	t.hmu.RUnlock()
	if h != nil {
		h(n)
	}
}

// lastNotification is the last notification without params that was
// decoded, with its line. A line equal byte for byte to it is delivered
// again without being decoded: a server that floods the same notification
// (notifications/tools/list_changed back to back) costs a comparison per
// line instead of two JSON decodes, which were most of the CPU of reading
// such a flood. Only a notification without params is reused, so the
// values handed to handlers share no map. Any other message in between
// does not reset it (the line must still be equal byte for byte).
type lastNotification struct {
	line []byte
	n    mcp.JSONRPCNotification
}

// same reports whether line is the remembered notification's line.
func (l *lastNotification) same(line []byte) bool {
	return l.n.Method != "" && bytes.Equal(l.line, line)
}

// handleRequest answers a server-to-client request through the handler
// mcp-go's client set, off the read loop.
func (t *stdioTransport) handleRequest(req transport.JSONRPCRequest) {
	t.hmu.RLock()
	h, ctx := t.onRequest, t.ctx
	t.hmu.RUnlock()
	go func() {
		var resp *transport.JSONRPCResponse
		if h == nil {
			resp = transport.NewJSONRPCErrorResponse(req.ID, mcp.METHOD_NOT_FOUND, "No request handler configured", nil)
		} else if r, err := h(ctx, req); err != nil {
			resp = transport.NewJSONRPCErrorResponse(req.ID, mcp.INTERNAL_ERROR, err.Error(), nil)
		} else {
			resp = r
		}
		if resp == nil {
			return
		}
		b, err := json.Marshal(resp)
		if err != nil {
			return
		}
		_, _ = t.w.send(ctx, t.done, append(b, '\n'))
	}()
}

// SendRequest writes request and waits for its response, for ctx to end, or
// for the transport to stop, whichever comes first.
func (t *stdioTransport) SendRequest(ctx context.Context, request transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	if err := t.stopped(); err != nil {
		return nil, fmt.Errorf("%w: %w", errNotWritten, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b, err := json.Marshal(request)
	if err != nil {
		return nil, fmt.Errorf("encoding the request: %w", err)
	}
	key := request.ID.String()
	ch := make(chan *transport.JSONRPCResponse, 1)
	t.mu.Lock()
	t.pending[key] = ch
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		delete(t.pending, key)
		t.mu.Unlock()
	}()
	f, err := t.w.send(ctx, t.done, append(b, '\n'))
	if err != nil {
		if ctx.Err() == nil {
			if serr := t.stopped(); serr != nil {
				err = serr
			}
			err = fmt.Errorf("%w: %w", errNotWritten, err)
		}
		return nil, err
	}
	select {
	case resp := <-ch:
		return resp, nil
	case <-ctx.Done():
		t.w.abandon(f)
		return nil, ctx.Err()
	case <-t.done:
		select {
		case resp := <-ch:
			return resp, nil
		default:
		}
		if t.w.abandon(f) {
			return nil, fmt.Errorf("%w: %w", errNotWritten, t.stopped())
		}
		return nil, t.stopped()
	}
}

// SendNotification writes n, waiting for room in the queue at most until
// ctx ends.
func (t *stdioTransport) SendNotification(ctx context.Context, n mcp.JSONRPCNotification) error {
	if err := t.stopped(); err != nil {
		return err
	}
	b, err := json.Marshal(n)
	if err != nil {
		return fmt.Errorf("encoding the notification: %w", err)
	}
	_, err = t.w.send(ctx, t.done, append(b, '\n'))
	return err
}

// SetNotificationHandler sets the handler of the server's notifications.
func (t *stdioTransport) SetNotificationHandler(h func(mcp.JSONRPCNotification)) {
	t.hmu.Lock()
	defer t.hmu.Unlock()
	t.notify = h
}

// SetRequestHandler sets the handler of server-to-client requests.
func (t *stdioTransport) SetRequestHandler(h transport.RequestHandler) {
	t.hmu.Lock()
	defer t.hmu.Unlock()
	t.onRequest = h
}

// Close stops the transport and closes the server's stdin; the process is
// stopped by stdioProcess.stop.
func (t *stdioTransport) Close() error {
	t.fail(io.EOF)
	t.w.close()
	return nil
}

// GetSessionId is "": stdio has no session id.
func (t *stdioTransport) GetSessionId() string { return "" }

var _ transport.BidirectionalInterface = (*stdioTransport)(nil)

// stdinWriter writes frames to a stdio peer from one goroutine, so that no
// caller waits on the pipe (see above): a stdio server's stdin here, the
// client's stdout in WriteQueue.
type stdinWriter struct {
	out io.Writer
	// stall, if not zero, bounds how long a write may make no progress;
	// out must then have SetWriteDeadline (a pollable *os.File).
	stall time.Duration
	// stop, if set, is called once when writing ends for a reason other
	// than close: a *StallError, or the error of the write (EPIPE).
	stop func(error)
	// bw, made for the first frame of several pieces, is over chunks, so
	// the small pieces of a frame go out together.
	bw *bufio.Writer

	mu     sync.Mutex
	queue  []*frame
	queued int           // bytes in queue
	room   chan struct{} // closed (and replaced) when the queue shrinks
	wake   chan struct{} // buffered 1: the queue has frames
	err    error         // set when writing has ended
	ended  chan struct{} // closed when err is set
}

// frame is one message waiting to be written: its pieces, one after
// another, or (written set, no pieces) a mark that WriteQueue.Drain waits
// for.
type frame struct {
	pieces    [][]byte
	size      int
	written   chan struct{} // closed once the frames before it are written
	started   bool          // being written or written
	abandoned bool          // its caller gave up before it was written
}

func newStdinWriter(out io.Writer, stall time.Duration, stop func(error)) *stdinWriter {
	return &stdinWriter{out: out, stall: stall, stop: stop, room: make(chan struct{}), wake: make(chan struct{}, 1), ended: make(chan struct{})}
}

// send queues a frame of pieces, waiting for room until ctx ends, done is
// closed or writing ends. It does not wait for the frame to be written.
func (w *stdinWriter) send(ctx context.Context, done <-chan struct{}, pieces ...[]byte) (*frame, error) {
	return w.queueFrame(ctx, done, &frame{pieces: pieces, size: piecesLen(pieces)})
}

func piecesLen(pieces [][]byte) int {
	n := 0
	for _, p := range pieces {
		n += len(p)
	}
	return n
}

// queueFrame queues f (see send).
func (w *stdinWriter) queueFrame(ctx context.Context, done <-chan struct{}, f *frame) (*frame, error) {
	for {
		w.mu.Lock()
		if w.err != nil {
			err := w.err
			w.mu.Unlock()
			return nil, err
		}
		if w.queued == 0 || w.queued+f.size <= stdinQueueBytes {
			w.queue = append(w.queue, f)
			w.queued += f.size
			w.mu.Unlock()
			select {
			case w.wake <- struct{}{}:
			default:
			}
			return f, nil
		}
		room := w.room
		w.mu.Unlock()
		select {
		case <-room:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-done:
			return nil, transport.ErrTransportClosed
		case <-w.ended:
		}
	}
}

// abandon drops f from the queue if it has not started to be written, and
// reports whether it had not.
func (w *stdinWriter) abandon(f *frame) bool {
	if f == nil {
		return true
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if f.started {
		return false
	}
	f.abandoned = true
	return true
}

// run writes queued frames until writing ends.
func (w *stdinWriter) run() {
	for {
		select {
		case <-w.wake:
		case <-w.ended:
			return
		}
		for {
			w.mu.Lock()
			if w.err != nil || len(w.queue) == 0 {
				w.mu.Unlock()
				break
			}
			f := w.queue[0]
			w.queue[0] = nil
			w.queue = w.queue[1:]
			w.queued -= f.size
			close(w.room)
			w.room = make(chan struct{})
			skip := f.abandoned
			f.started = true
			w.mu.Unlock()
			if skip {
				continue
			}
			if err := w.writeFrame(f); err != nil {
				if w.end(err) && w.stop != nil {
					w.stop(err)
				}
				return
			}
		}
	}
}

// writeFrame writes f's pieces and flushes them.
func (w *stdinWriter) writeFrame(f *frame) error {
	switch {
	case len(f.pieces) == 1:
		if err := w.write(f.pieces[0]); err != nil {
			return err
		}
	case len(f.pieces) > 1:
		if w.bw == nil {
			w.bw = bufio.NewWriterSize(chunks{w}, stdinChunk)
		}
		for _, p := range f.pieces {
			if _, err := w.bw.Write(p); err != nil {
				return err
			}
		}
		if err := w.bw.Flush(); err != nil {
			return err
		}
	}
	if f.written != nil {
		close(f.written)
	}
	return nil
}

// chunks is the io.Writer under stdinWriter's buffer.
type chunks struct{ w *stdinWriter }

func (c chunks) Write(b []byte) (int, error) {
	if err := c.w.write(b); err != nil {
		return 0, err
	}
	return len(b), nil
}

// write writes b in chunks, each of which must go through within stall
// (when stall is set).
func (w *stdinWriter) write(b []byte) error {
	if w.stall == 0 {
		_, err := w.out.Write(b)
		return err
	}
	d, ok := w.out.(interface{ SetWriteDeadline(time.Time) error })
	if !ok {
		return errors.New("the stdio pipe has no write deadline")
	}
	for len(b) > 0 {
		n := min(len(b), stdinChunk)
		if err := d.SetWriteDeadline(time.Now().Add(w.stall)); err != nil {
			return err
		}
		m, err := w.out.Write(b[:n])
		b = b[m:]
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return &StallError{After: w.stall}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// end ends writing with err, reporting whether this call did.
func (w *stdinWriter) end(err error) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return false
	}
	w.err = err
	w.queue, w.queued = nil, 0
	close(w.ended)
	return true
}

// close ends writing and closes the pipe, which also ends a write blocked
// on it.
func (w *stdinWriter) close() {
	w.end(transport.ErrTransportClosed)
	if c, ok := w.out.(io.Closer); ok {
		_ = c.Close()
	}
}
