# The two commands a newcomer needs (see README.md):
#   make demo   export sqlite-explorer → generate its client → run the composer
#   make test   install the test servers from npm, check that go.mod is tidy,
#               vet, run every test (no
#               cached results; a skipped test fails), the concurrent packages
#               again under the race detector, and make demo on an empty
#               build cache, which must leave the work tree unchanged
# and the composing example (README "Composing servers"):
#   make demo-insights   export sqlite-explorer and server-memory → generate their
#                        clients → export the insights server built on them →
#                        generate its client → run the analyst, which starts
#                        insights over stdio and calls it
GO ?= go

.PHONY: demo demo-insights demo-cold test deps golden

demo:
	$(GO) generate ./examples/composer
	$(GO) run ./examples/composer

demo-insights: testservers/node_modules/.package-lock.json
	$(GO) generate ./examples/insights
	$(GO) generate ./examples/analyst
	$(GO) run ./examples/analyst

# npm writes node_modules/.package-lock.json on every install.
testservers/node_modules/.package-lock.json: testservers/package-lock.json
	npm ci --prefix testservers --no-audit --no-fund

# testservers/github-mcp-server is a nested Go module that pins
# github-mcp-server (a real server built on the official Go SDK) as a tool
# dependency, apart from this module's go.mod; golden's tests build it.
deps:
	$(GO) mod download
	cd testservers/github-mcp-server && $(GO) mod download
	npm ci --prefix testservers --no-audit --no-fund

# The packages whose tests run a second time under the race detector: those
# with concurrent code. composition: sessions, the registry (connect on first
# use, reconnect, retry), pins, serving; composition/gosdk: the wrapped
# go-sdk connection (results and notifications handed from go-sdk's reader
# goroutine to callers and pin checks); internal/mcpconn: the connection
# layer under it (loss tracking, SSE stream end, OAuth token refresh, stdio
# process groups); export: ExportAll's concurrent exports. The race detector
# needs cgo (CGO_ENABLED=1 and a C compiler).
RACE_PKGS = ./composition ./composition/gosdk ./internal/mcpconn ./export

# go test runs through testservers/tools/testrun: -json, output of failing and
# skipped tests only, and a failure when any test skipped. -count=1: no
# cached results, since many tests build or run code outside their import
# graph (example servers, the CLI), which the test cache does not track.
test: deps
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt -l lists unformatted files:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) mod tidy -diff
	cd examples/toolmodule && $(GO) mod tidy -diff
	cd testservers/github-mcp-server && $(GO) mod tidy -diff
	$(GO) vet ./...
	$(GO) run ./testservers/tools/testrun -count=1 ./...
	$(GO) run ./testservers/tools/testrun -race -count=1 $(RACE_PKGS)
	$(MAKE) --no-print-directory demo-cold

# make demo on an empty build cache (a new GOCACHE, removed afterwards): it
# must succeed and leave git status --porcelain as it was (empty on a fresh
# clone): the README says the demo gives the same files on a cold cache.
demo-cold:
	@before="$$(git status --porcelain; git diff HEAD | cksum)"; \
	cache="$$(mktemp -d)"; \
	echo "make demo with GOCACHE=$$cache (empty)"; \
	GOCACHE="$$cache" $(MAKE) --no-print-directory demo; status=$$?; \
	rm -rf "$$cache"; \
	test $$status -eq 0 || { echo "demo-cold: make demo failed on an empty build cache"; exit 1; }; \
	after="$$(git status --porcelain; git diff HEAD | cksum)"; \
	test "$$before" = "$$after" || { echo "demo-cold: make demo on an empty build cache changed the work tree:"; git status --porcelain; git diff --stat HEAD; exit 1; }; \
	echo "demo-cold: make demo on an empty build cache left the work tree unchanged"

# Rewrite the golden packages after an intended generator change.
golden:
	$(GO) test ./golden -update

# Mutation testing (issue 14), kept out of CI: slow, one mutant at a time.
# go-gremlins mutates internal/tooldiff, whose tests take milliseconds (its
# timeout comes from the coverage run, hence the large coefficient);
# testservers/tools/mutate mutates the rule files of the packages whose whole
# suite is too slow per mutant and runs only the tests that cover them
# (internal/mcpconn is mostly tested through composition). The kill rates
# and the survivors judged equivalent are in the notes of issue 14.
GREMLINS ?= $(GO) run github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0
MUTATE = $(GO) run ./testservers/tools/mutate

.PHONY: mutate
mutate:
	$(GREMLINS) unleash --workers 1 --timeout-coefficient 100 ./internal/tooldiff
	$(MUTATE) -file gen/verify.go -run .
	$(MUTATE) -file gen/gen.go -func '^packageFiles$$' -run .
	$(MUTATE) -file internal/mcpconn/httpdiag.go -func 'RoundTrip|limitBody|limitErr' -run .
	$(MUTATE) -file internal/mcpconn/httpdiag.go -func 'RoundTrip|limitBody' -pkg ./composition \
		-run 'TestMaxResponseBytes|TestBearerToken|TestOAuth|TestRedactHTTP|TestSSE|TestHTTPFallbackErrors|TestLostHTTP'
	$(MUTATE) -file composition/registry.go -func '^CallTool$$' -run 'TestRegistry'
	$(MUTATE) -file composition/serve.go -func 'handler|legacyListing|legacyRequest' -run 'TestServe'
	$(MUTATE) -file composition/bindimpl/served.go -func '^(Answer|Wraps)$$' -pkg ./composition -run 'TestServe'
	$(MUTATE) -file composition/gosdk/server.go -func 'legacyMeta|handler|callResult|objectSchema' \
		-run 'TestTypedFakeInMemory|TestPlainResults|TestServeRefusesBadTools|TestOwnToolsBesideRegister|TestServerValidationOptions'
	$(MUTATE) -file composition/pin.go -func 'comparePins|liveRoot' -run 'TestPinning'
