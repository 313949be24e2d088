package explorer

import "testing"

func TestSingleStatement(t *testing.T) {
	for query, single := range map[string]bool{
		"SELECT 1":                              true,
		"SELECT 1;":                             true,
		"SELECT 1; ;\n -- done\n /* really */ ": true,
		"SELECT ';' AS s":                       true,
		"SELECT 'it''s; fine'":                  true,
		`SELECT "a;b" FROM t`:                   true,
		"SELECT [a;b], `c;d` FROM t":            true,
		"SELECT 1 -- ; DELETE FROM t\n":         true,
		"SELECT 1 /* ; DELETE FROM t */":        true,
		"SELECT 1; DELETE FROM t":               false,
		"PRAGMA query_only=0;DELETE FROM t":     false,
		"SELECT 'x'';'; SELECT 2":               false,
		"SELECT 1; -- c\n SELECT 2":             false,
		"COMMIT; VACUUM INTO '/tmp/x'":          false,
	} {
		if err := singleStatement(query); (err == nil) != single {
			t.Errorf("singleStatement(%q) = %v, want single %v", query, err, single)
		}
	}
}
