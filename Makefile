# The one test command of the README and of CI. It does its own set-up on
# a fresh machine: Go modules, the pinned npm packages of the interop
# tests (from interop/package-lock.json), the public servers of the
# real-world check (testdata/realworld/package-lock.json; no install
# script of theirs runs) and Debian's chromium for the browser tests of
# the HTML reports (installed with apt-get only when missing; CI runs as
# root).
.PHONY: test deps build bench compare-ts fmt-check vet

GO ?= go

test: deps
	$(GO) test -race -count=1 ./...
	$(GO) test -count=1 -timeout 20m -run 'Proof' ./internal/bench/
	$(GO) test -count=1 -run 'TestTextModel(IsTrainedFromRegisters|CrossValidation)$$' ./internal/scan/

# npm ci runs when node_modules was not installed from the current lockfile
# (a copy of the lockfile inside node_modules records the last install), so
# a second `make test` does not reinstall 3 GB of unchanged packages.
deps:
	$(GO) mod download
	cd interop && { cmp -s package-lock.json node_modules/.installed-lock.json || \
		{ npm ci --no-audit --no-fund --loglevel=error && cp package-lock.json node_modules/.installed-lock.json; }; }
	cd testdata/realworld && { cmp -s package-lock.json node_modules/.installed-lock.json || \
		{ npm ci --ignore-scripts --no-audit --no-fund --loglevel=error && cp package-lock.json node_modules/.installed-lock.json; }; }
	@command -v chromium >/dev/null 2>&1 || { \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; }

build:
	$(GO) build -o bin/mcpsec ./cmd/mcpsec

bench: deps
	$(GO) test -run '^$$' -bench . -benchmem ./...

# mcpsec's MCP client against the official TypeScript SDK client, in one
# run, against the same servers (the TS SDK's server-everything and the
# go-sdk server of `mcpsec fixture serve`): calls/s of each and the ratio.
compare-ts: deps
	$(GO) test -run '^$$' -bench SameServerVsTS -benchtime 1x -v ./internal/mcpconn/clitest/

vet:
	$(GO) vet ./...

fmt-check:
	@out="$$(git ls-files -z '*.go' | xargs -0 gofmt -l)"; if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
