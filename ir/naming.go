package ir

import (
	"go/token"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/gertd/go-pluralize"
	"github.com/iancoleman/strcase"
)

// DefaultInitialisms are the words Go spells in upper case inside
// identifiers (Effective Go, "MixedCaps"; the list golint used), plus a few
// that MCP schemas use often.
func DefaultInitialisms() []string {
	return []string{
		"ACL", "API", "ASCII", "CPU", "CSS", "CSV", "DB", "DNS", "EOF", "GUID", "HTML", "HTTP", "HTTPS",
		"ID", "IP", "JSON", "JWT", "LHS", "MCP", "OS", "QPS", "RAM", "RHS", "RPC", "SHA", "SLA", "SMTP",
		"SQL", "SSE", "SSH", "TCP", "TLS", "TTL", "UDP", "UI", "UID", "URI", "URL", "UTF8", "UUID", "VM",
		"XML", "XMPP", "XSRF", "XSS", "YAML",
	}
}

// Namer turns JSON names (tool names, property names, $defs keys, enum
// values) into exported Go identifiers. It is the only place mcpbind makes
// naming decisions; it holds no global state, so two generators with
// different initialisms can run side by side.
type Namer struct {
	initialisms map[string]string
	// plural singularises the last word of an array's or map's name to
	// name its items (gertd/go-pluralize, a port of the pluralize
	// library: "entities" → "entity", "children" → "child").
	plural *pluralize.Client
}

// NewNamer returns a Namer that upper-cases the given initialisms (matched
// case-insensitively against whole words, e.g. "id" in "user_id" → "UserID").
func NewNamer(initialisms []string) *Namer {
	m := make(map[string]string, len(initialisms))
	for _, w := range initialisms {
		m[strings.ToLower(w)] = strings.ToUpper(w)
	}
	plural := pluralize.NewClient()
	for _, w := range []string{"data", "metadata"} {
		plural.AddUncountableRule(w) // "Datum" is not what a Go reader expects
	}
	return &Namer{initialisms: m, plural: plural}
}

// Singular returns the name of one item of a collection called name (a Go
// identifier): its last word in the singular ("Columns" → "Column",
// "UserIDs" → "UserID", "Entries" → "Entry"), or name with "Item" appended
// when that word has no singular of its own ("Data" → "DataItem", "List"
// → "ListItem").
func (n *Namer) Singular(name string) string { return n.singular(name, "Item") }

// singular is Singular with the suffix for a word without a singular
// ("Item" for an array's items, "Value" for a map's values).
func (n *Namer) singular(name, suffix string) string {
	words := n.words(name)
	if len(words) == 0 {
		return name + suffix
	}
	last := words[len(words)-1]
	one := n.plural.Singular(last)
	if one == last || one == "" {
		return name + suffix
	}
	words[len(words)-1] = one
	if id := n.Exported(strings.Join(words, "_")); id != "" {
		return id
	}
	return name + suffix
}

// Exported returns the exported Go identifier for a JSON name: words are
// split at case changes, digits-to-letters boundaries and every character
// that is not a letter or digit, then joined in MixedCaps with initialisms
// upper-cased ("read_note" and "read-note" → "ReadNote", "userId" → "UserID").
// A name that does not start with an upper-case letter after conversion
// (a digit, or a letter of a script without case such as "名前") gets an "X"
// prefix; a name with no letters or digits gives "" (callers choose a
// fallback).
func (n *Namer) Exported(name string) string {
	var b strings.Builder
	for _, word := range n.words(name) {
		if up, ok := n.initialisms[strings.ToLower(word)]; ok {
			b.WriteString(up)
			continue
		}
		if stem, ok := strings.CutSuffix(word, "s"); ok {
			if up, ok := n.initialisms[stem]; ok && len(stem) > 1 {
				b.WriteString(up + "s")
				continue
			}
		}
		r := []rune(word)
		r[0] = unicode.ToUpper(r[0])
		b.WriteString(string(r))
	}
	id := b.String()
	if id == "" {
		return ""
	}
	if first := []rune(id)[0]; !unicode.IsUpper(first) {
		id = "X" + id
	}
	return id
}

// Unexported returns the unexported Go identifier for a JSON name: Exported
// with its first word lower-cased whole ("icons" → "icons", "URL list" →
// "urlList", "IDs" → "ids"), so an initialism does not keep a capital; ""
// when Exported gives "". It may be a Go keyword ("type"): callers append
// to it (the shared members' constants append a method name).
func (n *Namer) Unexported(name string) string {
	id := []rune(n.Exported(name))
	if len(id) == 0 {
		return ""
	}
	word := n.words(name)[0]
	first := len([]rune(word))
	if first > len(id) || strings.ToLower(string(id[:first])) != word {
		first = 1 // Exported put an "X" before a word that has no capital
	}
	return strings.ToLower(string(id[:first])) + string(id[first:])
}

// words splits a JSON name into lower-case words. Plural initialisms
// ("URLs", "IDs") are folded first, since strcase would split them as
// "UR"+"Ls".
func (n *Namer) words(name string) []string {
	snake := strcase.ToSnake(n.foldPlurals(name))
	return strings.FieldsFunc(snake, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// foldPlurals rewrites an upper-case initialism followed by a plural "s" at
// a word end ("listURLs") as a capitalised word ("listUrls").
func (n *Namer) foldPlurals(name string) string {
	r := []rune(name)
	for i := 0; i < len(r); i++ {
		if !unicode.IsUpper(r[i]) || (i > 0 && unicode.IsUpper(r[i-1])) {
			continue
		}
		j := i
		for j < len(r) && unicode.IsUpper(r[j]) {
			j++
		}
		if j-i < 2 || j >= len(r) || r[j] != 's' || (j+1 < len(r) && unicode.IsLower(r[j+1])) {
			continue
		}
		if _, ok := n.initialisms[strings.ToLower(string(r[i:j]))]; ok {
			for k := i + 1; k < j; k++ {
				r[k] = unicode.ToLower(r[k])
			}
		}
	}
	return string(r)
}

// EnumConstant returns the constant name for one enum value of the Go type
// typeName: the type name followed by the value's identifier ("red" →
// ColorRed; 3 → Level3; -1 → LevelMinus1; true → FlagTrue). Values that give no
// identifier ("", "+") are named by their position: ColorValue2.
func (n *Namer) EnumConstant(typeName string, value any, index int) string {
	var suffix string
	switch v := value.(type) {
	case string:
		suffix = n.Exported(v)
		if isUpperWord(v) {
			suffix = v // "EUR", "GET": an upper-case word reads best as it is
		}
		if strings.HasPrefix(suffix, "X") && len(v) > 0 && unicode.IsDigit([]rune(v)[0]) {
			suffix = strings.TrimPrefix(suffix, "X") // Level + "2xx" reads fine
		}
	case bool:
		suffix = strings.ToUpper(strconv.FormatBool(v)[:1]) + strconv.FormatBool(v)[1:]
	case float64:
		s := strconv.FormatFloat(v, 'f', -1, 64)
		s = strings.ReplaceAll(s, ".", "_")
		if strings.HasPrefix(s, "-") {
			s = "Minus" + s[1:]
		}
		suffix = s
	case nil:
		suffix = "Null"
	}
	if suffix == "" {
		suffix = "Value" + strconv.Itoa(index+1)
	}
	return typeName + suffix
}

// scope hands out unique identifiers within one Go namespace (a package's
// top-level names, or one struct's fields). The first claimant of a name
// keeps it; later ones get the smallest free numeric suffix ("FooBar",
// "FooBar2"), so the outcome depends only on the claim order, which the IR
// keeps deterministic (bundle order: tools by name, properties in schema
// order).
type scope struct {
	taken map[string]bool
}

func newScope(reserved ...string) *scope {
	s := &scope{taken: map[string]bool{}}
	for _, r := range reserved {
		s.taken[r] = true
	}
	return s
}

// claim returns base, or base with the smallest numeric suffix ≥ 2 that is
// still free, and marks it taken.
func (s *scope) claim(base string) string {
	name := base
	for i := 2; s.taken[name]; i++ {
		name = base + strconv.Itoa(i)
	}
	s.taken[name] = true
	return name
}

// PackageName returns a Go package name for a server id: lower case letters
// and digits only ("sqlite-explorer" → "sqliteexplorer"); "mcpserver" when
// nothing is left, with an "mcp" prefix when it would start with a digit or
// be a Go keyword ("type" → "mcptype").
func PackageName(id string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(id) {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
		}
	}
	name := b.String()
	switch {
	case name == "":
		return "mcpserver"
	case unicode.IsDigit(rune(name[0])), token.IsKeyword(name):
		return "mcp" + name
	}
	return name
}

// ValidPackageName reports whether name can be used as a Go package name:
// an identifier that is not a keyword.
func ValidPackageName(name string) bool {
	return token.IsIdentifier(name) && !token.IsKeyword(name)
}

// isUpperWord reports whether s is one upper-case ASCII word of two or more
// letters and digits, starting with a letter ("EUR", "HTTP2").
func isUpperWord(s string) bool {
	if len(s) < 2 || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	for _, r := range s {
		if (r < 'A' || r > 'Z') && (r < '0' || r > '9') {
			return false
		}
	}
	return true
}

// The reserved names below are the one list of identifiers that generated
// code declares itself or depends on. The naming module never hands them to
// a server-derived name: a colliding name gets a numeric suffix
// ("Validate2"). Whoever adds a method, field or package-level declaration
// to the templates adds its name here.

// GeneratedMethods are the methods the templates may declare on a generated
// type (Validate on every named type, MarshalJSON and UnmarshalJSON on
// structs, unions, tuples and raw types; String stays reserved so that a
// later template may add it without renaming fields).
// A struct field or union variant of the same name would not compile
// ("field and method with the same name").
func GeneratedMethods() []string {
	return []string{"Validate", "MarshalJSON", "UnmarshalJSON", "String"}
}

// GeneratedFields are the fields the templates may add to a generated
// struct besides its properties (the additional-properties map and a
// tuple's Rest).
func GeneratedFields() []string {
	return []string{"AdditionalProperties", "Rest"}
}

// GeneratedPackageNames are the package-level identifiers every generated
// package may declare besides the tools' types and enum constants: the
// Client type, the Handler interface and the UnimplementedHandler struct of
// server.go (generate --server), the functions of GeneratedFunctions, and
// the variables and constants ServerDigest, Pins, schemas and types.
func GeneratedPackageNames() []string {
	return slices.Concat([]string{"Client", "Handler", "UnimplementedHandler", "ServerDigest", "Pins", "schemas", "types"}, GeneratedFunctions())
}

// GeneratedFunctions are the package-level functions (no receiver) the
// templates may declare (Register and Forward in server.go, with generate
// --server).
func GeneratedFunctions() []string {
	return []string{"NewClient", "FromRegistry", "Marshal", "Unmarshal", "Register", "Forward"}
}

// generatedImportNames are the names of the packages generated code
// imports; a package-level declaration of the same name would conflict
// with the import in its file.
func generatedImportNames() []string {
	return []string{"context", "json", "errors", "fmt", "composition", "bindimpl", "server", "mcp", "gosdk"}
}

// predeclaredNames are Go's predeclared identifiers (The Go Programming
// Language Specification, "Predeclared identifiers") plus the blank
// identifier and the names with a special meaning at package level ("init",
// "main"). Declaring one would shadow it for the whole package.
func predeclaredNames() []string {
	return []string{
		"any", "bool", "byte", "comparable", "complex64", "complex128", "error", "float32", "float64",
		"int", "int8", "int16", "int32", "int64", "rune", "string", "uint", "uint8", "uint16", "uint32",
		"uint64", "uintptr", "true", "false", "iota", "nil", "append", "cap", "clear", "close", "complex",
		"copy", "delete", "imag", "len", "make", "max", "min", "new", "panic", "print", "println", "real",
		"recover", "_", "init", "main",
	}
}

// ReservedPackageNames are the identifiers no generated type or constant
// may take: the generated package-level names, the imports and Go's
// predeclared identifiers.
func ReservedPackageNames() []string {
	return slices.Concat(GeneratedPackageNames(), generatedImportNames(), predeclaredNames())
}

// newFieldScope returns the scope of one generated struct's fields (or one
// union's variants), with the generated methods and fields reserved.
func newFieldScope() *scope {
	return newScope(slices.Concat(GeneratedMethods(), GeneratedFields())...)
}

// TypeName returns name if it is an exported Go identifier, else its
// conversion by Exported ("Foo Bar" → "FooBar", "error" → "Error"), else
// "Type" for a name with no letters or digits ("_", "."). Every
// package-level type name goes through it, whatever its source (a schema
// title, a $defs key, pmcp:outputTypeName, a --type-name override).
func (n *Namer) TypeName(name string) string {
	if token.IsIdentifier(name) && token.IsExported(name) {
		return name
	}
	if id := n.Exported(name); id != "" {
		return id
	}
	return "Type"
}
