package mcpconn

// StderrTail returns the end of a stdio server's stderr that err carries
// (the Stderr of a *ConnectError, or the tail kept with the error of a
// session lost because the process exited), redacted of the configured
// secrets; "" when there is none. Error messages leave it out: it is the
// server's text, and may hold what the server inherited (environment
// values, tokens). Show it to the operator (a debug log, the CLI's own
// stderr), escaped, never to a composing server's clients.
func StderrTail(err error) string {
	switch e := err.(type) {
	case nil:
		return ""
	case *ConnectError:
		if e.Stderr != "" {
			return e.Stderr
		}
	case *detailError:
		if e.stderr != "" {
			return e.stderr
		}
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return StderrTail(u.Unwrap())
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			if t := StderrTail(e); t != "" {
				return t
			}
		}
	}
	return ""
}

// StderrTail is the end of the stdio server's stderr so far, redacted as
// the *ConnectError's Stderr is; "" for other transports. Like the
// function StderrTail, it is for the operator, not for error messages.
func (s *Conn) StderrTail() string {
	if s.proc == nil {
		return ""
	}
	return s.proc.stderrTail()
}
