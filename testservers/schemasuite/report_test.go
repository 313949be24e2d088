package schemasuite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
)

// classify decides whether the instance passed and, if not, says why.
func classify(c instance, o outcome) (bool, string) {
	if c.test.Valid {
		if o.Stage != "ok" {
			return false, o.Stage + ": " + firstLine(o.Err)
		}
		eq, err := SemanticEqual(c.Data, o.Out)
		if err != nil {
			return false, "round trip: " + err.Error()
		}
		if !eq {
			return false, "round trip changed the value: " + abbreviate(string(o.Out))
		}
		return true, ""
	}
	switch o.Stage {
	case "unmarshal", "validate":
		return true, ""
	case "ok":
		if !o.Validated {
			return false, "accepted (" + c.group.goType + " has no Validate), encoded back as " + abbreviate(string(o.Out))
		}
		return false, "accepted by Validate, encoded back as " + abbreviate(string(o.Out))
	}
	return false, o.Stage + ": " + firstLine(o.Err)
}

// count is passed/total.
type count struct{ pass, n int }

func (c count) ratio() float64 {
	if c.n == 0 {
		return 1
	}
	return float64(c.pass) / float64(c.n)
}

func (c count) String() string { return fmt.Sprintf("%d/%d", c.pass, c.n) }

// report gathers the outcomes per file.
type report struct {
	files []string
	scope map[string]string
	valid map[string]*count
	inv   map[string]*count
	fails []string
}

func newReport(files []string, scope map[string]string) *report {
	r := &report{files: files, scope: scope, valid: map[string]*count{}, inv: map[string]*count{}}
	for _, f := range files {
		r.valid[f], r.inv[f] = &count{}, &count{}
	}
	return r
}

func (r *report) add(sg *suiteGroup, test Test, pass bool, why string) {
	c := r.inv[sg.file]
	if test.Valid {
		c = r.valid[sg.file]
	}
	c.n++
	if pass {
		c.pass++
		return
	}
	kind := "invalid"
	if test.Valid {
		kind = "valid"
	}
	var data bytes.Buffer
	if err := json.Compact(&data, test.Data); err != nil {
		data.Write(test.Data)
	}
	r.fails = append(r.fails, fmt.Sprintf("%s / %s [%s %s]: %s", sg.label(), test.Description, kind, abbreviate(data.String()), why))
}

// total sums the in-scope files.
func (r *report) total() (valid, invalid count) {
	for _, f := range r.files {
		if reason(r.scope, f) != "" {
			continue
		}
		valid.pass += r.valid[f].pass
		valid.n += r.valid[f].n
		invalid.pass += r.inv[f].pass
		invalid.n += r.inv[f].n
	}
	return valid, invalid
}

func (r *report) render(groups []*suiteGroup, skipped []string, compiled, validated int) string {
	var b strings.Builder
	perFile := map[string][3]int{} // groups, not typed, excluded
	for _, sg := range groups {
		x := perFile[sg.file]
		x[0]++
		if sg.untyped != nil {
			x[1]++
		}
		if sg.excluded != nil {
			x[2]++
		}
		perFile[sg.file] = x
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "file\tgroups\tnot typed\texcluded\tvalid passed\t%\tinvalid rejected\t%\t")
	for _, f := range r.files {
		if reason(r.scope, f) != "" {
			continue
		}
		x := perFile[f]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t\n", f, x[0], x[1], x[2], r.valid[f], pct(*r.valid[f]), r.inv[f], pct(*r.inv[f]))
	}
	v, inv := r.total()
	fmt.Fprintf(tw, "TOTAL (in scope)\t%d\t\t\t%s\t%s\t%s\t%s\t\n", len(groups), v, pct(v), inv, pct(inv))
	tw.Flush()
	fmt.Fprintf(&b, "targets: valid ≥ %.0f %%, invalid ≥ %.0f %%\n", 100*minValidRoundTrip, 100*minInvalidRejected)
	fmt.Fprintf(&b, "instances run through generated code: %d; of these, %d reached a Validate() method\n", compiled, validated)

	b.WriteString("\nout of scope (not counted):\n")
	keys := slices.Sorted(maps.Keys(r.scope))
	for _, k := range keys {
		var present []string
		for _, f := range r.files {
			if reason(map[string]string{k: ""}, f) != "" || f == k {
				present = append(present, f)
			}
		}
		state := "not shipped in this version of the suite"
		if len(present) > 0 {
			state = strings.Join(present, ", ")
		}
		fmt.Fprintf(&b, "  %-28s out of scope: %s [%s]\n", k, r.scope[k], state)
	}

	fmt.Fprintf(&b, "  single groups:\n%s\n", strings.Join(skipped, "\n"))

	var untyped, excluded []string
	for _, sg := range groups {
		switch {
		case sg.untyped != nil:
			untyped = append(untyped, "  "+sg.label()+": "+firstLine(sg.untyped.Error()))
		case sg.excluded != nil:
			excluded = append(excluded, "  "+sg.label()+": "+firstLine(sg.excluded.Error()))
		}
	}
	fmt.Fprintf(&b, "\nnot typed (the generator returned an error; every instance fails): %d\n", len(untyped))
	b.WriteString(strings.Join(untyped, "\n"))
	fmt.Fprintf(&b, "\n\nexcluded: the generated code does not type-check, or does not match the IR (every instance fails): %d\n", len(excluded))
	b.WriteString(strings.Join(excluded, "\n"))
	b.WriteString("\n")
	return b.String()
}

func (r *report) failures() string {
	return fmt.Sprintf("\nfailing instances: %d\n  %s\n", len(r.fails), strings.Join(r.fails, "\n  "))
}

func pct(c count) string {
	if c.n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", 100*c.ratio())
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return abbreviate(s)
}

func abbreviate(s string) string {
	const max = 160
	if r := []rune(s); len(r) > max {
		return string(r[:max]) + "…"
	}
	return s
}
