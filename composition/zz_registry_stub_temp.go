package composition

// TEMPORARY stand-ins for the lead's ErrSessionLost, Session.Done and
// Session.Err (item 0); deleted after merging main.

import "errors"

var ErrSessionLost = errors.New("composition: session lost")

func (s *Session) Done() <-chan struct{} { return s.life.Done() }

func (s *Session) Err() error { return nil }
