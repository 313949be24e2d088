# The two commands a newcomer needs (see README.md):
#   make demo   export sqlite-explorer → generate its client → run the composer
#   make test   install the test servers from npm, vet, and run every test
GO ?= go

.PHONY: demo test deps golden

demo:
	$(GO) generate ./examples/composer
	$(GO) run ./examples/composer

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
