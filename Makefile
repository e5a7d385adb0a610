# One loop over every module of the workspace, in the manner of
# opentelemetry-go: each target runs in each module directory.
MODULES := $(shell find . -name go.mod -not -path '*/node_modules/*' -not -path '*/testdata/*' -exec dirname {} \; | sort)
GO ?= go

.PHONY: test fmt-check vet test-race test-standalone test-short bench build

## test: everything CI runs: formatting, vet, race tests, and each module on its own.
test: fmt-check vet test-race test-standalone

## fmt-check: fail when any Go file is not gofmt-formatted.
fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path '*/node_modules/*')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

vet:
	@set -e; for m in $(MODULES); do echo "== vet $$m"; (cd $$m && $(GO) vet ./...); done

test-race:
	@set -e; for m in $(MODULES); do echo "== test -race $$m"; (cd $$m && $(GO) test -race -count=1 ./...); done

## test-standalone: each module builds and passes its tests without the workspace.
test-standalone:
	@set -e; for m in $(MODULES); do echo "== GOWORK=off $$m"; (cd $$m && GOWORK=off $(GO) test -count=1 -short ./...); done

test-short:
	@set -e; for m in $(MODULES); do (cd $$m && $(GO) test -short ./...); done

## bench: every benchmark, once.
bench:
	@set -e; for m in $(MODULES); do (cd $$m && $(GO) test -run '^$$' -bench . -benchmem ./...); done

## build: the joshbot binary in ./bin.
build:
	$(GO) build -trimpath -ldflags "-s -w" -o bin/joshbot ./joshbot/cmd/joshbot
