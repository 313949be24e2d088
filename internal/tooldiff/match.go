package tooldiff

import (
	"slices"
	"strconv"
	"strings"
)

// variant is one alternative of a schema: one JSON type (or "any"), after
// anyOf/oneOf groups, type arrays and enum-only schemas are split up.
type variant struct {
	kind  string
	v     *view
	enum  []any // the enum values of this kind, when v.hasEnum
	label string
	// own are the schemas this alternative adds to the schema it was split
	// from (a union member and what it references); their annotations
	// belong to the alternative. nil when it adds none.
	own map[string]bool
}

func (x *variant) family() string {
	if x.kind == "integer" {
		return "number"
	}
	return x.kind
}

// variants splits a view into its alternatives.
func variants(d *doc, v *view, label string, own map[string]bool, depth int) []variant {
	if v.never {
		return nil
	}
	if len(v.unions) > 0 && depth < 8 {
		u := v.unions[0]
		consumed := map[string]bool{u.at + "/" + u.kw: true}
		for k := range v.consumed {
			consumed[k] = true
		}
		parent := map[string]bool{}
		for _, p := range v.ptrs {
			parent[p] = true
		}
		var out []variant
		for i, m := range u.members {
			mv := expand(d, append(slices.Clone(v.inputs), m), consumed)
			mown := map[string]bool{}
			for _, p := range mv.ptrs {
				if !parent[p] || own[p] {
					mown[p] = true
				}
			}
			out = append(out, variants(d, mv, label+"/"+u.kw+"/"+strconv.Itoa(i), mown, depth+1)...)
			if len(out) >= maxVariants {
				return out[:maxVariants]
			}
		}
		return out
	}
	kinds := v.kinds()
	if kinds == nil {
		return []variant{{kind: "any", v: v, enum: v.enum, label: label, own: own}}
	}
	var out []variant
	for _, k := range kinds {
		x := variant{kind: k, v: v, label: label, own: own}
		if v.hasEnum {
			for _, e := range v.enum {
				if ek := jsonKind(e); ek == k || (k == "number" && ek == "integer") {
					x.enum = append(x.enum, e)
				}
			}
			if len(x.enum) == 0 {
				continue // no value of this type is allowed
			}
		}
		out = append(out, x)
	}
	return out
}

// kinds returns the JSON types the view admits (from "type", else from an
// enum), or nil for any type.
func (v *view) kinds() []string {
	if v.types != nil {
		return v.types
	}
	if v.hasEnum {
		var ks []string
		for _, e := range v.enum {
			ks = append(ks, jsonKind(e))
		}
		return normTypes(ks)
	}
	return nil
}

// describe names an alternative in a message.
func describe(x *variant) string {
	s := x.kind
	switch {
	case x.v.refName != "":
		s += " " + x.v.refName
	case x.v.title != "":
		s += " " + strconv.Quote(x.v.title)
	}
	if len(x.enum) == 1 {
		s += " " + display(x.enum[0])
	}
	return s
}

// matchVariants pairs the alternatives of the old and the new schema:
// within each JSON type family, one each is a pair; several are paired by a
// const discriminator property, a $defs name, a title (each when it is
// unique on both sides), equality (as a multiset: identical alternatives
// pair up in order, as many as both sides have), then shared properties
// and keywords; a lone leftover "any" pairs with a lone
// leftover alternative on the other side.
func (c *comparer) matchVariants(ovs, nvs []variant) (pairs [][2]*variant, removed, added []*variant) {
	usedO := make([]bool, len(ovs))
	usedN := make([]bool, len(nvs))
	pair := func(i, j int) {
		usedO[i], usedN[j] = true, true
		pairs = append(pairs, [2]*variant{&ovs[i], &nvs[j]})
	}
	var fams []string
	for _, vs := range [][]variant{nvs, ovs} {
		for _, x := range vs {
			if !slices.Contains(fams, x.family()) {
				fams = append(fams, x.family())
			}
		}
	}
	free := func(vs []variant, used []bool, fam string) []int {
		var idx []int
		for i := range vs {
			if !used[i] && (fam == "" || vs[i].family() == fam) {
				idx = append(idx, i)
			}
		}
		return idx
	}
	for _, fam := range fams {
		oi, ni := free(ovs, usedO, fam), free(nvs, usedN, fam)
		if len(oi) == 0 || len(ni) == 0 {
			continue
		}
		if len(oi) == 1 && len(ni) == 1 {
			pair(oi[0], ni[0])
			continue
		}
		tag := c.discriminator(ovs, nvs, oi, ni)
		keys := []func(d *doc, x *variant) string{
			func(d *doc, x *variant) string { return c.tagValue(d, x, tag) },
			func(_ *doc, x *variant) string { return x.v.refName },
			func(_ *doc, x *variant) string { return x.v.title },
			func(d *doc, x *variant) string { return variantSignature(d, x) },
		}
		for ki, key := range keys {
			equality := ki == len(keys)-1
			oi, ni = free(ovs, usedO, fam), free(nvs, usedN, fam)
			om, nm := map[string][]int{}, map[string][]int{}
			for _, i := range oi {
				if k := key(c.old, &ovs[i]); k != "" {
					om[k] = append(om[k], i)
				}
			}
			for _, j := range ni {
				if k := key(c.new, &nvs[j]); k != "" {
					nm[k] = append(nm[k], j)
				}
			}
			for _, j := range ni {
				k := key(c.new, &nvs[j])
				switch {
				case k == "" || len(om[k]) == 0:
				case len(om[k]) == 1 && len(nm[k]) == 1:
					pair(om[k][0], j)
				case equality:
					// Identical alternatives are interchangeable: pair them
					// as a multiset, in order, as many as both sides have.
					pair(om[k][0], j)
					om[k] = om[k][1:]
				}
			}
		}
		// By similarity, most similar first.
		oi, ni = free(ovs, usedO, fam), free(nvs, usedN, fam)
		type cand struct {
			i, j int
			sim  float64
		}
		var cands []cand
		for _, i := range oi {
			for _, j := range ni {
				if s := similarity(&ovs[i], &nvs[j]); s > 0 {
					cands = append(cands, cand{i, j, s})
				}
			}
		}
		slices.SortStableFunc(cands, func(a, b cand) int {
			switch {
			case a.sim > b.sim:
				return -1
			case a.sim < b.sim:
				return 1
			}
			return 0
		})
		for _, cd := range cands {
			if !usedO[cd.i] && !usedN[cd.j] {
				pair(cd.i, cd.j)
			}
		}
		if oi, ni = free(ovs, usedO, fam), free(nvs, usedN, fam); len(oi) == 1 && len(ni) == 1 {
			pair(oi[0], ni[0])
		}
	}
	// A lone untyped alternative against a lone typed one: compare their
	// contents (the type change is reported on its own).
	oi, ni := free(ovs, usedO, ""), free(nvs, usedN, "")
	oi = slices.DeleteFunc(oi, func(i int) bool { return ovs[i].kind == "null" })
	ni = slices.DeleteFunc(ni, func(j int) bool { return nvs[j].kind == "null" })
	if len(oi) == 1 && len(ni) == 1 && (ovs[oi[0]].kind == "any" || nvs[ni[0]].kind == "any") {
		pair(oi[0], ni[0])
	}
	for i := range ovs {
		if !usedO[i] {
			removed = append(removed, &ovs[i])
		}
	}
	for j := range nvs {
		if !usedN[j] {
			added = append(added, &nvs[j])
		}
	}
	return pairs, removed, added
}

// discriminator returns a property that is a single constant in every
// given object alternative on both sides, or "".
func (c *comparer) discriminator(ovs, nvs []variant, oi, ni []int) string {
	first := &nvs[ni[0]]
	if first.kind != "object" {
		return ""
	}
	for _, p := range first.v.propNames {
		ok := true
		for _, i := range oi {
			ok = ok && c.tagValue(c.old, &ovs[i], p) != ""
		}
		for _, j := range ni {
			ok = ok && c.tagValue(c.new, &nvs[j], p) != ""
		}
		if ok {
			return p
		}
	}
	return ""
}

// tagValue returns the canonical constant value of property p in an object
// alternative, or "".
func (c *comparer) tagValue(d *doc, x *variant, p string) string {
	if p == "" || x.kind != "object" {
		return ""
	}
	ptrs, ok := x.v.props[p]
	if !ok {
		return ""
	}
	pv := expand(d, ptrs, nil)
	if !pv.hasEnum || len(pv.enum) != 1 {
		return ""
	}
	return canonical(pv.enum[0])
}

// variantSignature is a canonical rendering of an alternative's own schemas,
// for pairing identical alternatives.
func variantSignature(d *doc, x *variant) string {
	var b strings.Builder
	b.WriteString(x.kind)
	for _, p := range x.v.ptrs {
		if x.own != nil && !x.own[p] {
			continue
		}
		n, _ := d.at(p)
		b.WriteString("\x00")
		writeUnordered(&b, n)
	}
	return b.String()
}

// writeUnordered writes the canonical text of v (see canonical) with the
// alternatives of every anyOf and oneOf in sorted order, so that two
// schemas that list the same alternatives in another order write alike.
func writeUnordered(b *strings.Builder, v any) {
	switch x := v.(type) {
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeUnordered(b, e)
		}
		b.WriteByte(']')
	case *object:
		b.WriteByte('{')
		for i, k := range slices.Sorted(slices.Values(x.keys)) {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(k))
			b.WriteByte(':')
			alts, ok := x.vals[k].([]any)
			if !ok || (k != "anyOf" && k != "oneOf") {
				writeUnordered(b, x.vals[k])
				continue
			}
			texts := make([]string, len(alts))
			for j, a := range alts {
				var ab strings.Builder
				writeUnordered(&ab, a)
				texts[j] = ab.String()
			}
			slices.Sort(texts)
			b.WriteString("[" + strings.Join(texts, ",") + "]")
		}
		b.WriteByte('}')
	default:
		b.WriteString(canonical(v))
	}
}

// similarity is the share of property names, enum values and constraint
// keywords two alternatives have in common.
func similarity(a, b *variant) float64 {
	features := func(x *variant) map[string]bool {
		f := map[string]bool{}
		for _, p := range x.v.propNames {
			f["p:"+p] = true
		}
		for _, e := range x.enum {
			f["e:"+canonical(e)] = true
		}
		for k := range x.v.bounds {
			f["b:"+k] = true
		}
		for _, p := range x.v.patterns {
			f["r:"+p] = true
		}
		for _, p := range x.v.formats {
			f["f:"+p] = true
		}
		return f
	}
	fa, fb := features(a), features(b)
	inter, union := 0, len(fb)
	for k := range fa {
		if fb[k] {
			inter++
		} else {
			union++
		}
	}
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}
