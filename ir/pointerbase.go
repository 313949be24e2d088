package ir

import "strings"

// setPointerBases sets the PointerBase of every named type of p that sits
// inside another named type's schema in the same document: the nearest
// such type, found along the fields, items, values and variants that lead
// from one named type to the next (unnamed types in between). The work is
// linear in the size of the IR.
func setPointerBases(p *Package) {
	for _, t := range p.Types {
		t.PointerBase = nil
	}
	for _, owner := range p.Types {
		seen := map[*Type]bool{}
		var visit func(x *Type)
		visit = func(x *Type) {
			if x == nil || seen[x] {
				return
			}
			seen[x] = true
			if x.Named() && x != owner {
				if x.SchemaDoc == owner.SchemaDoc && owner.Pointer != "" && strings.HasPrefix(x.Pointer, owner.Pointer+"/") &&
					(x.PointerBase == nil || len(owner.Pointer) > len(x.PointerBase.Pointer)) {
					x.PointerBase = owner
				}
				return
			}
			for c := range x.Children() {
				visit(c)
			}
		}
		visit(owner)
	}
}
