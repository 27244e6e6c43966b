# SPDX-License-Identifier: Apache-2.0
# gpupack: one Makefile. `make help` lists the targets.
CC      ?= cc
CFLAGS_BASE := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wvla \
               -Wmissing-prototypes -Wstrict-prototypes \
               -Iinclude -MMD -MP
OPT     ?= -O2 -g
SAN     ?=
PKGS    := libmicrohttpd libcjson libcurl openssl gnutls yaml-0.1 yajl
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CFLAGS  += $(CFLAGS_BASE) $(OPT) $(SAN) $(PKG_CFLAGS)
LDLIBS  += $(PKG_LIBS) -lpthread -lm
LDFLAGS += $(SAN)

BUILD   ?= build
BIN     ?= bin
VERSION := $(shell cat VERSION 2>/dev/null || echo 0.0.0)
CFLAGS  += -DGP_VERSION='"$(VERSION)"'

LIB_SRC  := $(wildcard lib/*.c)
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/default_policy.o
LIBA     := $(BUILD)/libgpupack.a
PROGS    := $(BIN)/gpupack-webhook $(BIN)/gpupack-extender $(BIN)/gpupack-certs
# test_allocfail replaces the allocator, which sanitizer builds own: it runs in plain builds only.
UNIT_SRC := $(filter-out $(if $(SAN),tests/unit/test_allocfail.c),$(wildcard tests/unit/test_*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all deps test check unit asan valgrind run certs clean help lint image fuzz fuzz-build \
	bench bench-scheduler test-kube
.SECONDARY:
all: deps-check $(PROGS) $(BIN)/gpupack-sim $(if $(wildcard advisor/main.c),$(BIN)/gpupack-advisor) $(UNIT_BIN)

help:
	@echo "make            build bin/gpupack-webhook, bin/gpupack-extender, bin/gpupack-certs, bin/gpupack-sim, tests"
	@echo "make run        install missing build packages (as root), build, make dev certificates, serve"
	@echo "                the webhook on https://127.0.0.1:8443 and the extender on"
	@echo "                http://127.0.0.1:8888 until Ctrl-C"
	@echo "make test       unit, fixture and black-box tests; last line: N passed, N failed"
	@echo "make test-kube  the webhook and the extender against a real kube-apiserver and"
	@echo "                kube-scheduler (v1.20, built once from Debian's sources: ~3 minutes)"
	@echo "make check      the quick tier: unit tests and fixture cases in parallel (under a"
	@echo "                minute after a build); last line: N passed, N failed"
	@echo "make asan       the same tests built with AddressSanitizer + UBSan (in build-asan/)"
	@echo "make valgrind   the unit and fixture tests under valgrind --leak-check=full"
	@echo "make certs      development certificates in certs/dev/ (git-ignored)"
	@echo "make deps       install missing build and test packages with apt-get (root only)"
	@echo "make lint       cppcheck over lib/, the programs, sim/ and tests/"
	@echo "make bench      both daemons on loopback with wrk and h2load (docs/benchmarks.md)"
	@echo "make bench-scheduler  a real kube-scheduler (v1.20, built once from Debian's sources)"
	@echo "                placing 2,000 GPU pods on 500 nodes with and without the extender"
	@echo "make sim        bin/gpupack-sim on the Alibaba trace, seed 42, every scorer (docs/simulation.md)"
	@echo "make sim-full   every trace variant x every scorer x seeds 42-51; needs the whole trace:"
	@echo "                SIM_TRACE=DIR (data/alibaba-gpu-v2023/README.md says where to get it)"
	@echo "make sim-extender  gpupack-extender's whole prioritize vs the scorers, whole-GPU tasks"
	@echo "make sim-replay  a week's replay with an autoscaler, every scorer, seeds 42-44; table"
	@echo "                 into docs/simulation.md (about 8 minutes)"
	@echo "make fuzz       each libFuzzer harness for FUZZ_SECONDS (default 300) with ASan+UBSan"
	@echo "make image      the container image (Dockerfile) with docker or podman, when present;"
	@echo "                IMAGE=name:tag (default ghcr.io/gpupack/gpupack:VERSION)"
	@echo "make clean      remove build/, build-asan/ and bin/"

# Packages: installed when root, otherwise the exact command is printed and make stops.
# `make` alone needs only the build packages (as in the Dockerfile's build stage); `make run`
# the run set (those packages: their libraries are all the daemons load); the test targets also
# need the test tools (tools/deps.sh says which set holds what).
DEPS_SET ?= build
deps:
	@tools/deps.sh test
deps-check:
	@tools/deps.sh $(DEPS_SET)
.PHONY: deps-check

$(BUILD)/%.o: %.c | deps-check
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

# The default policy is embedded byte for byte from the file kustomize ships.
$(BUILD)/tools/embed: tools/embed.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -Wall -Wextra -Werror -Wmissing-prototypes -Wstrict-prototypes -O1 $< -o $@
$(BUILD)/gen/default_policy.c: manifests/base/policy.json $(BUILD)/tools/embed
	@mkdir -p $(dir $@)
	$(BUILD)/tools/embed gp_default_policy_json < $< > $@
$(BUILD)/gen/default_policy.o: $(BUILD)/gen/default_policy.c
	$(CC) $(CFLAGS) -c $< -o $@

$(LIBA): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BIN)/gpupack-webhook: $(BUILD)/webhook/main.o $(LIBA)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@
$(BIN)/gpupack-extender: $(BUILD)/extender/main.o $(LIBA)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@
$(BIN)/gpupack-certs: $(BUILD)/certs/main.o $(LIBA)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@
# The scheduling simulator (docs/simulation.md): sim/main.c's wiring over the simulator's own
# modules (SIM_OBJ), which its unit tests (tests/unit/test_sim_*.c) link too.
SIM_OBJ  := $(patsubst %.c,$(BUILD)/%.o,$(filter-out sim/main.c,$(wildcard sim/*.c)))
SIMA     := $(BUILD)/libgpupack-sim.a
$(SIMA): $(SIM_OBJ)
	@rm -f $@
	ar rcs $@ $^
$(BIN)/gpupack-sim: $(BUILD)/sim/main.o $(SIMA) $(LIBA)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@
# The folder of the Alibaba trace's CSV files. The repository carries the two that `make sim`,
# `make sim-extender` and the tests read (data/alibaba-gpu-v2023/README.md); `make sim-full` needs
# the whole trace: SIM_TRACE=/path/to/cluster-trace-gpu-v2023/csv.
SIM_TRACE ?= data/alibaba-gpu-v2023
.PHONY: sim sim-full sim-extender sim-replay
sim: $(BIN)/gpupack-sim
	$(BIN)/gpupack-sim --nodes $(SIM_TRACE)/openb_node_list_gpu_node.csv \
	  --pods $(SIM_TRACE)/openb_pod_list_default.csv --seed 42 --scorer all
sim-full: $(BIN)/gpupack-sim
	@SIM_TRACE=$(SIM_TRACE) BIN=$(BIN) OUT=$(BUILD)/sim sim/full.sh
sim-extender: $(BIN)/gpupack-sim
	@SIM_TRACE=$(SIM_TRACE) BIN=$(BIN) OUT=$(BUILD)/sim sim/extender.sh
sim-replay: $(BIN)/gpupack-sim
	@SIM_TRACE=$(SIM_TRACE) BIN=$(BIN) OUT=$(BUILD)/sim sim/replay.sh

# The advisor (docs/advisor.md): advisor/main.c's wiring over its own modules (queries, fetch,
# renderers), which its unit tests (tests/unit/test_adv_*.c) link too.
ADV_OBJ  := $(patsubst %.c,$(BUILD)/%.o,$(filter-out advisor/main.c,$(wildcard advisor/*.c)))
ADVA     := $(BUILD)/libgpupack-advisor.a
$(ADVA): $(ADV_OBJ)
	@rm -f $@
	ar rcs $@ $^
$(BIN)/gpupack-advisor: $(BUILD)/advisor/main.o $(ADVA) $(LIBA)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@
$(BUILD)/tests/unit/test_sim_%.o: CFLAGS += -Isim
$(BUILD)/tests/unit/test_adv_%.o: CFLAGS += -Iadvisor
$(BUILD)/tests/test_adv_%: $(BUILD)/tests/unit/test_adv_%.o $(ADVA) $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@
$(BUILD)/tests/test_sim_%: $(BUILD)/tests/unit/test_sim_%.o $(SIMA) $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

# tests/e2e/prometheus.sh drives lib/prom.c through this small client (tests/tools/promq.c).
$(BUILD)/tests/promq: $(BUILD)/tests/tools/promq.o $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@
# tests/e2e/advisor-html.sh renders a fixed report through the advisor's renderers with this.
$(BUILD)/tests/tools/advdemo.o: CFLAGS += -Iadvisor
$(BUILD)/tests/advdemo: $(BUILD)/tests/tools/advdemo.o $(ADVA) $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

# The manifest tests' npm packages, exactly as package-lock.json pins them.
NODE_MODULES := tests/manifests/node_modules/.package-lock.json
$(NODE_MODULES): tests/manifests/package.json tests/manifests/package-lock.json | deps-check
	cd tests/manifests && npm ci --no-audit --no-fund --loglevel=error

test: DEPS_SET = test
test: all $(BUILD)/bench/floor $(BUILD)/bench/migpick $(BUILD)/tests/promq $(BUILD)/tests/advdemo $(NODE_MODULES) $(if $(GP_NO_FUZZ),,fuzz-build)
	@BUILD=$(BUILD) BIN=$(BIN) FUZZ_BUILD=$(if $(GP_NO_FUZZ),,$(FUZZ_BUILD)) tests/run.sh

# A real control plane (tests/kube/run.sh): its build needs Go, and etcd: the kube set.
test-kube: DEPS_SET = kube
test-kube: all
	@BIN=$(BIN) tests/kube/run.sh

# The quick tier: the unit tests and the fixture cases, in parallel (tests/check.sh).
check: DEPS_SET = test
check: all
	@BUILD=$(BUILD) BIN=$(BIN) tests/check.sh

# Under ASan the soak is shorter and its memory bound is off (the allocator's quarantine holds
# freed memory on purpose); it still needs every request to succeed and no descriptor to leak.
asan: export GP_SOAK_MUTATE = 100000
asan: export GP_SOAK_PRIORITIZE = 20000
asan: export GP_SOAK_RSS_SLACK_KB = 1000000
asan:
	@$(MAKE) --no-print-directory BUILD=build-asan BIN=build-asan/bin OPT="-O1 -g -fno-omit-frame-pointer" \
	  SAN="-fsanitize=address,undefined -fno-sanitize-recover=all" GP_NO_FUZZ=1 test

valgrind: DEPS_SET = test
valgrind: all $(BUILD)/tests/promq $(BUILD)/tests/advdemo $(NODE_MODULES)
	@BUILD=$(BUILD) BIN=$(BIN) GP_VALGRIND=1 tests/run.sh

certs: $(BIN)/gpupack-certs
	@tools/devcerts.sh $(BIN)/gpupack-certs certs/dev

run: DEPS_SET = run
run: all certs
	@echo "gpupack-webhook on https://127.0.0.1:8443, gpupack-extender on http://127.0.0.1:8888"
	@echo "(embedded default policy; Ctrl-C stops both)"
	@WEBHOOK_FLAGS="$(WEBHOOK_FLAGS)" EXTENDER_FLAGS="$(EXTENDER_FLAGS)" tools/run.sh $(BIN) certs/dev

lint:
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability --inline-suppr \
	  -Iinclude lib webhook extender certs sim advisor tests

# libFuzzer harnesses (tests/fuzz/fuzz_*.c): the core built again with clang, coverage
# instrumentation, ASan and UBSan, in $(FUZZ_BUILD)/. `make fuzz` runs each for FUZZ_SECONDS;
# `make test` runs a short smoke of each (tests/e2e/fuzz.sh) and replays every saved crash.
FUZZ_CC      ?= clang-14
FUZZ_BUILD   ?= build-fuzz
FUZZ_SECONDS ?= 300
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS   = $(CFLAGS_BASE) -O1 -g -fno-omit-frame-pointer $(FUZZ_SAN) $(PKG_CFLAGS) \
                -DGP_VERSION='"$(VERSION)"'
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=$(FUZZ_BUILD)/%.o) $(FUZZ_BUILD)/gen/default_policy.o
FUZZ_BINS    := $(patsubst tests/fuzz/%.c,$(FUZZ_BUILD)/%,$(wildcard tests/fuzz/fuzz_*.c))

$(FUZZ_BUILD)/%.o: %.c | deps-check
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@
$(FUZZ_BUILD)/gen/default_policy.o: $(BUILD)/gen/default_policy.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@
$(FUZZ_BUILD)/libgpupack.a: $(FUZZ_LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^
$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_common.h $(FUZZ_BUILD)/libgpupack.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $< $(FUZZ_BUILD)/libgpupack.a $(PKG_LIBS) \
	  -lpthread -o $@

fuzz-build: $(FUZZ_BINS)
fuzz: DEPS_SET = test
fuzz: fuzz-build
	@FUZZ_BUILD=$(FUZZ_BUILD) tools/fuzz.sh $(FUZZ_SECONDS)

# Benchmarks (tools/bench.sh, docs/benchmarks.md): measurements, not pass/fail tests.
$(BUILD)/bench/floor: $(BUILD)/tests/bench/floor.o $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@
$(BUILD)/bench/migpick: $(BUILD)/tests/bench/migpick.o $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@
$(BUILD)/bench/promdecode: $(BUILD)/tests/bench/promdecode.o $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@
bench: DEPS_SET = bench
bench: all $(BUILD)/bench/floor $(BUILD)/bench/migpick
	@BUILD=$(BUILD) BIN=$(BIN) tools/bench.sh
bench-scheduler: DEPS_SET = kube
bench-scheduler: all
	@BUILD=$(BUILD) BIN=$(BIN) tools/bench_kubescheduler.sh

# The container image. No container engine runs on the project's build machines: this target
# says so and fails there; tests/e2e/image.sh checks the Dockerfile against what the binaries link.
IMAGE ?= ghcr.io/gpupack/gpupack:$(VERSION)
image:
	@engine=""; for e in docker podman; do \
	  command -v $$e >/dev/null 2>&1 && $$e info >/dev/null 2>&1 && { engine=$$e; break; }; done; \
	[ -n "$$engine" ] || { \
	  echo "make image: no running container engine (docker or podman) here; build elsewhere with:" >&2; \
	  echo "  docker build -t $(IMAGE) ." >&2; exit 1; }; \
	echo "$$engine build -t $(IMAGE) ."; "$$engine" build -t "$(IMAGE)" .

clean:
	rm -rf build build-asan build-fuzz bin

-include $(shell find $(BUILD) $(FUZZ_BUILD) -name '*.d' 2>/dev/null)
