package servecheck

import "testing"

// TestParseRegisterStringConstants: a Handle call's tool object is read
// whatever string constant expression spells it (wrapped pieces, a shared
// member's constant, parentheses), and a constant that refers to itself is
// refused, not followed.
func TestParseRegisterStringConstants(t *testing.T) {
	const head = "package p\n\nconst (\n\ticonsA = \"[1,\" + \"2]\"\n\tself = self + \"x\"\n)\n\nfunc Register() {\n"
	regs, err := parseRegister([]byte(head + "\tbindimpl.Handle(toolA, \"{\\\"name\\\":\\\"a\\\",\" +\n\t\t\"\\\"icons\\\":\" + (iconsA) + \"}\", h.A)\n}\n"))
	if err != nil || len(regs) != 1 {
		t.Fatalf("parseRegister: %v, %v", regs, err)
	}
	if want := `{"name":"a","icons":[1,2]}`; regs[0].descriptor != "toolA" || regs[0].toolJSON != want {
		t.Errorf("registered %+v, want toolA with %s", regs[0], want)
	}
	if regs, err := parseRegister([]byte(head + "\tbindimpl.Handle(toolA, \"{\" + self + \"}\", h.A)\n}\n")); err == nil {
		t.Errorf("a self-referring constant read as %+v", regs)
	}
}
