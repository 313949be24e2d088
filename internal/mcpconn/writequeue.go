package mcpconn

import (
	"context"
	"errors"
	"io"
)

// ErrWriteQueueClosed is the error of WriteQueue.Send after Close.
var ErrWriteQueueClosed = errors.New("mcpconn: the write queue is closed")

// WriteQueue writes messages to a stream (a stdio peer's pipe) from one
// goroutine, as the stdio transport writes to a server's stdin: a sender
// queues its message, waiting for room in a queue bounded to 4 MiB (a
// larger message is queued only alone) or for its context, and never
// waits on the stream itself. A peer that stops reading therefore holds at
// most the queue and the one message being written, and a sender returns
// when its context ends.
type WriteQueue struct {
	w *stdinWriter
}

// NewWriteQueue starts writing to out. A write blocked on out is not
// interrupted by Close (the goroutine writing stays until out accepts or
// fails); everything queued behind it is dropped.
func NewWriteQueue(out io.Writer) *WriteQueue {
	q := &WriteQueue{w: newStdinWriter(out, 0, nil)}
	go q.w.run()
	return q
}

// Send queues one message made of pieces written one after another
// (without copying them: they must not change until written). It returns
// once the message is queued, with ctx's error if ctx ends first, or with
// the error that ended writing (a failed write to out, or
// ErrWriteQueueClosed).
func (q *WriteQueue) Send(ctx context.Context, pieces ...[]byte) error {
	_, err := q.w.send(ctx, nil, pieces...)
	return err
}

// Drain waits until everything queued before it is written to out, or
// writing ended (returning its error), or ctx ended (ctx's error).
func (q *WriteQueue) Drain(ctx context.Context) error {
	f, err := q.w.queueFrame(ctx, nil, &frame{written: make(chan struct{})})
	if err != nil {
		return err
	}
	select {
	case <-f.written:
		return nil
	case <-q.w.ended:
		q.w.mu.Lock()
		defer q.w.mu.Unlock()
		return q.w.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close ends writing: later sends fail with ErrWriteQueueClosed and what
// is queued is dropped. It does not close out.
func (q *WriteQueue) Close() {
	q.w.end(ErrWriteQueueClosed)
}
