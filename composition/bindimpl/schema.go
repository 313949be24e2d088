package bindimpl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/mcpbind/mcpbind/internal/ecmaregexp"
	"github.com/mcpbind/mcpbind/internal/jsonpointer"
	"github.com/mcpbind/mcpbind/internal/schema"
)

// SchemaSet holds the JSON Schema documents a generated package was built
// from (each tool's inputSchema and outputSchema, exactly as exported) and
// validates values against them with santhosh-tekuri/jsonschema/v6.
// Generated code declares one per package; Validate methods of generated
// types call it with the JSON pointer of the sub-schema the type came from.
//
// Each sub-schema is compiled once per concurrent validation (a "lane"), on
// first use. Nothing is ever fetched: a $ref outside the documents is a
// compile error (SEP-2106). A SchemaSet is safe for concurrent use.
//
// "pattern" is matched by a backtracking ECMA-262 engine, so the matches of
// one validation share a time budget, [DefaultPatternBudget], and stop when
// the context of [SchemaSet.ValidateJSONContext] ends.
type SchemaSet struct {
	docs map[string]string
	// patternBudget is the time all pattern matches of one validation may
	// take together; 0 means DefaultPatternBudget.
	patternBudget time.Duration

	mu   sync.Mutex
	free []*schemaLane // lanes not in use
}

// DefaultPatternBudget is how long all the "pattern" matches of one
// validation may take together. A hostile pattern such as ^(a+)+$ against a
// long near-match backtracks for a very long time; a validation whose
// matches exceed the budget fails with an error wrapping [ErrPatternBudget]
// (the value is not taken as valid). Ordinary patterns take microseconds.
const DefaultPatternBudget = time.Second

// ErrPatternBudget is in the chain of a validation error when the
// validation's "pattern" matches took longer than [DefaultPatternBudget]
// together.
var ErrPatternBudget = ecmaregexp.ErrBudget

// schemaLane is one compiler with its compiled sub-schemas and the pattern
// budget its regexps consult. A lane serves one validation at a time.
type schemaLane struct {
	compiler *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema
	budget   *ecmaregexp.Budget
}

// Doc returns the schema document stored under key (such as
// "count_rows#inputSchema"), as the generated package holds it.
func (s *SchemaSet) Doc(key string) (string, bool) {
	if s == nil {
		return "", false
	}
	d, ok := s.docs[key]
	return d, ok
}

// NewSchemaSet returns a set over docs, which maps a document key
// (conventionally "<tool>#inputSchema" or "<tool>#outputSchema") to the
// document's JSON text.
func NewSchemaSet(docs map[string]string) *SchemaSet {
	return &SchemaSet{docs: docs}
}

// ValidationError says why a value does not match its schema. Pointer is
// the JSON pointer (RFC 6901) of the failing value inside the validated
// value ("" for the value itself).
type ValidationError struct {
	// Pointer locates the failing value, e.g. "/rows/3/name".
	Pointer string
	// Message is the validator's explanation.
	Message string
}

// Error formats as "at /rows/3/name: …".
func (e *ValidationError) Error() string {
	ptr := e.Pointer
	if ptr == "" {
		ptr = "/"
	}
	return "at " + ptr + ": " + e.Message
}

// resourceURL names a document inside the compiler.
func resourceURL(doc string) string {
	return "mcpbind:///" + strings.NewReplacer("#", "/", " ", "_", "%", "_", "?", "_").Replace(doc) + ".json"
}

// lane takes a lane that no validation is using, making one if need be.
func (s *SchemaSet) lane() (*schemaLane, error) {
	s.mu.Lock()
	if n := len(s.free); n > 0 {
		l := s.free[n-1]
		s.free = s.free[:n-1]
		s.mu.Unlock()
		return l, nil
	}
	s.mu.Unlock()
	l := &schemaLane{compiled: map[string]*jsonschema.Schema{}, budget: &ecmaregexp.Budget{}}
	c := schema.NewCompiler()
	// "pattern" is ECMA-262 (2020-12 §6.3.3), not RE2: lookaheads and
	// backreferences that Go's regexp rejects are checked at run time,
	// within the lane's budget.
	c.UseRegexpEngine(ecmaregexp.Engine(l.budget))
	for name, text := range s.docs {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
		if err == nil {
			err = c.AddResource(resourceURL(name), v)
		}
		if err != nil {
			return nil, fmt.Errorf("schema %q: %w", name, err)
		}
	}
	l.compiler = c
	return l, nil
}

// release returns a lane for reuse.
func (s *SchemaSet) release(l *schemaLane) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.free = append(s.free, l)
}

// schema compiles (once per lane) the sub-schema at pointer of document doc.
func (s *SchemaSet) schema(l *schemaLane, doc, pointer string) (*jsonschema.Schema, error) {
	key := doc + "#" + pointer
	if sch, ok := l.compiled[key]; ok {
		return sch, nil
	}
	if _, ok := s.docs[doc]; !ok {
		return nil, fmt.Errorf("no schema document %q", doc)
	}
	sch, err := l.compiler.Compile(resourceURL(doc) + "#" + pointer)
	if err != nil {
		return nil, fmt.Errorf("compile schema %s#%s: %w", doc, pointer, err)
	}
	l.compiled[key] = sch
	return sch, nil
}

// validateJSON is ValidateJSONContext without a context.
func (s *SchemaSet) validateJSON(doc, pointer string, data []byte) error {
	return s.ValidateJSONContext(context.Background(), doc, pointer, data)
}

// ValidateJSONContext validates the JSON value data against the sub-schema
// at pointer (a JSON pointer, "" for the root) of document doc. It returns
// nil, a *ValidationError naming the failing value's JSON pointer, or an
// error when the schema cannot be compiled. It is bounded by ctx: no
// "pattern" match starts after ctx ends, and all the matches together may
// take at most [DefaultPatternBudget] (and no longer than ctx's deadline). When ctx
// ends first the error wraps ctx.Err(); when the budget runs out it wraps
// [ErrPatternBudget]. Other keywords are checked in time linear in the
// value and schema.
func (s *SchemaSet) ValidateJSONContext(ctx context.Context, doc, pointer string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("validation not started: %w", err)
	}
	l, err := s.lane()
	if err != nil {
		return err
	}
	defer s.release(l)
	sch, err := s.schema(l, doc, pointer)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	budget := s.patternBudget
	if budget <= 0 {
		budget = DefaultPatternBudget
	}
	l.budget.Start(ctx, budget)
	err = sch.Validate(inst)
	if berr := l.budget.Err(); berr != nil {
		// A match was refused or cut short: the verdict is not known.
		return fmt.Errorf("validation stopped after %d pattern match(es): %w", l.budget.Matches, berr)
	}
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		return leafError(ve)
	}
	return err
}

// leafError reduces a validator error tree to its first, deepest cause,
// which names the most specific failing value.
func leafError(ve *jsonschema.ValidationError) *ValidationError {
	leaf := ve
	for len(leaf.Causes) > 0 {
		leaf = leaf.Causes[0]
	}
	ptr := jsonpointer.Append("", leaf.InstanceLocation...)
	msg := leaf.ErrorKind.LocalizedString(message.NewPrinter(language.English))
	return &ValidationError{Pointer: ptr, Message: msg}
}
