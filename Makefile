# Build and test pbuckets. See README.md.
GO ?= go
BIN := bin/pbuckets

.PHONY: all build test test-long lint deadcode-install test-slurm test-k8s example fuzz clean figures bench regress golden bench-peers bench-sweep synthetic-data reproduction-images searches sgd-sweep

all: build

build:
	$(GO) build -o bin/pbuckets ./cmd/pbuckets

# make test: vet and every package's tests. The engine's take about 370
# CPU-seconds on both cores (540 s wall at load 5-7), the other packages'
# about 230 (cmd/pbuckets, compare and pipeline/methods the most); the
# per-package timeout (15m) leaves room for a slow CI machine while .ci/run
# stays under 20 minutes on a normal one. make test-long adds the engine's
# long exhaustive variants (PB_LONG=1; engine/README.md, "Running the
# tests").
test:
	$(GO) vet ./...
	$(GO) test -timeout 15m ./...

test-long:
	PB_LONG=1 $(GO) test -timeout 60m ./engine

# A sweep on a real one-node Slurm cluster started in a temporary folder
# (scripts/slurm/test-cluster.sh; installs Debian's slurm-wlm and munge if
# missing): submit, a killed and a cancelled task, the finish step's
# report and rerun command, the repaired set equal to an unsharded run.
# 35-46 s on the 2-core machine (shared, load up to 9).
test-slurm:
	scripts/slurm/test-cluster.sh

# The Kubernetes manifests (scripts/k8s, with the settings apply.sh fills
# in) decoded strictly into the k8s.io/api types. A module of its own
# (scripts/k8s/check), so that k8s.io/api stays out of go.mod; the first
# run downloads it (19 modules, about 1 minute).
test-k8s:
	cd scripts/k8s/check && $(GO) test ./...

# staticcheck at a pinned version (go run fetches it through the module
# proxy; nothing is added to go.mod), then deadcode -test: no function
# unreachable from main or the tests. deadcode is installed at a pinned
# version by make deadcode-install (.ci/run does; go install puts it in
# $(go env GOPATH)/bin); it prints what it finds and exits 0, so the output
# decides.
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
DEADCODE_VERSION ?= v0.52.0
DEADCODE ?= $(shell $(GO) env GOPATH)/bin/deadcode
lint:
	$(GO) run $(STATICCHECK) ./...
	@out=$$($(DEADCODE) -test ./...) || exit 1; \
	if [ -n "$$out" ]; then echo "$$out"; echo "deadcode: unreachable functions above"; exit 1; fi

deadcode-install:
	$(GO) install golang.org/x/tools/cmd/deadcode@$(DEADCODE_VERSION)

# Runs the small example end to end (about a second once bin/pbuckets is
# built) and prints its delta bounds.
example: $(BIN)
	$(BIN) run experiments/example.toml
	$(BIN) show results/example/delta.parquet

# Fuzzes the manifest parser for a minute.
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 60s ./pipeline/manifest

clean:
	rm -rf bin $(filter-out results/golden results/.gitkeep,$(wildcard results/*)) results/.cache

# ---------------------------------------------------------------- figures
# make figures: every paper figure (manifests experiments/fig-N.toml; results,
# images and tables in results/fig-N/). make fig-N: one figure. Each step
# depends on its inputs (manifest, data files, the binary built from the Go
# sources), so a second run with nothing changed does no work. Composed
# states are cached in results/.cache and shared between figures.
GO_SOURCES := $(shell find cmd engine pipeline plots compare internal -name '*.go' -not -name '*_test.go' 2>/dev/null) go.mod go.sum
FIGURES := 1 2 3 11 12 13 14 15 16 17 18 19 19-continuous 20 21 22
DATA := $(wildcard experiments/data/*)
JOBS ?= 2

$(BIN): $(GO_SOURCES)
	$(GO) build -o $@ ./cmd/pbuckets

results/fig-%/.run: experiments/fig-%.toml $(BIN) $(DATA)
	$(BIN) run --quiet --jobs $(JOBS) --out results $<
	@touch $@

results/fig-%/.plot: results/fig-%/.run
	$(BIN) plot --quiet --out results experiments/fig-$*.toml
	@touch $@

# Figure 17's table reuses the conversation states of Figure 19 (cache).
results/fig-17/.run: results/fig-19/.run

.PRECIOUS: results/fig-%/.run results/fig-%/.plot

fig-%: results/fig-%/.plot
	@:

figures: $(addprefix fig-,$(FIGURES))

# Copies the PNG images into docs/figures/ for REPRODUCTION.md.
reproduction-images: figures
	mkdir -p docs/figures
	for n in $(FIGURES); do for f in results/fig-$$n/*.png; do [ -e $$f ] && cp $$f docs/figures/fig-$$n-$$(basename $$f); done; done; true
	cp results/fig-17/table.md docs/figures/fig-17-table.md

# ------------------------------------------------------ case studies (issue 6)
# make searches: the Vuvuzela noise searches of experiments/SEARCH.md (least
# noise meeting e^eps <= 2, delta <= 1e-4; minutes) and the originals.
# make sgd-sweep: the DP-SGD sigma x q sweep with its heat maps (about 6
# minutes on 2 cores; SWEEP=experiments/sgd-sweep-small.toml for a quick one).
SEARCHES := $(wildcard experiments/search-vuvuzela-*.toml)
SWEEP ?= experiments/sgd-sweep.toml

searches: $(BIN)
	$(BIN) search --jobs $(JOBS) --out results $(SEARCHES)
	$(BIN) run --quiet --jobs $(JOBS) --out results $(SEARCHES)

sgd-sweep: $(BIN)
	$(BIN) run --jobs $(JOBS) --out results $(SWEEP)
	$(BIN) plot --quiet --out results $(SWEEP)

# Regenerates the SYNTHETIC CoverUp stand-in histogram (deterministic).
synthetic-data:
	$(GO) run ./scripts/synthetic-coverup -out experiments/data/synthetic-coverup-histogram.csv

# ------------------------------------------------------- regression, bench
# make regress: re-runs the golden manifests (results/golden/*.toml, seconds)
# and fails when a bound moved by more than 1e-6 (relative) or crosses an
# exact value. make golden rewrites the golden files: review the diff.
regress:
	$(GO) run ./scripts/regress -golden results/golden

golden:
	$(GO) run ./scripts/regress -golden results/golden -update

# Engine benchmarks of the issue 2 goals (about a minute).
bench:
	$(GO) test -run '^$$' -bench 'Gauss512$$|Gauss65536$$|SGD65536' -benchtime 1x ./engine

# Issue 24's in-process table: pbuckets' engine (Go benchmark of Compose and
# the queries) beside dp_accounting's PLD (../shared/peers/inproc.py), CPU
# medians of REPS (5) interleaved runs; fetching the peer, Debian's Python
# packages and the builds are in scripts/bench/peers.sh's header (a few
# minutes on 2 cores). MATCHED=1 make bench-peers sets pbuckets' accuracy
# targets to dp_accounting's errors at its intervals (matched accuracy).
bench-peers:
	scripts/bench/peers.sh

# The 30-query DP-SGD sweep (scripts/bench/sweep30.toml) as one pbuckets
# process beside dp_accounting's one-process loop, CPU medians of REPS (3)
# interleaved runs and pbuckets' widest bracket; run bench-peers once first
# (it fetches the peer). About 2 minutes per repetition on 2 cores.
bench-sweep:
	scripts/bench/sweep.sh
