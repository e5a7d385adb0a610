# One loop over every module of the workspace, in the manner of
# opentelemetry-go: each target runs in each module directory.
MODULES := $(shell find . -name go.mod -not -path '*/node_modules/*' -not -path '*/testdata/*' -exec dirname {} \; | sort)
GO ?= go

VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X github.com/joshbot/joshbot/joshbot/internal/cli.version=$(VERSION)
# The platforms the binary must build for: the $$10 boards (arm v7, arm64),
# servers, and the laptops people run it on.
PLATFORMS := linux/amd64 linux/arm64 linux/arm/7 darwin/arm64 windows/amd64

.PHONY: test fmt-check vet test-race test-standalone test-short bench bench-go build cross release deps-telegram
.PHONY: mcp-servers

## test: everything CI runs: formatting, vet, race tests, each module on its own, cross builds.
test: deps-telegram mcp-servers test-clients-deps deps-tmux fmt-check vet staticcheck test-race test-standalone release-check cross

## deps-telegram: the npm Bot API emulator (telegram-test-api) the Telegram tests drive, from its lock file.
deps-telegram:
	@if command -v npm >/dev/null 2>&1; then \
		cd channels/telegram/testdata/emulator && npm ci --no-audit --no-fund --loglevel=error; \
	else echo "npm not found: the Telegram emulator tests will be skipped"; fi

## deps-tmux: tmux from Debian's packages, for the real-terminal test of `joshbot agent`.
.PHONY: deps-tmux
deps-tmux:
	@if ! command -v tmux >/dev/null 2>&1; then \
		SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq tmux; \
	fi

## mcp-servers: install the real MCP servers the integration tests run, from the npm
## registry with the committed lock file (needs node and npm).
MCP_NPM_DIR := mcpclient/testdata/npm
mcp-servers:
	cd $(MCP_NPM_DIR) && npm ci --no-audit --no-fund --loglevel=error

## fmt-check: fail when any Go file is not gofmt-formatted.
fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path '*/node_modules/*')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

vet:
	@set -e; for m in $(MODULES); do echo "== vet $$m"; (cd $$m && $(GO) vet ./...); done

## staticcheck: honnef.co/go/tools' staticcheck over every module; any finding fails. The pinned
## version is installed into .bin/ (gitignored) when it is not there yet.
STATICCHECK_VERSION := v0.8.2
STATICCHECK := $(CURDIR)/.bin/staticcheck
.PHONY: staticcheck
staticcheck:
	@if ! $(STATICCHECK) -version 2>/dev/null | grep -qF '($(STATICCHECK_VERSION:v%=%))'; then \
		echo "== go install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)"; \
		GOBIN=$(CURDIR)/.bin $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION); \
	fi
	@fail=0; for m in $(MODULES); do echo "== staticcheck $$m"; (cd $$m && $(STATICCHECK) ./...) || fail=1; done; exit $$fail

test-race:
	@set -e; for m in $(filter-out ./release,$(MODULES)); do echo "== test -race $$m"; (cd $$m && $(GO) test -race -count=1 ./...); done

## test-standalone: each module builds and passes its tests without the workspace.
test-standalone:
	@set -e; for m in $(filter-out ./release,$(MODULES)); do echo "== GOWORK=off $$m"; (cd $$m && GOWORK=off $(GO) test -count=1 -short ./...); done

## test-clients-deps: the real clients the API tests drive: the openai and playwright-core npm
## packages from apiserver/testdata/js's lock file, and Debian's chromium when it is missing
## (CHROMIUM=/path/to/chrome uses another build instead).
.PHONY: test-clients-deps
API_JS := apiserver/testdata/js
test-clients-deps: $(API_JS)/node_modules/.installed
	@if [ -z "$$CHROMIUM" ] && [ ! -x /usr/bin/chromium ]; then \
		SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium; \
	fi
$(API_JS)/node_modules/.installed: $(API_JS)/package.json $(API_JS)/package-lock.json
	cd $(API_JS) && npm ci --no-audit --no-fund
	@touch $@

test-short:
	@set -e; for m in $(MODULES); do (cd $$m && $(GO) test -short ./...); done

## bench: the measured suite; writes bench/report.md, report.json and report.svg.
bench:
	$(GO) run ./bench/benchrun -out bench

## bench-go: every go test benchmark of every module, once.
bench-go:
	@set -e; for m in $(MODULES); do (cd $$m && $(GO) test -run '^$$' -bench . -benchmem ./...); done

# On linux/amd64 joshbot-sandbox is linked with sandbox/helper.Entry as its entry point, which makes
# the helper's namespaces before the Go runtime starts, so joshbot starts it without copying its own
# memory map (a helper without it still works, started the slower way). HELPER_ENTRY is that
# linker flag, passed only where GOARCH is amd64.
HELPER_ENTRY := -E github.com/joshbot/joshbot/sandbox/helper.Entry

# The linker variable that carries the Go build ID of joshbot-sandbox, the helper that confines
# each shell command on Linux: joshbot runs the helper beside it only when it is that very build.
HELPER_ID_VAR := github.com/joshbot/joshbot/joshbot/internal/runtime.helperBuildID

## build: the joshbot binary in ./bin, and on Linux its sandbox helper bin/joshbot-sandbox beside it.
build:
	@set -e; id=; if [ "$$($(GO) env GOOS)" = linux ]; then \
		entry=; [ "$$($(GO) env GOARCH)" = amd64 ] && entry="$(HELPER_ENTRY)"; \
		CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w $$entry" -o bin/joshbot-sandbox ./joshbot/cmd/joshbot-sandbox; \
		id=$$($(GO) tool buildid bin/joshbot-sandbox); \
	fi; \
	echo "CGO_ENABLED=0 $(GO) build -trimpath -ldflags \"$(LDFLAGS) -X $(HELPER_ID_VAR)=$$id\" -o bin/joshbot ./joshbot/cmd/joshbot"; \
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS) -X $(HELPER_ID_VAR)=$$id" -o bin/joshbot ./joshbot/cmd/joshbot

## cross: prove the binary and its sandbox helper compile for every supported platform.
cross:
	@set -e; for p in $(PLATFORMS); do \
		os=$${p%%/*}; rest=$${p#*/}; arch=$${rest%%/*}; arm=; if [ "$$arch" = arm ]; then arm=$${rest#*/}; fi; \
		echo "== build $$p"; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch GOARM=$$arm $(GO) build -trimpath -o /dev/null ./joshbot/cmd/joshbot; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch GOARM=$$arm $(GO) build -trimpath -o /dev/null ./joshbot/cmd/joshbot-sandbox; \
	done

## docker-check: build both Docker targets (default, minimal) for real and verify each image:
## version, non-root user, static binary, onboard into the /data volume, size. Not part of test:
## it needs a Docker engine (or root and dockerd: a private one is started) and, where Docker Hub
## is unreachable, builds local stand-ins for the base images (see deploy/docker-check.sh).
.PHONY: docker-check deps-docker
docker-check: deps-docker
	bash deploy/docker-check.sh

## deps-docker: Debian's docker.io when no engine answers and no dockerd is installed, and
## debootstrap for the stand-in build image (apt systems only).
deps-docker:
	@SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	if command -v apt-get >/dev/null 2>&1; then \
		pkgs=; \
		if ! docker info >/dev/null 2>&1 && ! command -v dockerd >/dev/null 2>&1; then pkgs="docker.io"; fi; \
		command -v debootstrap >/dev/null 2>&1 || pkgs="$$pkgs debootstrap"; \
		if [ -n "$$pkgs" ]; then \
			$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$pkgs; \
		fi; \
	fi

## release: static, stripped, versioned binaries for every platform, with SHA-256 sums, in ./dist;
## for Linux also joshbot-sandbox-<version>-<platform>, the helper to install as joshbot-sandbox
## beside joshbot.
release:
	@set -e; rm -rf dist; mkdir -p dist; for p in $(PLATFORMS); do \
		os=$${p%%/*}; rest=$${p#*/}; arch=$${rest%%/*}; arm=; if [ "$$arch" = arm ]; then arm=$${rest#*/}; fi; \
		plat=$(VERSION)-$$os-$$arch$${arm:+v$$arm}; name=joshbot-$$plat; [ "$$os" = windows ] && name=$$name.exe; \
		id=; if [ "$$os" = linux ]; then \
			echo "== joshbot-sandbox-$$plat"; \
			entry=; [ "$$arch" = amd64 ] && entry="$(HELPER_ENTRY)"; \
			CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch GOARM=$$arm $(GO) build -trimpath -ldflags "-s -w $$entry" -o dist/joshbot-sandbox-$$plat ./joshbot/cmd/joshbot-sandbox; \
			id=$$($(GO) tool buildid dist/joshbot-sandbox-$$plat); \
		fi; \
		echo "== $$name"; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch GOARM=$$arm $(GO) build -trimpath -ldflags "$(LDFLAGS) -X $(HELPER_ID_VAR)=$$id" -o dist/$$name ./joshbot/cmd/joshbot; \
	done; cd dist && sha256sum joshbot-* > SHA256SUMS; cat SHA256SUMS

## release-check: the publishing rehearsal and the guards (release/): versions.yaml lists every
## module, one go line everywhere, api/<module>.txt matches each module's exported API (and,
## against the last tag, incompatible changes carry a minor bump and additions are in the
## CHANGELOG), the release command works in a scratch clone, and one outside program per module
## builds and runs from a file-system module proxy with GOWORK=off and no replace, within the
## dependency budget recorded in release/testdata/deps.
.PHONY: release-check api-update release-modules
release-check:
	cd release && GOWORK=off $(GO) test -count=1 ./...

## api-update: re-record api/<module>.txt and release/testdata/deps/<module>.txt from the tree.
api-update:
	cd release && GOWORK=off $(GO) test -count=1 -run 'TestAPISnapshots|TestRehearsal' -update .

## release-modules: tag every module whose versions.yaml version is not tagged yet, after
## rewriting sibling requires and opening CHANGELOG headings. SET="sandbox=v0.2.0 ..." bumps first.
release-modules:
	$(GO) run ./release/cmd/release $(foreach s,$(SET),-set $(s))
