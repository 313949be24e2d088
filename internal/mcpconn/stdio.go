package mcpconn

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/mcpbind/mcpbind/internal/redact"
)

// A stdio server is run by this package rather than by mcp-go's
// transport.NewStdio, and spoken to through stdioTransport
// (stdiotransport.go), which does the JSON-RPC framing. Owning the process
// lets Connect see what mcp-go's transport hides: the process's exit status,
// the tail of its stderr, and lines on stdout that are not JSON-RPC (which
// the transport skips silently). It also keeps the process independent of
// the context given to Connect (mcp-go would tie it to that context with
// exec.CommandContext, killing the server when a Connect deadline passes).

const (
	// gracefulExit is how long Close waits after closing stdin before it
	// signals the process; termExit how long after SIGTERM before SIGKILL.
	gracefulExit = 2 * time.Second
	termExit     = 2 * time.Second
	// stdoutGrace is how long stdout may stay open after the process has
	// exited (held by a grandchild) before it is closed, so that requests in
	// flight fail instead of waiting for the grandchild.
	stdoutGrace = 2 * time.Second
)

// stdioProcess is a running stdio server.
type stdioProcess struct {
	cmd     *exec.Cmd
	stdin   *os.File // write end of the server's stdin
	stdout  *os.File // read end of the server's stdout
	stderr  *os.File // read end of the server's stderr
	watch   *stdoutWatch
	limit   *limitReader // between stdout and watch (limits.go)
	tail    *redact.TailBuffer
	errDone chan struct{} // closed when stderr reaches EOF
	exited  chan struct{} // closed when the process has been waited for
	waitErr error         // set before exited is closed
}

// startStdio starts command with args and returns it with an mcp-go stdio
// transport over its pipes.
func startStdio(command string, args []string, cfg *config) (*stdioProcess, *stdioTransport, error) {
	if command == "" {
		return nil, nil, fmt.Errorf("no command given")
	}
	secrets := cfg.secrets()
	cmd := exec.Command(command, args...)
	if len(cfg.env) > 0 {
		cmd.Env = append(os.Environ(), cfg.env...)
	}
	cmd.Dir = cfg.dir
	if cfg.dir != "" {
		// With SysProcAttr set, os.StartProcess no longer names a missing
		// working directory in its error ("fork/exec sh: no such file").
		if _, err := os.Stat(cfg.dir); err != nil {
			return nil, nil, fmt.Errorf("working directory: %w", err)
		}
	}
	setProcessGroup(cmd) // procgroup_unix.go: stop ends the whole group

	var parentEnds, childEnds []*os.File
	closeAll := func(fs []*os.File) {
		for _, f := range fs {
			_ = f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err != nil {
			return nil, nil, fmt.Errorf("creating pipe: %w", err)
		}
		return r, w, nil
	}
	inR, inW, err := pipe()
	if err != nil {
		return nil, nil, err
	}
	outR, outW, err := pipe()
	if err != nil {
		closeAll([]*os.File{inR, inW})
		return nil, nil, err
	}
	errR, errW, err := pipe()
	if err != nil {
		closeAll([]*os.File{inR, inW, outR, outW})
		return nil, nil, err
	}
	parentEnds = []*os.File{inW, outR, errR}
	childEnds = []*os.File{inR, outW, errW}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW

	if err := cmd.Start(); err != nil {
		closeAll(childEnds)
		closeAll(parentEnds)
		return nil, nil, err
	}
	closeAll(childEnds)

	p := &stdioProcess{
		cmd:     cmd,
		stdin:   inW,
		stdout:  outR,
		stderr:  errR,
		tail:    redact.NewTailBuffer(stderrTailSize, secrets),
		errDone: make(chan struct{}),
		exited:  make(chan struct{}),
	}
	p.limit = &limitReader{r: outR, maxBytes: cfg.maxResponseBytes}
	p.watch = newStdoutWatch(p.limit, secrets)
	var copyTo *redact.Writer
	if cfg.stderr != nil {
		copyTo = redact.NewWriter(cfg.stderr, secrets)
	}
	go func() {
		defer close(p.errDone)
		if copyTo != nil {
			defer func() { _ = copyTo.Flush() }()
		}
		buf := make([]byte, 4096)
		for {
			n, err := errR.Read(buf)
			if n > 0 {
				_, _ = p.tail.Write(buf[:n])
				if copyTo != nil {
					_, _ = copyTo.Write(buf[:n])
				}
			}
			if err != nil {
				return
			}
		}
	}()
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
		select {
		case <-p.watch.eof:
		case <-time.After(stdoutGrace):
			_ = p.stdout.Close()
		}
	}()
	// The transport's Close closes stdin.
	t := newStdioTransport(p.watch, inW, cfg.stdinStall)
	t.budget, t.reserve = cfg.resultBudget, cfg.maxResponseBytes
	return p, t, nil
}

// hasExited reports whether the process has exited, waiting up to d for it.
func (p *stdioProcess) hasExited(d time.Duration) bool {
	if d <= 0 {
		select {
		case <-p.exited:
			return true
		default:
			return false
		}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

// stop ends the process and its process group: when graceful, it first
// waits for the process to exit on its own (its stdin has been closed by the
// transport), then sends SIGTERM to the group; SIGKILL to the group comes
// last. Processes of the group that outlive the server (a grandchild left by
// `bash -c`, npx or uvx) get SIGTERM and, termExit later, SIGKILL. The pipes
// are closed afterwards so no reader stays blocked on a grandchild that
// holds them open.
func (p *stdioProcess) stop(graceful bool) error {
	defer func() {
		_ = p.stdin.Close()
		_ = p.stdout.Close()
		// Give the stderr drain a moment to reach EOF before closing, so
		// the tail is complete.
		select {
		case <-p.errDone:
		case <-time.After(200 * time.Millisecond):
		}
		_ = p.stderr.Close()
	}()
	pid := p.cmd.Process.Pid
	if graceful {
		if p.hasExited(gracefulExit) {
			p.endGroup(true)
			return nil
		}
		if err := signalGroup(pid, syscall.SIGTERM); err == nil && p.hasExited(termExit) {
			p.endGroup(true)
			return nil
		}
	}
	if p.hasExited(0) {
		p.endGroup(graceful)
		return nil
	}
	if err := signalGroup(pid, syscall.SIGKILL); err != nil && !p.hasExited(0) {
		if err := p.cmd.Process.Kill(); err != nil && !p.hasExited(0) {
			return fmt.Errorf("killing server process: %w", err)
		}
	}
	if !p.hasExited(gracefulExit) {
		return fmt.Errorf("server process %d did not exit after SIGKILL", pid)
	}
	p.endGroup(false)
	return nil
}

// endGroup ends what remains of the server's process group once the server
// itself has exited: SIGTERM first when graceful, then SIGKILL if anything
// is still there after termExit.
func (p *stdioProcess) endGroup(graceful bool) {
	pid := p.cmd.Process.Pid
	if !groupAlive(pid) {
		return
	}
	if graceful {
		_ = signalGroup(pid, syscall.SIGTERM)
		deadline := time.Now().Add(termExit)
		for groupAlive(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
	}
	_ = signalGroup(pid, syscall.SIGKILL)
}

// pipeClosed reports whether err, from a request, or the state of stdout
// shows that the process closed its end of the pipes: mcp-go's transport
// reports a stdout EOF as ErrTransportClosed, and a write to a process that
// is gone fails with EPIPE.
func (p *stdioProcess) pipeClosed(err error) bool {
	if errors.Is(err, transport.ErrTransportClosed) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	select {
	case <-p.watch.eof:
		return true
	default:
		return false
	}
}

// exitDescription says how the process ended, such as "exit status 3".
func (p *stdioProcess) exitDescription() string {
	if p.waitErr == nil {
		return "exit status 0"
	}
	return p.waitErr.Error()
}

// stderrTail returns the last few KiB the process wrote to stderr, waiting
// briefly for output still in the pipe.
func (p *stdioProcess) stderrTail() string {
	select {
	case <-p.errDone:
	case <-time.After(200 * time.Millisecond):
	}
	return strings.TrimSpace(p.tail.String())
}

// stdoutWatch passes a stdio server's stdout through to mcp-go's transport
// and notes the first line that cannot be a JSON-RPC message (one whose first
// non-blank byte is not '{' or '['). mcp-go skips such lines; they are
// reported only when Connect fails, since a server that prints a banner and
// then works is still usable.
type stdoutWatch struct {
	r       io.Reader
	eof     chan struct{}
	secrets []string

	mu          sync.Mutex
	atLineStart bool
	inJunk      bool // capturing the first junk line
	junk        []byte
	junkLines   int
	junkClipped bool // the first junk line was longer than what was kept
	eofOnce     sync.Once
}

// maxJunk is how much of the first junk line is shown; redact.Slack more is
// kept, so that the line is redacted before it is cut.
const maxJunk = 200

func newStdoutWatch(r io.Reader, secrets []string) *stdoutWatch {
	return &stdoutWatch{r: r, eof: make(chan struct{}), atLineStart: true, secrets: secrets}
}

// Read reads from the server's stdout.
func (w *stdoutWatch) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	w.scan(p[:n])
	if err != nil {
		w.eofOnce.Do(func() { close(w.eof) })
	}
	return n, err
}

func (w *stdoutWatch) scan(p []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, c := range p {
		switch {
		case c == '\n':
			w.atLineStart = true
			w.inJunk = false
		case w.inJunk:
			if len(w.junk) < maxJunk+redact.Slack(w.secrets) {
				w.junk = append(w.junk, c)
			} else {
				w.junkClipped = true
			}
		case w.atLineStart && (c == ' ' || c == '\t' || c == '\r'):
		case w.atLineStart:
			w.atLineStart = false
			if c != '{' && c != '[' {
				w.junkLines++
				if w.junkLines == 1 {
					w.inJunk = true
					w.junk = append(w.junk, c)
				}
			}
		}
	}
}

// junkNote describes the non-JSON-RPC output seen, or "".
func (w *stdoutWatch) junkNote() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.junkLines == 0 {
		return ""
	}
	s := fmt.Sprintf("the server wrote output that is not JSON-RPC to stdout: %q", redact.Head(string(w.junk), w.secrets, maxJunk, w.junkClipped))
	if w.junkLines > 1 {
		s += fmt.Sprintf(" (and %d more such line(s))", w.junkLines-1)
	}
	return s
}
