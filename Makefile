# padd developer entry points. GOTOOLCHAIN=local: this machine's Go is the one we build with.
export GOTOOLCHAIN := local
GO ?= go
BIN := bin

.PHONY: build run test test-short fuzz bench vet fmt dist

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

# Everything CI runs: vet, the race-enabled tests (unit, end-to-end with the real
# binaries), the memory bounds the race detector would take minutes over (they skip
# under -race), and a short pass of every fuzz target.
test: vet
	$(GO) test -race -count=1 ./...
	$(GO) test -count=1 -run 'IndexedInBoundedMemory' ./searchindex
	./scripts/fuzz-short.sh

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1)

fuzz:
	FUZZTIME=$${FUZZTIME:-60s} ./scripts/fuzz-short.sh

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Release files in dist/: archives, .deb/.rpm, Homebrew formula, SHA256SUMS (packaging/dist,
# docs/SERVICE.md). Version from git; not part of make test, which tests the pieces only.
dist:
	$(GO) run ./packaging/dist -out dist
