package mcpconn

import (
	"errors"
	"fmt"
	"io"
	"sync"
)

// Limits on what a server may send.
//
// A server is untrusted input. Each message it sends (a tools/list page, a
// tools/call result, any JSON-RPC message) is read through a limitReader,
// which fails the connection at once, with a *LimitError, when a message
// grows beyond the configured size or is nested deeper than encoding/json
// decodes. Without it a huge message is held in memory whole, and a message
// nested too deep is skipped by mcp-go's decoder (over stdio and SSE
// streams), so the request waits for its timeout instead of failing.
//
// A message is a line of a stdio server's stdout (newline-delimited
// JSON-RPC), an event of an SSE stream (lines up to a blank line), or the
// body of an application/json HTTP answer.

// DefaultMaxResponseBytes: see composition.DefaultMaxResponseBytes, which documents it for users.
const DefaultMaxResponseBytes = 32 << 20

// MaxResponseDepth: see composition.MaxResponseDepth, which documents it for users.
const MaxResponseDepth = 10000

// WithMaxResponseBytes: see composition.WithMaxResponseBytes, which documents it for users.
func WithMaxResponseBytes(n int64) Option {
	return Option{func(c *config) {
		if n <= 0 {
			n = DefaultMaxResponseBytes
		}
		c.maxResponseBytes = n
	}}
}

// LimitError: see composition.LimitError, which documents it for users.
type LimitError struct {
	// Depth is true for the nesting limit, false for the size limit.
	Depth bool
	// Limit is the limit exceeded: bytes, or levels of nesting.
	Limit int64
}

// Error says which limit the server's message exceeded.
func (e *LimitError) Error() string {
	if e.Depth {
		return fmt.Sprintf("the server sent a message nested deeper than %d levels, more than encoding/json decodes", e.Limit)
	}
	return fmt.Sprintf("the server sent a message larger than %d bytes (the limit set with WithMaxResponseBytes, --max-response-bytes in mcpbind)", e.Limit)
}

// limitedError is an error of a request that failed because the
// connection was closed on a *LimitError: its message is the limit's, and
// it unwraps to both.
type limitedError struct {
	limit *LimitError
	err   error
}

func (e *limitedError) Error() string   { return e.limit.Error() }
func (e *limitedError) Unwrap() []error { return []error{e.limit, e.err} }

// withLimit adds to err the limit that closed the session's connection, if
// one did and err does not hold it already.
func (s *Conn) withLimit(err error) error {
	var le *LimitError
	if err == nil || errors.As(err, &le) {
		return err
	}
	if s.proc != nil {
		le = s.proc.limit.Err()
	}
	if le == nil && s.http != nil {
		le = s.http.limitErr()
	}
	if le == nil {
		return err
	}
	return &limitedError{limit: le, err: err}
}

// limitReader passes a message stream through and fails it when one
// message exceeds a limit. It counts bytes per message and tracks the
// nesting of arrays and objects outside JSON strings.
type limitReader struct {
	r io.Reader
	// maxBytes bounds one message; total makes the whole stream one
	// message (an application/json body).
	maxBytes int64
	total    bool
	// events: a message ends at a blank line (SSE); else at each '\n'.
	events bool

	size     int64
	depth    int
	inString bool
	escaped  bool
	lineLen  int  // bytes since the last newline, for blank-line detection
	lastCR   bool // the last byte was a carriage return

	// onLimit, if set, is called once with the limit exceeded.
	onLimit func(*LimitError)

	mu  sync.Mutex
	err *LimitError
}

// Err returns the limit that ended the stream, or nil.
func (l *limitReader) Err() *LimitError {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// Read reads and checks the next bytes. Once a limit is exceeded it returns
// the *LimitError, and does not read again.
func (l *limitReader) Read(p []byte) (int, error) {
	if e := l.Err(); e != nil {
		return 0, e
	}
	n, err := l.r.Read(p)
	for i, c := range p[:n] {
		if e := l.scan(c); e != nil {
			l.mu.Lock()
			l.err = e
			l.mu.Unlock()
			if l.onLimit != nil {
				l.onLimit(e)
			}
			// The bytes before the one that crossed the limit are passed on;
			// the message is cut there, so it will not decode.
			return i, e
		}
	}
	return n, err
}

// Close closes the underlying reader if it is an io.Closer.
func (l *limitReader) Close() error {
	if c, ok := l.r.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// scan accounts for one byte.
func (l *limitReader) scan(c byte) *LimitError {
	l.size++
	if l.size > l.maxBytes {
		return &LimitError{Limit: l.maxBytes}
	}
	switch {
	case l.inString:
		switch {
		case l.escaped:
			l.escaped = false
		case c == '\\':
			l.escaped = true
		case c == '"':
			l.inString = false
		case c == '\n': // not JSON; let the decoder say so
			l.inString = false
		}
	case c == '"':
		l.inString = true
	case c == '{' || c == '[':
		l.depth++
		if l.depth > MaxResponseDepth {
			return &LimitError{Depth: true, Limit: MaxResponseDepth}
		}
	case c == '}' || c == ']':
		if l.depth > 0 {
			l.depth--
		}
	}
	if c == '\n' {
		end := !l.events || l.lineLen == 0 || (l.lineLen == 1 && l.lastCR)
		l.lineLen = 0
		l.lastCR = false
		if end && !l.total {
			l.size, l.depth, l.inString, l.escaped = 0, 0, false, false
		}
		return nil
	}
	l.lineLen++
	l.lastCR = c == '\r'
	return nil
}
