# padd developer entry points. GOTOOLCHAIN=local: this machine's Go is the one we build with.
export GOTOOLCHAIN := local
GO ?= go
BIN := bin

.PHONY: build run test test-short fuzz bench vet cross fmt dist

# padtray (the tray app, docs/TRAY.md) is pure Go on Linux (D-Bus) and Windows, so `build`
# makes it there, and GOOS=windows $(GO) build ./cmd/padtray cross-compiles it (a test does).
# On macOS, fyne.io/systray needs cgo: build on a Mac with Xcode's command line tools
# (CGO_ENABLED=1, the default there); it does not cross-compile from Linux without a macOS SDK.
build:
	$(GO) build -o $(BIN)/ ./cmd/...

# Builds and runs the daemon in the foreground on your padd's data: the directory padctl
# finds too (PAD_HOME when set, as `make run PAD_HOME=dir` sets it, else the per-user one),
# so padctl reaches this padd and starts no second one.
run: build
	$(BIN)/padd

# Everything CI runs: vet (here, and for Windows and macOS: cross), the race-enabled tests
# (unit, end-to-end with the real binaries), the memory bounds the race detector would take
# minutes over (they skip under -race), and a short pass of every fuzz target.
test: vet cross
	$(GO) test -race -count=1 ./...
	$(GO) test -count=1 -run 'IndexedInBoundedMemory|HeaviestRotationInBoundedMemory' ./searchindex ./daemon
	./scripts/fuzz-short.sh

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1)

# Every desktop: each package, its tests included, type-checks and vets for Windows and macOS
# on amd64 and arm64 (go vet type-checks the test files too, without linking a test binary per
# package; the results are cached, so only what changed is vetted again). CGO_ENABLED=0, as a
# cross build from Linux has no macOS SDK; so on darwin the tray (tray, cmd/padtray) is left
# out: fyne.io/systray needs cgo there (the padtray note above).
CROSS := windows/amd64 windows/arm64 darwin/amd64 darwin/arm64
cross:
	@for t in $(CROSS); do \
		os=$${t%/*}; arch=$${t#*/}; echo "vet GOOS=$$os GOARCH=$$arch"; \
		pkgs=$$(GOOS=$$os GOARCH=$$arch CGO_ENABLED=0 $(GO) list ./...) || exit 1; \
		[ $$os != darwin ] || pkgs=$$(echo "$$pkgs" | grep -v -e '/tray$$' -e '/cmd/padtray$$'); \
		GOOS=$$os GOARCH=$$arch CGO_ENABLED=0 $(GO) vet $$pkgs || exit 1; \
	done

fuzz:
	FUZZTIME=$${FUZZTIME:-60s} ./scripts/fuzz-short.sh

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Release files in dist/: archives, .deb/.rpm, Homebrew formula, SHA256SUMS (packaging/dist,
# docs/SERVICE.md). Version from git; not part of make test, which tests the pieces only.
dist:
	$(GO) run ./packaging/dist -out dist
