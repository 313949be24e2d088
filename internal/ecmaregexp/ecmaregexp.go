// Package ecmaregexp gives santhosh-tekuri/jsonschema/v6 a regular
// expression engine with ECMA-262 syntax (JSON Schema's "pattern" dialect,
// draft 2020-12 §6.3.3): lookaheads, backreferences and \c escapes that Go's
// regexp (RE2) rejects. It wraps github.com/dlclark/regexp2 in ECMAScript
// mode, the approach the validator's own documentation shows.
//
// regexp2 backtracks, so a hostile pattern and input can make one match run
// for a very long time. Compile bounds each match by MatchTimeout; Engine
// bounds all the matches of one validation together by a Budget, which also
// ends them when a context ends.
package ecmaregexp

import (
	"context"
	"time"

	"github.com/dlclark/regexp2"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// MatchTimeout bounds one match of a regexp made by Compile. A match that
// times out counts as no match, so validation fails closed.
const MatchTimeout = time.Second

type regexp struct {
	re     *regexp2.Regexp
	budget *Budget // nil: each match bounded by MatchTimeout
}

func (re *regexp) MatchString(s string) bool {
	if re.budget != nil {
		remaining, ok := re.budget.begin()
		if !ok {
			return false
		}
		re.re.MatchTimeout = remaining
	}
	ok, err := re.re.MatchString(s)
	if err != nil && re.budget != nil {
		re.budget.exhaust()
	}
	return err == nil && ok
}

func (re *regexp) String() string { return re.re.String() }

// Compile is a jsonschema.RegexpEngine: pass it to
// (*jsonschema.Compiler).UseRegexpEngine. It fails on patterns that are not
// valid ECMA-262. Each match is bounded by MatchTimeout.
func Compile(pattern string) (jsonschema.Regexp, error) {
	re, err := regexp2.Compile(pattern, regexp2.ECMAScript)
	if err != nil {
		return nil, err
	}
	re.MatchTimeout = MatchTimeout
	return &regexp{re: re}, nil
}

// Engine returns a jsonschema.RegexpEngine like Compile whose regexps share
// b: every match is bounded by what remains of b, and once b is exhausted
// or its context has ended, no match runs and every match fails (so
// validation fails closed; the caller asks b why). The regexps must be used
// by one validation at a time, since b and the matcher's timeout are not
// synchronised.
func Engine(b *Budget) jsonschema.RegexpEngine {
	return func(pattern string) (jsonschema.Regexp, error) {
		re, err := regexp2.Compile(pattern, regexp2.ECMAScript)
		if err != nil {
			return nil, err
		}
		return &regexp{re: re, budget: b}, nil
	}
}

// Budget is the time all pattern matches of one validation may take
// together, and the context that may end them sooner. The zero value is
// exhausted; Start arms it.
type Budget struct {
	ctx      context.Context
	deadline time.Time
	// Exceeded is set when a match ran out of time or was refused because
	// the budget was spent.
	exceeded bool
	// Matches counts the matches run since Start.
	Matches int
}

// Start arms b for a validation: its matches may take d together, and none
// starts after ctx ends.
func (b *Budget) Start(ctx context.Context, d time.Duration) {
	*b = Budget{ctx: ctx, deadline: time.Now().Add(d)}
	if dl, ok := ctx.Deadline(); ok && dl.Before(b.deadline) {
		b.deadline = dl
	}
}

// Err says why matches were refused or cut short since Start: the context's
// error if it has ended, ErrBudget when the time ran out, else nil.
func (b *Budget) Err() error {
	if b.ctx != nil && b.ctx.Err() != nil {
		return b.ctx.Err()
	}
	if b.exceeded {
		return ErrBudget
	}
	return nil
}

// ErrBudget is Budget.Err when the matches of a validation ran out of time.
var ErrBudget = errBudget{}

type errBudget struct{}

func (errBudget) Error() string { return "pattern matching ran out of its time budget" }

// begin returns the time left for a match, or false when none may run.
func (b *Budget) begin() (time.Duration, bool) {
	if b.ctx == nil || b.ctx.Err() != nil || b.exceeded {
		return 0, false
	}
	left := time.Until(b.deadline)
	if left <= 0 {
		b.exceeded = true
		return 0, false
	}
	b.Matches++
	return left, true
}

// exhaust notes that a match ran out of time.
func (b *Budget) exhaust() { b.exceeded = true }
