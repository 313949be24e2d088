// Package ecmaregexp gives santhosh-tekuri/jsonschema/v6 a regular
// expression engine with ECMA-262 syntax (JSON Schema's "pattern" dialect,
// draft 2020-12 §6.3.3): lookaheads, backreferences and \c escapes that Go's
// regexp (RE2) rejects. It wraps github.com/dlclark/regexp2 in ECMAScript
// mode, the approach the validator's own documentation shows.
package ecmaregexp

import (
	"time"

	"github.com/dlclark/regexp2"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// MatchTimeout bounds one match, since a backtracking engine can be made to
// run for a very long time by a hostile pattern and input. A match that
// times out counts as no match, so validation fails closed.
const MatchTimeout = time.Second

type regexp regexp2.Regexp

func (re *regexp) MatchString(s string) bool {
	ok, err := (*regexp2.Regexp)(re).MatchString(s)
	return err == nil && ok
}

func (re *regexp) String() string { return (*regexp2.Regexp)(re).String() }

// Compile is a jsonschema.RegexpEngine: pass it to
// (*jsonschema.Compiler).UseRegexpEngine. It fails on patterns that are not
// valid ECMA-262.
func Compile(pattern string) (jsonschema.Regexp, error) {
	re, err := regexp2.Compile(pattern, regexp2.ECMAScript)
	if err != nil {
		return nil, err
	}
	re.MatchTimeout = MatchTimeout
	return (*regexp)(re), nil
}
