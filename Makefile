# The two commands a newcomer needs (see README.md):
#   make demo   export sqlite-explorer → generate its client → run the composer
#   make test   install the test servers from npm, vet, and run every test
# and the composing example (README "Composing servers"):
#   make demo-insights   export sqlite-explorer and server-memory → generate their
#                        clients → export the insights server built on them →
#                        generate its client → run the analyst, which starts
#                        insights over stdio and calls it
GO ?= go

.PHONY: demo demo-insights test deps golden

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

deps:
	$(GO) mod download
	npm ci --prefix testservers --no-audit --no-fund

test: deps
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt -l lists unformatted files:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...
	$(GO) test ./...

# Rewrite the golden packages after an intended generator change.
golden:
	$(GO) test ./golden -update

# Mutation testing (issue 14), kept out of CI: slow, one worker. go-gremlins
# mutates the packages whose own tests are fast (gen limited to gen.go and
# verify.go, its fail-closed core); internal/tools/mutate mutates
# composition's rule files and runs only the tests that cover them.
GREMLINS ?= $(GO) run github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0
UNLEASH = $(GREMLINS) unleash --workers 1 --timeout-coefficient 10

.PHONY: mutate
mutate:
	$(UNLEASH) ./internal/tooldiff
	$(UNLEASH) -E '(bundle|comment|format|locate|typeinfo)\.go' ./gen
	$(UNLEASH) ./internal/mcpconn
	$(GO) run ./internal/tools/mutate -file composition/registry.go -func '^CallTool$$' -run 'TestRegistry'
	$(GO) run ./internal/tools/mutate -file composition/serve.go -func 'handler|legacyListing|legacyRequest' -run 'TestServe|TestInProcess'
	$(GO) run ./internal/tools/mutate -file composition/pin.go -func 'comparePins|liveRoot|checkPin$$' -run 'TestPin'
