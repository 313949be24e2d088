package redact

// Error returns err with Text applied to its message: secrets masked, then
// URL credentials. errors.Is and errors.As still see err. nil stays nil, and
// err is returned as is when its message holds nothing to mask.
func Error(err error, secrets []string) error {
	if err == nil {
		return nil
	}
	return Wrap(err, Text(err.Error(), secrets))
}

// Wrap returns an error whose message is msg (err's message rewritten:
// redacted, or stripped of a library's wrapping layers) and that unwraps to
// err, for errors.Is and errors.As; err itself when msg is its message.
func Wrap(err error, msg string) error {
	if msg == err.Error() {
		return err
	}
	return &redactedError{msg: msg, err: err}
}

// redactedError shows a rewritten message and unwraps to the original.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
