#!/bin/sh
# Reference comparisons for mcpbind's speed targets; see bench/README.md.
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${WORK:-${TMPDIR:-/tmp}/mcpbind-bench}
runs=${RUNS:-5}
mkdir -p "$work/bin" "$work/gh" "$work/brave" "$work/schemas"
bin=$work/bin

# --- install the references ------------------------------------------------
if [ ! -x "$bin/github-mcp-server" ]; then
	(cd "$work/gh" && [ -f go.mod ] || (cd "$work/gh" && go mod init throwaway >/dev/null 2>&1))
	cat >"$work/gh/tools.go" <<'GO'
//go:build tools

package tools

import _ "github.com/github/github-mcp-server/cmd/github-mcp-server"
GO
	(cd "$work/gh" && go get github.com/github/github-mcp-server/cmd/github-mcp-server@v1.9.0 &&
		go build -o "$bin/github-mcp-server" github.com/github/github-mcp-server/cmd/github-mcp-server)
fi
[ -x "$bin/go-jsonschema" ] || GOBIN=$bin go install github.com/atombender/go-jsonschema@v0.24.1
[ -d "$work/brave/node_modules/@brave/brave-search-mcp-server" ] ||
	(cd "$work/brave" && npm init -y >/dev/null && npm install --no-audit --no-fund @brave/brave-search-mcp-server@2.1.4 >/dev/null)
(cd "$repo" && go build -o "$bin/mcpbind" ./cmd/mcpbind && go build -o "$bin/barelist" ./bench/barelist &&
	go run ./bench/synth -n 1000 -o "$work/synth1000.json" -schemas "$work/schemas" &&
	go run ./bench/synth -n 10000 -o "$work/synth10000.json")

# --- timing: median wall seconds of $runs runs after one warm-up -----------
median() { # command...
	"$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
	i=0
	while [ $i -lt "$runs" ]; do
		s=$(date +%s.%N)
		"$@" >/dev/null 2>&1
		e=$(date +%s.%N)
		echo "$e - $s" | bc
		i=$((i + 1))
	done | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}
ratio() { echo "scale=3; $1 / $2" | bc; }

export GITHUB_PERSONAL_ACCESS_TOKEN=x BRAVE_API_KEY=x

gen1000=$(median "$bin/mcpbind" generate "$work/synth1000.json" -o "$work/out1000")
gen10000=$(median "$bin/mcpbind" generate "$work/synth10000.json" -o "$work/out10000")
gojs=$(median sh -c "cd '$work/schemas' && '$bin/go-jsonschema' -p refs -o '$work/gojs.go' *.json")
echo "generate 1,000 tools:   ${gen1000}s   go-jsonschema on their 1,000 input schemas: ${gojs}s   ratio $(ratio "$gen1000" "$gojs") (target <= 0.5)"
echo "generate 10,000 tools:  ${gen10000}s   ratio to 1,000: $(ratio "$gen10000" "$gen1000") (target <= 10.5)"

exp=$(median "$bin/mcpbind" export -o "$work/github.json" -- "$bin/github-mcp-server" stdio --toolsets=all)
bare=$(median "$bin/barelist" "$bin/github-mcp-server" stdio --toolsets=all)
echo "export github-mcp-server: ${exp}s   bare mcp-go list: ${bare}s   ratio $(ratio "$exp" "$bare") (target <= 1.5)"

"$bin/mcpbind" export -o "$work/brave.json" -- node "$work/brave/node_modules/@brave/brave-search-mcp-server/dist/index.js"
echo "brave bundle: $work/brave.json"

mkdir -p "$work/ghmod"
"$bin/mcpbind" generate "$work/github.json" -o "$work/ghmod"
pkg=$(ls "$work/ghmod")
printf 'module ghbench\n\ngo 1.26\n\nrequire github.com/mcpbind/mcpbind v0.0.0\n\nreplace github.com/mcpbind/mcpbind => %s\n' "$repo" >"$work/ghmod/go.mod"
(cd "$work/ghmod" && cp "$repo/go.sum" . && go mod tidy >/dev/null 2>&1 && go build "./$pkg")
lines=$(cat "$work/ghmod/$pkg"/*.go | wc -l)
# Warm cache for the dependencies; the package itself is recompiled each run
# (a comment appended to one of its files changes its content hash).
build=$(median sh -c "cd '$work/ghmod' && echo \"// \$(date +%N)\" >>$pkg/schemas.go && go build ./$pkg")
echo "go build of the github package, warm cache: ${build}s (target <= 1)   lines: $lines"
