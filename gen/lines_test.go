package gen

import (
	"bytes"
	"testing"
)

// BenchmarkGeneratedLines1000Tools reports the size of the package
// generated for the synthetic 1,000-tool bundle of
// BenchmarkGenerate1000Tools, in lines per tool (all files, as wc -l
// counts them), and the number of named types.
func BenchmarkGeneratedLines1000Tools(b *testing.B) {
	bun := syntheticTools(b, 1000)
	g, err := New()
	if err != nil {
		b.Fatal(err)
	}
	var lines, types int
	for b.Loop() {
		outs, err := g.Bundle(bun, Options{})
		if err != nil {
			b.Fatal(err)
		}
		lines, types = 0, len(outs[0].IR.Types)
		for _, f := range outs[0].Files {
			lines += bytes.Count(f.Content, []byte("\n"))
		}
	}
	b.ReportMetric(float64(lines)/1000, "lines/tool")
	b.ReportMetric(float64(types), "types")
}
