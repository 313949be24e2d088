package composition

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpbind/mcpbind/internal/ecmaregexp"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// SchemaSet holds the JSON Schema documents a generated package was built
// from (each tool's inputSchema and outputSchema, exactly as exported) and
// validates values against them with santhosh-tekuri/jsonschema/v6.
// Generated code declares one per package; Validate methods of generated
// types call it with the JSON pointer of the sub-schema the type came from.
//
// Each sub-schema is compiled once, on first use. Nothing is ever fetched:
// a $ref outside the documents is a compile error (SEP-2106). A SchemaSet is
// safe for concurrent use.
type SchemaSet struct {
	docs map[string]string

	mu       sync.Mutex
	compiler *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema
	loadErr  error
}

// NewSchemaSet returns a set over docs, which maps a document key
// (conventionally "<tool>#inputSchema" or "<tool>#outputSchema") to the
// document's JSON text.
func NewSchemaSet(docs map[string]string) *SchemaSet {
	return &SchemaSet{docs: docs, compiled: map[string]*jsonschema.Schema{}}
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

// noFetch is the loader of every SchemaSet compiler: schemas are never
// fetched (SEP-2106 forbids clients from resolving remote references).
type noFetch struct{}

func (noFetch) Load(url string) (any, error) {
	return nil, fmt.Errorf("mcpbind never fetches schemas: %s", url)
}

// resourceURL names a document inside the compiler.
func resourceURL(doc string) string {
	return "mcpbind:///" + strings.NewReplacer("#", "/", " ", "_", "%", "_", "?", "_").Replace(doc) + ".json"
}

// schema compiles (once) the sub-schema at pointer of document doc.
func (s *SchemaSet) schema(doc, pointer string) (*jsonschema.Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := doc + "#" + pointer
	if sch, ok := s.compiled[key]; ok {
		return sch, nil
	}
	if s.compiler == nil && s.loadErr == nil {
		c := jsonschema.NewCompiler()
		c.UseLoader(noFetch{})
		// "pattern" is ECMA-262 (2020-12 §6.3.3), not RE2: lookaheads and
		// backreferences that Go's regexp rejects are checked at run time.
		c.UseRegexpEngine(ecmaregexp.Compile)
		for name, text := range s.docs {
			v, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
			if err == nil {
				err = c.AddResource(resourceURL(name), v)
			}
			if err != nil {
				s.loadErr = fmt.Errorf("schema %q: %w", name, err)
				break
			}
		}
		s.compiler = c
	}
	if s.loadErr != nil {
		return nil, s.loadErr
	}
	if _, ok := s.docs[doc]; !ok {
		return nil, fmt.Errorf("no schema document %q", doc)
	}
	sch, err := s.compiler.Compile(resourceURL(doc) + "#" + pointer)
	if err != nil {
		return nil, fmt.Errorf("compile schema %s#%s: %w", doc, pointer, err)
	}
	s.compiled[key] = sch
	return sch, nil
}

// Validate encodes v as JSON and validates it against the sub-schema at
// pointer of document doc. It returns nil, a *ValidationError naming the
// failing value's JSON pointer, or an error when v cannot be encoded or the
// schema cannot be compiled.
func (s *SchemaSet) Validate(doc, pointer string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.ValidateJSON(doc, pointer, data)
}

// ValidateJSON is Validate for a value that is already JSON.
func (s *SchemaSet) ValidateJSON(doc, pointer string, data []byte) error {
	sch, err := s.schema(doc, pointer)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	err = sch.Validate(inst)
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		return leafError(ve)
	}
	return err
}

// ValidateTagged validates a tagged union's variant struct v: it is encoded
// with its tag property (as the union encodes it) before validation.
func (s *SchemaSet) ValidateTagged(doc, pointer, tag, tagValue string, v any) error {
	data, err := MarshalTagged(tag, tagValue, v)
	if err != nil {
		return err
	}
	return s.ValidateJSON(doc, pointer, data)
}

// leafError reduces a validator error tree to its first, deepest cause,
// which names the most specific failing value.
func leafError(ve *jsonschema.ValidationError) *ValidationError {
	leaf := ve
	for len(leaf.Causes) > 0 {
		leaf = leaf.Causes[0]
	}
	ptr := ""
	for _, tok := range leaf.InstanceLocation {
		ptr += "/" + strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
	}
	msg := leaf.ErrorKind.LocalizedString(message.NewPrinter(language.English))
	return &ValidationError{Pointer: ptr, Message: msg}
}
