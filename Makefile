# Build and test pbuckets. See README.md.
GO ?= go

.PHONY: all build test example fuzz clean

all: build

build:
	$(GO) build -o bin/pbuckets ./cmd/pbuckets

test:
	$(GO) vet ./...
	$(GO) test -timeout 10m ./...

# Runs the small example end to end (seconds) and prints its delta bounds.
example:
	$(GO) run ./cmd/pbuckets run experiments/example.toml
	$(GO) run ./cmd/pbuckets show results/example/delta.parquet

# Fuzzes the manifest parser for a minute.
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzParseManifest -fuzztime 60s ./pipeline

clean:
	rm -rf bin
