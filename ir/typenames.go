package ir

import (
	"slices"
	"strconv"
	"strings"
)

// How type names are chosen (README "How names are chosen").
//
// While the schemas are typed, a nested type gets a provisional name: a
// short id ("␞12␝", never printed) standing for its path, the provisional
// name of the type it is in (or its tool's argument or result type) and
// the local names below it, joined by nameSep ("␞3␝␟Columns␟[]"). Paths
// stay short whatever the depth. After identical types are merged
// (dedupTypes), nameTypes gives every type its final name:
//
//   - its own local name: the schema's "title"; else the property's name;
//     an array's item or a map's value the collection's name in the
//     singular (Namer.Singular: Columns → Column); a "$defs" entry its key;
//   - a type that repeats the local name of a type it is nested in
//     (recursion a schema writes out level by level) is that name with its
//     level: Child, ChildLevel2, ChildLevel3;
//   - names two types would share are told apart, for both: an argument's
//     type and a result's first by role, the result's taking "Result"
//     (Person, PersonResult: the input and output copies of one pydantic
//     model), then each by the local names of the types it is nested in,
//     nearest first (IndexColumn, TableColumn), as long as the name stays
//     within maxTypeName characters; a numeric suffix only as the last
//     resort;
//   - a merged type takes the shortest of its members' names.
//
// A name depends only on the schemas of the types involved: adding a tool
// whose types have other names renames nothing, and the order of a union's
// alternatives or of the tools does not matter.

// nameSep joins the local names of a provisional path; idOpen and idClose
// enclose a provisional id. None can occur in a Go identifier, so a
// provisional name never passes for a final one.
const (
	nameSep = "\x1f"
	idOpen  = "\x1e"
	idClose = "\x1d"
)

// The markers that begin a provisional segment: the items of an array and
// the values of a map (named after the collection in the singular) and a
// "$defs" entry (named after its key).
const (
	itemMark  = "[]"
	valueMark = "{}"
	defsMark  = "$"
)

// maxTypeName bounds how long qualifying a name by its ancestors may make
// it (the "about 60 characters").
const maxTypeName = 60

// memberName is the provisional name of the type of parent's field goName.
func memberName(parent, goName string) string { return parent + nameSep + goName }

// itemName is the provisional name of the items of the array name.
func itemName(name string) string { return name + nameSep + itemMark }

// valueName is the provisional name of the values of the map name.
func valueName(name string) string { return name + nameSep + valueMark }

// defsName is the provisional path of the "$defs" entry key of the schema
// document under the tool type root.
func defsName(root, key string) string { return root + nameSep + defsMark + key }

// provisional reports whether name is a provisional name or path.
func provisional(name string) bool {
	return strings.Contains(name, nameSep) || strings.HasPrefix(name, idOpen)
}

// provisionals records the provisional ids handed out while typing.
type provisionals struct {
	paths map[string]string // id → its path
	roots map[string]string // id → the tool type name it is under
}

func newProvisionals() *provisionals {
	return &provisionals{paths: map[string]string{}, roots: map[string]string{}}
}

// add returns a new id for the type whose provisional path is path.
func (pv *provisionals) add(path string) string {
	id := idOpen + strconv.Itoa(len(pv.paths)) + idClose
	pv.paths[id] = path
	pv.roots[id] = pv.root(path)
	return id
}

// root returns the name of the tool's type a provisional path or id is
// under.
func (pv *provisionals) root(name string) string {
	first, _, _ := strings.Cut(name, nameSep)
	if id, _, ok := cutID(first); ok {
		return pv.roots[id]
	}
	return first
}

// cutID splits a segment that starts with a provisional id into the id and
// what was appended to it ("␞4␝Circle": a union's variant).
func cutID(seg string) (id, rest string, ok bool) {
	if !strings.HasPrefix(seg, idOpen) {
		return "", seg, false
	}
	i := strings.Index(seg, idClose)
	if i < 0 {
		return "", seg, false
	}
	return seg[:i+len(idClose)], seg[i+len(idClose):], true
}

// nameCandidate is one type's way to its final name.
type nameCandidate struct {
	t       *Type
	prov    string   // the provisional name it is named from
	name    string   // its name so far
	steps   []string // the ways to qualify it, in order: "+Result" or a prefix
	step    int      // how many steps were taken
	fixed   bool     // a tool's own type: keeps its name
	ordinal int      // position in declaration order, for the last resort
}

// key orders candidates by what they are named from: the name, then the
// qualifying steps (not the provisional id, which follows the order types
// were built in).
func (c *nameCandidate) key() string {
	return c.name + "\x00" + strings.Join(c.steps, "\x00")
}

// typeNamer holds one nameTypes pass.
type typeNamer struct {
	namer   *Namer
	d       *dedup
	pv      *provisionals
	byProv  map[string]*Type // provisional id (of any member) → type
	aliases map[*Type][]string
	locals  map[string]string // provisional id → its own local name
	levels  map[string]int    // provisional id → its level (levelOf)
}

// nameTypes gives every named type of p its final name (see the comment at
// the top of this file), applies the --type-name renames (Config.TypeNames,
// keyed by the final default names; used records those that applied),
// names the enum constants after their types, and rewrites the doc
// comments that named a type by its provisional name. aliases lists, for a
// type that dedupTypes merged others into, their provisional names. It
// returns the package-level scope, holding the reserved names, the types and
// their enum constants, in which later package-level names are claimed.
func nameTypes(p *Package, namer *Namer, d *dedup, pv *provisionals, aliases map[*Type][]string, renames map[string]string, used map[string]bool) *scope {
	tn := &typeNamer{namer: namer, d: d, pv: pv, byProv: map[string]*Type{}, aliases: aliases, locals: map[string]string{}, levels: map[string]int{}}
	prov := map[*Type]string{}
	for _, t := range p.Types {
		prov[t] = t.Name
		tn.byProv[t.Name] = t
		for _, a := range aliases[t] {
			tn.byProv[a] = t
		}
	}
	cands := make([]*nameCandidate, 0, len(p.Types))
	for i, t := range p.Types {
		c := tn.candidate(t)
		c.ordinal = i
		cands = append(cands, c)
	}
	tn.resolve(cands)

	// Overrides, then the package scope: reserved names, types, constants.
	names := newScope(ReservedPackageNames()...)
	final := map[string]string{} // provisional (and alias) → final
	for _, c := range cands {
		name := c.name
		if to, ok := renames[name]; ok && to != "" {
			used["type:"+name] = true
			name = to
		}
		name = names.claim(namer.TypeName(name))
		final[prov[c.t]] = name
		for _, a := range aliases[c.t] {
			final[a] = name
		}
	}
	for _, t := range p.Types {
		old := t.Name
		t.Name = final[old]
		if t.Enum != nil {
			for i, v := range t.Enum.Values {
				t.Enum.Values[i].Const = names.claim(t.Name + strings.TrimPrefix(v.Const, old))
			}
		}
	}
	for _, t := range p.Types {
		if len(t.Doc) > 0 {
			t.Doc[0] = usesOnce(tn.rewriteDoc(t.Doc[0], final))
		}
	}
	return names
}

// usesOnce lists each use once in a first doc line "X is the type of A.F,
// B.G and A.F." (members of a merged type may have parents that were
// merged too).
func usesOnce(line string) string {
	head, tail, ok := strings.Cut(line, " is the type of ")
	if !ok || !strings.HasSuffix(tail, ".") {
		return line
	}
	tail = strings.TrimSuffix(tail, ".")
	last := strings.LastIndex(tail, " and ")
	if last < 0 {
		return line
	}
	uses := append(strings.Split(tail[:last], ", "), tail[last+len(" and "):])
	slices.Sort(uses)
	return head + " is the type of " + joinAnd(slices.Compact(uses)) + "."
}

// candidate returns t's first name and the steps that qualify it.
func (tn *typeNamer) candidate(t *Type) *nameCandidate {
	c := &nameCandidate{t: t, prov: t.Name, name: t.Name}
	if !provisional(t.Name) {
		c.fixed = true
		return c
	}
	// A merged type is named after the member with the shortest name.
	best := tn.memberCandidate(t, t.Name)
	for _, a := range tn.aliases[t] {
		if m := tn.memberCandidate(t, a); len(m.name) < len(best.name) || (len(m.name) == len(best.name) && m.key() < best.key()) {
			best = m
		}
	}
	return best
}

// memberCandidate is the candidate of t named from the provisional name
// prov (t's own, or that of a type merged into it).
func (tn *typeNamer) memberCandidate(t *Type, prov string) *nameCandidate {
	c := &nameCandidate{t: t, prov: prov}
	own := tn.local(prov)
	if level := tn.levelOf(prov); level > 1 {
		own += "Level" + strconv.Itoa(level)
	}
	// Ancestors: the types t is nested in, nearest first, but those of its
	// own local name (its levels), as long as the name stays short.
	var ancestors []string
	size := len(own)
	for a := tn.parent(prov); a != "" && size <= maxTypeName; a = tn.parent(a) {
		if l := tn.local(a); l != tn.local(prov) {
			ancestors = append(ancestors, l)
			size += len(l)
		}
	}
	c.name = own
	// Told apart by role first, when an argument's type and a result's
	// collide: the argument's keeps the name (Person, PersonResult).
	role := "+"
	if strings.HasSuffix(t.SchemaDoc, "#outputSchema") {
		role = "+Result"
	}
	c.steps = append(c.steps, role)
	size = len(c.name)
	for _, a := range ancestors {
		if size += len(a); size > maxTypeName {
			break
		}
		c.steps = append(c.steps, a)
	}
	return c
}

// levelOf returns how many of the types prov is nested in, itself
// included, have its local name: a recursion the schema writes out level
// by level. It is memoized, so a chain n deep costs O(n) in all.
func (tn *typeNamer) levelOf(prov string) int {
	if l, ok := tn.levels[prov]; ok {
		return l
	}
	level, own := 1, tn.local(prov)
	for a := tn.parent(prov); a != ""; a = tn.parent(a) {
		if tn.local(a) == own {
			level += tn.levelOf(a)
			break
		}
	}
	tn.levels[prov] = level
	return level
}

// parent returns the provisional id of the nearest type the type (or
// would-be type) prov is nested in, or the name of its tool's type; "" for
// a tool's type.
func (tn *typeNamer) parent(prov string) string {
	path, ok := tn.pv.paths[prov]
	if !ok {
		return ""
	}
	return tn.parentOfPath(path)
}

// parentOfPath returns the parent of what the provisional path describes:
// the type whose id begins it, or for a name appended to an id (a union's
// variant, a tuple's position) that type's parent; a type that was dropped
// is skipped.
func (tn *typeNamer) parentOfPath(path string) string {
	first, _, _ := strings.Cut(path, nameSep)
	id, rest, ok := cutID(first)
	switch {
	case !ok:
		return first
	case rest == "" && tn.byProv[id] != nil:
		return id
	}
	return tn.parent(id)
}

// local returns the own local name of the type (or would-be type) prov:
// its schema's title, else what its path says; a tool type's name as it
// is.
func (tn *typeNamer) local(prov string) string {
	if l, ok := tn.locals[prov]; ok {
		return l
	}
	l := ""
	if t := tn.byProv[prov]; t != nil && tn.d != nil {
		if n := tn.d.node(t.SchemaDoc, t.Pointer); n != nil {
			l = tn.namer.Exported(n.title)
		}
	}
	if path, ok := tn.pv.paths[prov]; l == "" && ok {
		l = tn.pathLocal(path)
	} else if l == "" {
		l = prov
	}
	tn.locals[prov] = l
	return l
}

// pathLocal derives a local name from a provisional path: a field name as
// it is, items and values as the singular of the name before them, a
// "$defs" entry as its key, a name appended to an id as that id's local
// name followed by it (ShapeCircle).
func (tn *typeNamer) pathLocal(path string) string {
	cur := ""
	for i, seg := range strings.Split(path, nameSep) {
		id, rest, isID := cutID(seg)
		switch {
		case i == 0 && isID:
			cur = tn.local(id) + rest
		case strings.HasPrefix(seg, itemMark):
			cur = tn.namer.singular(cur, "Item") + seg[len(itemMark):]
		case strings.HasPrefix(seg, valueMark):
			cur = tn.namer.singular(cur, "Value") + seg[len(valueMark):]
		case strings.HasPrefix(seg, defsMark):
			cur = seg[len(defsMark):]
		default:
			cur = seg
		}
	}
	return cur
}

// resolve qualifies the candidates whose names collide with another's, a
// reserved name or a tool's own type, all of a colliding group at once,
// until every name is unique or no step is left; the last collisions get
// numeric suffixes in declaration order (names.claim in nameTypes).
func (tn *typeNamer) resolve(cands []*nameCandidate) {
	reserved := map[string]bool{}
	for _, r := range ReservedPackageNames() {
		reserved[r] = true
	}
	for {
		count := map[string]int{}
		inputs, outputs := map[string]bool{}, map[string]bool{} // names an argument's (a result's) type has
		for _, c := range cands {
			count[c.name]++
			inputs[c.name] = inputs[c.name] || strings.HasSuffix(c.t.SchemaDoc, "#inputSchema")
			outputs[c.name] = outputs[c.name] || strings.HasSuffix(c.t.SchemaDoc, "#outputSchema")
		}
		progress := false
		for _, c := range cands {
			if c.fixed || (count[c.name] < 2 && !reserved[c.name]) || c.step >= len(c.steps) {
				continue
			}
			s := c.steps[c.step]
			c.step++
			if (s == "+" || s == "+Result") && !(inputs[c.name] && outputs[c.name]) {
				// Not an argument's and a result's type: qualify by an ancestor.
				if c.step >= len(c.steps) {
					continue
				}
				s = c.steps[c.step]
				c.step++
			}
			if suffix, ok := strings.CutPrefix(s, "+"); ok {
				c.name += suffix
			} else {
				c.name = s + c.name
			}
			progress = true
		}
		if !progress {
			break
		}
	}
	// Within a group still colliding, declaration order decides who keeps
	// the bare name; sort for a stable claim order that does not follow
	// the tools' or alternatives' order.
	slices.SortStableFunc(cands, func(a, b *nameCandidate) int {
		if a.fixed != b.fixed {
			if a.fixed {
				return -1
			}
			return 1
		}
		if a.fixed {
			return a.ordinal - b.ordinal
		}
		return strings.Compare(a.key(), b.key())
	})
}

// rewriteDoc replaces, in a doc comment's first line, each provisional
// type name by its final name; a provisional name of something that is
// not a type (an array field) becomes the final name of the type it is in
// followed by its field ("DescribeTableResult.Columns").
func (tn *typeNamer) rewriteDoc(line string, final map[string]string) string {
	var b strings.Builder
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		b.WriteString(tn.finalOf(line[start:end], final))
		start = -1
	}
	for i, r := range line {
		if r == ' ' || r == '.' || r == ',' || r == '"' {
			flush(i)
			b.WriteRune(r)
			continue
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(line))
	return b.String()
}

// finalOf returns the final name of the token tok (itself when it names
// nothing); a provisional path that is not a type's reads as the final
// name of the type it starts at followed by its fields
// ("DescribeTableResult.Columns", "Shape.Array").
func (tn *typeNamer) finalOf(tok string, final map[string]string) string {
	if f, ok := final[tok]; ok {
		return f
	}
	if !provisional(tok) {
		return tok
	}
	if path, ok := tn.pv.paths[tok]; ok {
		return tn.finalOf(path, final) // a type that was dropped
	}
	var b strings.Builder
	for i, seg := range strings.Split(tok, nameSep) {
		id, rest, isID := cutID(seg)
		switch {
		case i == 0 && isID:
			b.WriteString(tn.finalOf(id, final))
			if rest != "" {
				b.WriteString("." + rest)
			}
		case i == 0 && final[seg] != "":
			b.WriteString(final[seg])
		case i == 0:
			b.WriteString(seg)
		case strings.HasPrefix(seg, itemMark), strings.HasPrefix(seg, valueMark):
			b.WriteString("[]")
		case strings.HasPrefix(seg, defsMark):
		default:
			b.WriteString("." + seg)
		}
	}
	return b.String()
}
