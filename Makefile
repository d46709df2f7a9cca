# kspatch — see README.md. Every target builds what it needs that is missing.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

OUT        := $(CURDIR)/_output
BIN        := $(OUT)/bin
TREE       := $(OUT)/kubernetes
VANILLA    := $(OUT)/kubernetes-vanilla
IMAGE_OUT  := $(OUT)/image
export PATH := $(BIN):$(PATH)
# Every go command (tests too) builds with -trimpath. Without it, a package's
# entry in the Go build cache depends on the directory it was compiled in, so
# a clone of the project in another folder (as CI makes one after each
# session) compiled the whole patched tree again. docs/ci.md has the figures.
# (go env GOFLAGS: the flags already in force, from the environment or from
# the go env file, which an exported GOFLAGS would otherwise override.)
export GOFLAGS := $(strip $(filter-out -trimpath,$(shell go env GOFLAGS 2>/dev/null)) -trimpath)
# With -trimpath, kube-apiserver's test server (cmd/kube-apiserver/app/testing,
# which the integration tests start) cannot find its testdata through
# runtime.Caller, and looks under Bazel's TEST_SRCDIR/TEST_WORKSPACE instead:
# make upstream links $(OUT)/srcroot/k8s.io/kubernetes to the patched tree.
export TEST_SRCDIR := $(OUT)/srcroot
export TEST_WORKSPACE := .
# A -trimpath binary has no GOROOT of its own (runtime.GOROOT is empty unless
# GOROOT is set), and go/build then cannot find packages: tests that read Go
# sources (scheduler/deploy's CRD-against-Go-types check) need it set.
export GOROOT := $(shell go env GOROOT 2>/dev/null)

# Version stamping (k8s.io/component-base/version): VERSION holds the release
# name; commit, tree state and date are the project checkout's. The date is
# the commit's, so the same commit always builds the same binary and image
# (docs/releases.md says what else reproducible builds rest on).
KSPATCH_VERSION := $(shell cat VERSION)
BASE_VERSION    := $(shell sed -n 's/^version //p' patches/BASE)
GIT_COMMIT      := $(shell git rev-parse -q --verify HEAD 2>/dev/null || echo unknown)
GIT_TREE_STATE  := $(shell if [ -z "$$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then echo clean; else echo dirty; fi)
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
BUILD_DATE      := $(shell date -u -d @$(SOURCE_DATE_EPOCH) +%Y-%m-%dT%H:%M:%SZ)
# $(call version_ldflags,VERSION,COMMIT,TREE_STATE,DATE): -s -w and the -X
# flags of both version packages. The arguments may be shell expansions
# ($$commit) when the value is only known inside a recipe.
version_ldflags = -s -w $(foreach pkg,k8s.io/component-base/version k8s.io/client-go/pkg/version,\
	-X $(pkg).gitVersion=$(1) -X $(pkg).gitCommit=$(2) -X $(pkg).gitTreeState=$(3) -X $(pkg).buildDate=$(4) \
	-X $(pkg).gitMajor=$(word 1,$(subst ., ,$(patsubst v%,%,$(1)))) -X $(pkg).gitMinor=$(word 2,$(subst ., ,$(patsubst v%,%,$(1)))))
LDFLAGS := $(call version_ldflags,$(KSPATCH_VERSION),$(GIT_COMMIT),$(GIT_TREE_STATE),$(BUILD_DATE))
# Every Go build of a shipped binary: static, no file system paths in the
# binary (-trimpath, which also keeps one variant of each package in the Go
# build cache), no VCS stamp from the go command (the ldflags carry it).
GOBUILD_FLAGS := CGO_ENABLED=0 go build -trimpath -buildvcs=false
GOBUILD := $(GOBUILD_FLAGS) -ldflags '$(LDFLAGS)'

# Upstream's unit tests of the scheduler on the patched tree.
# k8s.io/dynamic-resource-allocation/structured: the DRA allocator, a staging
# module the dra-speed block edits (tested by import path: it is its own module).
# The longest packages first (go test starts them in the order given, a
# package named twice runs once), so that none of them runs on alone at the
# end.
UPSTREAM_TEST_PKGS ?= ./pkg/scheduler ./pkg/scheduler/framework/plugins/volumebinding ./pkg/scheduler/backend/queue \
	./pkg/scheduler/... ./cmd/kube-scheduler/... k8s.io/dynamic-resource-allocation/structured
# Unit test binaries mostly wait (timers, fake clocks' goroutines): two at a
# time kept the 2 CPUs 44 % busy (docs/ci.md); four keep them busier.
UNIT_FLAGS ?= -p 4
# The gate modes the upstream unit and integration runs use (scripts/test-go):
# default = the series' defaults; off = every kspatch gate off.
GATE_MODES ?= default off
TESTTABLE := cd $(CURDIR)/scripts/testtable && GOWORK=off go run .

.PHONY: help
help: ## list the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/^([a-z0-9-]+):.*## /  make \1\t/' | expand -t 24

##@ Series
.PHONY: upstream patches verify-patches
upstream: ## fetch the pinned release into _output/kubernetes and apply patches/
	scripts/upstream
	@mkdir -p $(OUT)/srcroot/k8s.io && ln -sfn $(TREE) $(OUT)/srcroot/k8s.io/kubernetes

patches: ## export the commits in _output/kubernetes back into patches/
	scripts/export-patches

verify-patches: upstream ## the series applies to a pristine tree and equals patches/, and every patch carries its trailers
	scripts/verify-patches

##@ Build
.PHONY: build build-vanilla image tools
build: upstream ## _output/bin/kube-scheduler from the patched tree, and the kubectl plugin kubectl-kspatch
	cd scheduler && $(GOBUILD) -o $(BIN)/kube-scheduler ./cmd/kube-scheduler
	cd kubectl-kspatch && GOWORK=off $(GOBUILD) -o $(BIN)/kubectl-kspatch .
	@$(BIN)/kube-scheduler --version

build-vanilla: ## _output/bin/kube-scheduler-vanilla from the unpatched release
	@if [ ! -f $(VANILLA)/go.mod ]; then source scripts/lib.sh && read_base patches/BASE && \
		make_tree $(VANILLA) $$BASE_MODULE $$BASE_VERSION $$BASE_SUM; fi
	@# Stamped as the plain upstream release, with the vanilla tree's own commit, state and date.
	cd $(VANILLA) && commit=$$(git rev-parse HEAD) && date=$$(date -u -d @$$(git log -1 --format=%ct) +%Y-%m-%dT%H:%M:%SZ) && \
		state=$$(if [ -z "$$(git status --porcelain --untracked-files=no)" ]; then echo clean; else echo dirty; fi) && \
		GOWORK=off $(GOBUILD_FLAGS) -ldflags "$(call version_ldflags,$(BASE_VERSION),$$commit,$$state,$$date)" \
		-o $(BIN)/kube-scheduler-vanilla ./cmd/kube-scheduler
	@$(BIN)/kube-scheduler-vanilla --version

image: build ## OCI image (layout and tarball) in _output/image, no container engine
	cd scheduler/image && GOWORK=off go run . --binary $(BIN)/kube-scheduler --out $(IMAGE_OUT) \
		--version $(KSPATCH_VERSION) --revision $(GIT_COMMIT) --created $(BUILD_DATE)

##@ Release (docs/releases.md)
.PHONY: release-cut release release-artifacts
RELEASE_DIR ?= $(OUT)/release
release-cut: ## set VERSION and move CHANGELOG.md's Unreleased entries under it, to commit (RELEASE=v1.33.13-kspatch.N)
	@if [ -z "$(RELEASE)" ]; then echo "error: say which release: make release-cut RELEASE=$(BASE_VERSION)-kspatch.N" >&2; exit 2; fi
	scripts/release cut '$(RELEASE)'

release: upstream ## build the committed VERSION from a clean tree into _output/release, with SHA256SUMS; prints the digests
	scripts/release build $(RELEASE_DIR)

# The artifacts alone, into RELEASE_DIR (scripts/release runs it, after its checks).
release-artifacts:
	@mkdir -p $(RELEASE_DIR) && rm -rf $(RELEASE_DIR)/.image
	cd scheduler && $(GOBUILD) -o $(RELEASE_DIR)/kube-scheduler ./cmd/kube-scheduler
	cd kubectl-kspatch && GOWORK=off $(GOBUILD) -o $(RELEASE_DIR)/kubectl-kspatch .
	cd scheduler/image && GOWORK=off go run . --binary $(RELEASE_DIR)/kube-scheduler --out $(RELEASE_DIR)/.image \
		--version $(KSPATCH_VERSION) --revision $(GIT_COMMIT) --created $(BUILD_DATE)
	mv $(RELEASE_DIR)/.image/kube-scheduler.oci.tar $(RELEASE_DIR)/ && rm -rf $(RELEASE_DIR)/.image

tools: upstream ## etcd for integration tests and the local control plane
	scripts/build-tools

##@ Run
.PHONY: run run-plan stop run-against cluster-bins
RUN_ARGS ?=
PROMETHEUS ?= 0
run: run-plan build tools cluster-bins ## local control plane (etcd, kube-apiserver, controller-manager, kwok nodes) + patched scheduler + demo; Ctrl-C or make stop stops it (RUN_ARGS='-nodes 30', PROMETHEUS=1)
	cd e2e && go build -o $(BIN)/localup ./cmd/localup
	@# kubectl, to look at the cluster (the tests do not need it).
	cd $(TREE) && go build -o $(BIN)/kubectl ./cmd/kubectl
	@prom=; if [ "$(PROMETHEUS)" = 1 ]; then prom=$$(scripts/ensure-prometheus) || exit 1; fi; \
	set -x; exec $(BIN)/localup -dir $(OUT)/cluster -bin $(BIN) -deploy $(CURDIR)/scheduler/deploy $${prom:+-prometheus $$prom} $(RUN_ARGS)

# make run's first prerequisite: the build steps ahead, and how long they take.
run-plan:
	@big=; small=; echo "make run: build steps (each only builds what changed), then the control plane starts:"; \
	for step in "big|$(TREE)/go.mod|the patched tree (make upstream)" "big|$(BIN)/kube-scheduler|kube-scheduler (make build)" \
		"small|$(BIN)/etcd|etcd (make tools)" "big|$(BIN)/kube-apiserver|kube-apiserver (make cluster-bins)" \
		"big|$(BIN)/kube-controller-manager|kube-controller-manager (make cluster-bins)" "small|$(BIN)/kwok|kwok (make cluster-bins)" \
		"small|$(BIN)/kubectl|kubectl" "small|$(BIN)/localup|localup, the harness"; do \
		IFS='|' read -r size file what <<<"$$step"; \
		if [ -e "$$file" ]; then state=present; else state="MISSING: built now"; if [ $$size = big ]; then big=1; else small=1; fi; fi; \
		printf '  %-48s %s\n' "$$what" "$$state"; done; \
	if [ -n "$$big" ]; then echo "  estimate: about 9 minutes on 2 cores the first time (empty Go caches; less with more cores)"; \
	elif [ -n "$$small" ]; then echo "  estimate: a few minutes at most"; \
	else echo "  estimate: about a minute to check and relink, then about 10 seconds to start"; fi

stop: ## stop a make run going in the background or another shell (its PID is in _output/cluster.pid); waits until it has stopped
	@cd e2e && go build -o $(BIN)/localup ./cmd/localup
	@$(BIN)/localup -stop -dir $(OUT)/cluster

run-against: build ## the patched scheduler against the cluster in KUBECONFIG
	@if [ -z "$${KUBECONFIG:-}" ]; then \
		echo "error: KUBECONFIG is not set. 'make run-against' starts the patched scheduler against the cluster in \$$KUBECONFIG:" >&2; \
		echo "  KUBECONFIG=/path/to/admin.kubeconfig make run-against   (or 'make run' for a local control plane)" >&2; exit 2; fi
	@if [ ! -r "$$KUBECONFIG" ]; then echo "error: KUBECONFIG=$$KUBECONFIG is not a readable file" >&2; exit 2; fi
	$(BIN)/kube-scheduler --kubeconfig "$$KUBECONFIG" --authentication-kubeconfig "$$KUBECONFIG" \
		--authorization-kubeconfig "$$KUBECONFIG" --leader-elect=false $(SCHEDULER_ARGS)

cluster-bins: upstream ## kube-apiserver, kube-controller-manager (patched tree) and kwok in _output/bin (make run adds kubectl)
	scripts/build-cluster

##@ Benchmark
BENCH_ARGS ?=
.PHONY: bench
bench: tools ## vanilla vs patched scheduler_perf workloads in one run (BENCH_ARGS='-sizes 1000 -reps 3')
	cd bench && GOWORK=off go run . -root $(CURDIR) $(BENCH_ARGS)

##@ Test
.PHONY: test test-modules test-upstream test-race test-integration-upstream test-integration test-dashboards test-e2e test-scripts test-image drop-rehearsal
TEST_STAGES := verify-patches test-modules test-upstream test-race test-integration-upstream test-dashboards test-e2e test-scripts test-image
# CI's gates-off integration run: the packages that exercise code the series
# changes (docs/conformance.md says which and why); make
# test-integration-upstream alone runs every package in both modes.
# Longest first (see INTEGRATION_PKGS).
CI_INTEGRATION_OFF_PKGS := ./test/integration/scheduler/queueing/queueinghint ./test/integration/scheduler/preemption \
	./test/integration/scheduler/plugins ./test/integration/scheduler/queueing/former ./test/integration/scheduler/apiqueue \
	./test/integration/scheduler ./test/integration/scheduler/prequeueinghint ./test/integration/scheduler/queueing/... \
	./test/integration/scheduler/eventhandler ./test/integration/scheduler/serving ./test/integration/scheduler/extender \
	./test/integration/scheduler/bind ./test/integration/dra
CI_PERF_OFF_PKGS := ./test/integration/scheduler_perf/dra ./test/integration/scheduler_perf/misc
test: ## everything CI runs, stage by stage; prints every stage's seconds
	INTEGRATION_OFF_PKGS='$(CI_INTEGRATION_OFF_PKGS)' PERF_OFF_PKGS='$(CI_PERF_OFF_PKGS)' scripts/run-stages $(TEST_STAGES)

test-modules: upstream tools ## gofmt, go vet and unit tests of the kspatch modules (the secure-port test needs etcd)
	@# gofmt: the kspatch modules and every Go file the series adds or changes.
	@unformatted=$$(gofmt -l adminapi bench dashboards e2e kubectl-kspatch scheduler scripts; \
		cd $(TREE) && git diff --name-only --diff-filter=AM kspatch/fixup HEAD -- '*.go' | xargs -r gofmt -l); \
		if [ -n "$$unformatted" ]; then echo "gofmt -l reports:"; echo "$$unformatted"; exit 1; fi
	cd adminapi && go vet ./... && go test -race -count=1 ./...
	cd e2e && go vet ./...
	# The scheduler module links the whole scheduler: tested without -race here;
	# test-race covers the patched packages it reads.
	cd scheduler && go vet ./... && KSPATCH_REQUIRE_ETCD=1 go test -count=1 ./...
	cd scheduler/image && GOWORK=off go vet ./... && GOWORK=off go test -race -count=1 ./...
	cd bench && GOWORK=off go vet ./... && GOWORK=off go test -race -count=1 ./...
	cd scripts/testtable && GOWORK=off go vet ./... && GOWORK=off go test -race -count=1 ./...
	@# The kubectl plugin: its own module, outside the workspace, on k8s.io/api v0.37 (convert writes v1beta1 PodGroups).
	cd kubectl-kspatch && GOWORK=off go vet ./... && GOWORK=off go test -race -count=1 ./...

test-upstream: upstream ## upstream's scheduler unit tests on the patched tree, gates at their defaults and all off
	@rm -f $(OUT)/test-tables/unit.tsv
	@for mode in $(GATE_MODES); do scripts/test-go $$mode unit $(UNIT_FLAGS) $(UPSTREAM_TEST_PKGS) || exit 1; done
	@$(TESTTABLE) -print $(OUT)/test-tables/unit.tsv

# The kspatch tests of the series' packages, with the race detector.
RACE_TESTS := SliceCache|SelectorResults|MembersBeyondMinCount|MembersPreemptingAlone|GracefulStop|PreemptorWaitsForItsVictims|PreemptorSeesItsQueuedNomination|PassesOverFullNodes|FitClass|PodGroupPreemption|PreemptedWhole|PreemptionCandidate|VictimMarks|Levels|NarrowToDomains|PreQueueingHint|MovedByFlush|RejectorIndex|Snapshot|ClaimPodIndex|FailureSummary|PodGroup|Placement|GangBinds|SatisfiedGang|BackgroundWork|APICaller|QueuedCopy|HandleSchedulingFailureAsync|FailureHandlerBuildsTheMessageOnce|LoseTheirNomination|MembersArriving|Breakit2|KeptMessage|LeavingIsForgotten|UnfitRecord|Coscheduling|MinResources|PodNamingTwoGroups
test-race: upstream ## the series' own unit tests with the race detector
	cd $(TREE) && go test -race -count=1 -run '$(RACE_TESTS)' ./pkg/scheduler/backend/queue/ \
		./pkg/scheduler/framework/plugins/dynamicresources/ ./pkg/scheduler/framework/ ./pkg/scheduler/ \
		./pkg/scheduler/framework/plugins/defaultpreemption/ ./pkg/scheduler/framework/preemption/ k8s.io/dynamic-resource-allocation/structured
	cd $(TREE) && go test -race -count=1 -run 'TestLeaseLost|TestNoRunAfter' ./cmd/kube-scheduler/app/
	cd $(TREE) && go test -race -count=1 ./pkg/scheduler/backend/apiqueue/ ./pkg/scheduler/framework/plugins/defaultbinder/ \
		./pkg/scheduler/backend/podgroup/ ./pkg/scheduler/framework/plugins/topologyplacement/ \
		./pkg/scheduler/framework/plugins/podgroupcount/
	cd $(TREE) && go test -race -count=1 -run 'Placement' ./pkg/scheduler/framework/runtime/ ./pkg/scheduler/framework/plugins/noderesources/

# Upstream's scheduler integration suite (the series' own packages apiqueue,
# podgroup and prequeueinghint are part of it) and scheduler_perf's
# integration-test workloads, on the patched tree, in every gate mode (etcd
# from make tools, on PATH). INTEGRATION_OFF_PKGS / PERF_OFF_PKGS narrow the
# gates-off run; docs/conformance.md says what CI runs and why.
# go test starts the packages in the order given (a package named twice
# runs once), -p at a time: the longest ones (by the seconds in
# _output/test-tables/integration.tsv) come first, so that none of them
# starts last and runs on alone at the end.
INTEGRATION_PKGS ?= ./test/integration/scheduler/podgroup ./test/integration/scheduler/queueing/queueinghint \
	./test/integration/scheduler/filters ./test/integration/scheduler/preemption ./test/integration/scheduler/queueing/former \
	./test/integration/scheduler/plugins ./test/integration/scheduler/scoring ./test/integration/scheduler/apiqueue \
	./test/integration/scheduler/... ./test/integration/dra
PERF_PKGS ?= ./test/integration/scheduler_perf/affinity ./test/integration/scheduler_perf/misc \
	./test/integration/scheduler_perf/...
INTEGRATION_OFF_PKGS ?= $(INTEGRATION_PKGS)
PERF_OFF_PKGS ?= $(PERF_PKGS)
# Integration tests wait on the API server more than they compute: four
# packages at a time keep 2 cores busy (a package that fails is retried once
# on its own, see scripts/test-go).
INTEGRATION_FLAGS ?= -timeout 40m -p 4
# scheduler_perf's workloads: three packages at a time in each gate mode,
# both modes at once (see test-integration-upstream).
PERF_FLAGS ?= -timeout 40m -p 3
test-integration-upstream: tools ## upstream's scheduler integration suite and scheduler_perf's test workloads, gates default and off
	@rm -f $(OUT)/test-tables/integration.tsv
	@for mode in $(GATE_MODES); do \
		if [ $$mode = off ]; then pkgs="$(INTEGRATION_OFF_PKGS)"; else pkgs="$(INTEGRATION_PKGS)"; fi; \
		scripts/test-go $$mode integration $(INTEGRATION_FLAGS) $$pkgs || exit 1; \
	done
	@# scheduler_perf: the gate modes at the same time, each line prefixed
	@# with its mode. A test binary keeps about half a core busy (each
	@# workload starts its own etcd, API server and scheduler and waits on
	@# them), so one mode after the other left the CPUs idle (docs/ci.md).
	@pids=; for mode in $(GATE_MODES); do \
		if [ $$mode = off ]; then perf="$(PERF_OFF_PKGS)"; else perf="$(PERF_PKGS)"; fi; \
		[ -n "$$perf" ] || continue; \
		(set -o pipefail; TABLE=integration scripts/test-go $$mode integration-perf $(PERF_FLAGS) -run '^TestSchedulerPerf$$' $$perf 2>&1 | \
			sed -u "s/^/[perf $$mode] /") & pids="$$pids $$!"; \
	done; rc=0; for pid in $$pids; do wait $$pid || rc=1; done; exit $$rc
	@$(TESTTABLE) -print $(OUT)/test-tables/integration.tsv

test-integration: test-integration-upstream ## (old name) same as test-integration-upstream

test-dashboards: upstream ## lint dashboards/ against the metrics the patched scheduler registers
	cd scheduler && go run ./cmd/kspatch-metrics > $(OUT)/scheduler-metrics.json
	cd dashboards && GOWORK=off go vet ./... && GOWORK=off KSPATCH_SCHEDULER_METRICS=$(OUT)/scheduler-metrics.json \
		KSPATCH_REQUIRE_METRICS=1 go test -count=1 ./...

test-e2e: build build-vanilla tools cluster-bins ## end-to-end scenarios on a local control plane (e2e/; installs Debian's prometheus when missing)
	@mkdir -p $(OUT)/test-logs && rm -f $(OUT)/test-logs/e2e-report.txt
	@# -vet=off: test-modules vets e2e. The whole output goes to
	@# test-logs/e2e.log.gz; the table lists every scenario's seconds.
	prom=$$(scripts/ensure-prometheus) && cd e2e && KSPATCH_REQUIRE_E2E=1 KSPATCH_BIN=$(BIN) KSPATCH_PROMETHEUS=$$prom \
		KSPATCH_E2E_REPORT=$(OUT)/test-logs/e2e-report.txt go test -json -count=1 -vet=off -timeout 25m ./... 2>&1 | \
		($(TESTTABLE) -gates mixed -log $(OUT)/test-logs/e2e.log.gz -slowest 40 -lines 0)
	@# The leader-change timelines and counts (go test shows no log of a passing test).
	@if [ -f $(OUT)/test-logs/e2e-report.txt ]; then cat $(OUT)/test-logs/e2e-report.txt; fi

test-scripts: upstream ## the series scripts, including their failure paths, and the drop rehearsal of every block
	scripts/test-scripts
	scripts/drop-rehearsal

drop-rehearsal: upstream ## apply the series without each block, build the scheduler, write the table into docs/series.md
	scripts/drop-rehearsal --tests --report docs/series.md

test-image: image build-vanilla ## open the built image, check it, run its binary; both binaries' version stamps; the release scripts, and two release builds compared
	cd scheduler/image && GOWORK=off KSPATCH_IMAGE_DIR=$(IMAGE_OUT) KSPATCH_IMAGE_VERSION=$(KSPATCH_VERSION) \
		KSPATCH_REQUIRE_BINARIES=1 KSPATCH_SCHEDULER_BINARY=$(BIN)/kube-scheduler KSPATCH_SCHEDULER_VERSION=$(KSPATCH_VERSION) \
		KSPATCH_SCHEDULER_COMMIT=$(GIT_COMMIT) KSPATCH_VANILLA_BINARY=$(BIN)/kube-scheduler-vanilla \
		KSPATCH_VANILLA_VERSION=$(BASE_VERSION) KSPATCH_VANILLA_COMMIT=$$(git -C $(VANILLA) rev-parse HEAD) \
		go test -count=1 -run 'TestImage|TestBinaryVersions' ./...
	scripts/test-release
	scripts/release check

.PHONY: clean
clean: ## remove _output (the patched tree too: export your commits first)
	rm -rf $(OUT)
