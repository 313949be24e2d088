// Package schema is mcpbind's one model of a tool's JSON Schema, parsed
// once and read by every stage (ir, tooldiff, the bundle checks, export's
// era probe, `mcpbind call`, and the composition runtime's server
// listing):
//
//   - dialects: which JSON Schema dialect a "$schema" URI names (Dialect);
//   - normalization: any supported dialect rewritten to canonical 2020-12
//     (Normalize);
//   - the document: a schema parsed once into an ordered tree whose
//     sub-schemas are addressed by JSON Pointer (Parse, Document.Node),
//     with "$ref", "$id" and "$anchor" resolved inside the document and
//     never fetched (Document.Resolve; SEP-2106);
//   - keyword classes: which keywords hold sub-schemas (SingleKeyword,
//     ArrayKeyword, MapKeyword);
//   - the protocol facts, decided in one place: whether an outputSchema is
//     a {"result": S} envelope and where S is (Document.Envelope), whether
//     a schema is a plain "type":"object" schema (Node.PlainObject), and
//     whether an object can be valid against it (Document.CanBeObject);
//     the envelope's text forms (Wrap, Inner);
//   - the validator settings every package shares: a compiler that never
//     fetches (NewCompiler).
//
// Its dependencies are the standard library, two JSON Schema libraries
// and mcpbind's JSON helpers, so the composition runtime may import it.
package schema
