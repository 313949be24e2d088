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

# Mutation testing (issue 14), kept out of CI: slow, one mutant at a time.
# go-gremlins mutates internal/tooldiff, whose tests take milliseconds (its
# timeout comes from the coverage run, hence the large coefficient);
# internal/tools/mutate mutates the rule files of the packages whose whole
# suite is too slow per mutant and runs only the tests that cover them
# (internal/mcpconn is mostly tested through composition). The kill rates
# and the survivors judged equivalent are in the notes of issue 14.
GREMLINS ?= $(GO) run github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0
MUTATE = $(GO) run ./internal/tools/mutate

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
	$(MUTATE) -file composition/pin.go -func 'comparePins|liveRoot' -run 'TestPinning'
