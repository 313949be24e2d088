package ir

import (
	"slices"
	"strconv"
	"strings"
)

// How type names are chosen (README "How names are chosen").
//
// While the schemas are typed, a nested type gets a provisional name: the
// path of local names from its tool's argument or result type down to it,
// joined by nameSep ("DescribeTableResult␟Columns␟[]"). Such a name is
// never printed. After identical types are merged (dedupTypes), nameTypes
// gives every type its final name:
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

// nameSep joins the local names of a provisional type name. It cannot occur
// in a Go identifier, so a provisional name never passes for a final one.
const nameSep = "\x1f"

// The markers that begin a provisional segment: the items of an array and
// the values of a map (named after the collection in the singular), a
// "$defs" entry (named after its key) and a uniqueness suffix (ignored).
const (
	itemMark  = "[]"
	valueMark = "{}"
	defsMark  = "$"
	dupMark   = "~"
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

// defsName is the provisional name of the "$defs" entry key of the schema
// document whose root type is named by the first segment of name.
func defsName(name, key string) string {
	root, _, _ := strings.Cut(name, nameSep)
	return root + nameSep + defsMark + key
}

// provisional reports whether name is a provisional name.
func provisional(name string) bool { return strings.Contains(name, nameSep) }

// claimProvisional claims a provisional name in s, adding a segment that
// makes it unique (ignored by naming) when it is taken.
func (s *scope) claimProvisional(base string) string {
	name := base
	for i := 2; s.taken[name]; i++ {
		name = base + nameSep + dupMark + strconv.Itoa(i)
	}
	s.taken[name] = true
	return name
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

// typeNamer holds one nameTypes pass.
type typeNamer struct {
	p       *Package
	namer   *Namer
	d       *dedup
	byProv  map[string]*Type // provisional name (of any member) → type
	aliases map[*Type][]string
	locals  map[string]string // provisional name → its own local name
}

// nameTypes gives every named type of p its final name (see the comment at
// the top of this file), applies the --type-name renames (Config.TypeNames,
// keyed by the final default names; used records those that applied),
// names the enum constants after their types, and rewrites the doc
// comments that named a type by its provisional name. aliases lists, for a
// type that dedupTypes merged others into, their provisional names.
func nameTypes(p *Package, namer *Namer, d *dedup, aliases map[*Type][]string, renames map[string]string, used map[string]bool) {
	tn := &typeNamer{p: p, namer: namer, d: d, byProv: map[string]*Type{}, aliases: aliases, locals: map[string]string{}}
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
		if m := tn.memberCandidate(t, a); len(m.name) < len(best.name) || (len(m.name) == len(best.name) && m.name+nameSep+m.prov < best.name+nameSep+best.prov) {
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
	// Ancestors: the types t is nested in, nearest first.
	var ancestors []string
	level := 1
	for a := tn.parent(prov); a != ""; a = tn.parent(a) {
		l := tn.local(a)
		if l == own {
			level++
			continue
		}
		ancestors = append(ancestors, l)
	}
	if level > 1 {
		own += "Level" + strconv.Itoa(level)
	}
	c.name = own
	// Told apart by role first, when an argument's type and a result's
	// collide: the argument's keeps the name (Person, PersonResult).
	role := "+"
	if strings.HasSuffix(t.SchemaDoc, "#outputSchema") {
		role = "+Result"
	}
	c.steps = append(c.steps, role)
	size := len(c.name)
	for _, a := range ancestors {
		if size += len(a); size > maxTypeName {
			break
		}
		c.steps = append(c.steps, a)
	}
	return c
}

// parent returns the provisional name of the nearest type prov is nested
// in ("" when none).
func (tn *typeNamer) parent(prov string) string {
	for i := strings.LastIndex(prov, nameSep); i > 0; i = strings.LastIndex(prov[:i], nameSep) {
		if tn.byProv[prov[:i]] != nil {
			return prov[:i]
		}
		if !strings.Contains(prov[:i], nameSep) {
			return prov[:i] // the tool's argument or result name, even when not a type
		}
	}
	return ""
}

// local returns the own local name of the type (or would-be type) prov:
// its schema's title, else what its last segments say.
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
	if l == "" {
		l = tn.segmentsLocal(prov)
	}
	tn.locals[prov] = l
	return l
}

// segmentsLocal derives a local name from the segments of prov after its
// parent's: a field name as it is, items and values as the singular of the
// name before them, a "$defs" entry as its key.
func (tn *typeNamer) segmentsLocal(prov string) string {
	par := tn.parent(prov)
	cur, rest := "", prov
	if par != "" {
		cur, rest = tn.local(par), strings.TrimPrefix(prov[len(par):], nameSep)
	}
	for seg := range strings.SplitSeq(rest, nameSep) {
		switch {
		case strings.HasPrefix(seg, itemMark):
			cur = tn.namer.singular(cur, "Item") + seg[len(itemMark):]
		case strings.HasPrefix(seg, valueMark):
			cur = tn.namer.singular(cur, "Value") + seg[len(valueMark):]
		case strings.HasPrefix(seg, defsMark):
			cur = seg[len(defsMark):]
		case strings.HasPrefix(seg, dupMark):
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
		return strings.Compare(a.prov, b.prov)
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
// nothing).
func (tn *typeNamer) finalOf(tok string, final map[string]string) string {
	if f, ok := final[tok]; ok {
		return f
	}
	if !provisional(tok) {
		return tok
	}
	par := tn.parent(tok)
	head := final[par]
	if head == "" {
		head = par
	}
	var b strings.Builder
	b.WriteString(head)
	for seg := range strings.SplitSeq(strings.TrimPrefix(tok[len(par):], nameSep), nameSep) {
		switch {
		case strings.HasPrefix(seg, itemMark), strings.HasPrefix(seg, valueMark):
			b.WriteString("[]")
		case strings.HasPrefix(seg, defsMark), strings.HasPrefix(seg, dupMark):
		default:
			b.WriteString("." + seg)
		}
	}
	return b.String()
}
