package ir

import "github.com/mcpbind/mcpbind/internal/jsonpointer"

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
				if _, under := jsonpointer.Under(x.Pointer, owner.Pointer); under && x.SchemaDoc == owner.SchemaDoc && owner.Pointer != "" &&
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

// RelativePointer returns t's Pointer relative to its PointerBase's, as
// generated code writes it (bindimpl.TypeInfo.Base); ok is false when t
// has no PointerBase.
func (t *Type) RelativePointer() (string, bool) {
	if t.PointerBase == nil {
		return "", false
	}
	return jsonpointer.Under(t.Pointer, t.PointerBase.Pointer)
}
