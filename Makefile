# Makefile: the two commands a newcomer needs, wrapping CMake.
#
#   make demo   install what is missing, build, run onnxshape on the bundled examples
#   make test   install what is missing, build, run every test (ctest), twice: as
#               built, then with the speed devices off (ONNXSHAPE_PLAIN_IO=1)
#
# Also: make build, make test-asan (ASan + UBSan build and tests), make bench (BENCH_QUICK=1
# for a short run: see bench/run.py), make install (PREFIX=/usr/local, honoured on
# every call: the tool, libonnxshape.so and .a, the header, pkg-config and CMake
# files, the Python package), make deps (the packages make test needs; make
# deps-build, those of make build and make install only), make clean, make fuzz
# (libFuzzer targets with clang, FUZZ_SECONDS each: see the end of this file), make
# diff-ort SEED=n COUNT=m (the differential harness against ONNX Runtime, longer than
# make test runs it: see below), make opset-proof (opset conversion on every model).

BUILD ?= build
ASAN_BUILD ?= build-asan
BENCH_BUILD ?= build-bench
PREFIX ?= /usr/local
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all deps deps-build configure build build-tests demo test test-asan bench install clean

all: build

deps:
	@.ci/deps.sh test

deps-build:
	@.ci/deps.sh build

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_FLAGS)

configure: deps-build $(BUILD)/CMakeCache.txt

build: configure
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	@tests/models/examples/demo.sh $(BUILD)/onnxshape

# The tests, turned on in a build configured without them (by make build or make
# install on a machine without Criterion).
build-tests: deps
	cmake -S . -B $(BUILD) -DONNXSHAPE_TESTS=ON $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)

# The second run takes the plain paths through the input and output seams
# (src/core/tuning.h): the same suite must pass without threads, mappings, nodes
# decoded from their wire bytes or streamed writing. Not run again: what only times
# the tool, the test that runs both paths itself, and the planted bugs (their copy
# builds apart).
PLAIN_EXCLUDE = python/timing|arch/plain-vs-fast|mutants/planted
PLAIN_ENV = ONNXSHAPE_PLAIN_IO=1

test: build-tests
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	cd $(BUILD) && $(PLAIN_ENV) ctest --output-on-failure -j $(JOBS) -E '$(PLAIN_EXCLUDE)'

test-asan: deps
	cmake -S . -B $(ASAN_BUILD) -DONNXSHAPE_SANITIZE=ON -DONNXSHAPE_TESTS=ON -DCMAKE_BUILD_TYPE=Debug $(CMAKE_FLAGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
		ctest --output-on-failure -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp $(PLAIN_ENV) \
		ctest --output-on-failure -j $(JOBS) -E '$(PLAIN_EXCLUDE)'

# make bench: a profile-guided build in $(BENCH_BUILD), the inference micro-benchmark,
# then onnxshape against onnx's Python tools on generated models of 1k to 1M nodes
# (bench/run.py; BENCH_QUICK=1 for a run under a minute, BENCH_SIZES=1k,10k,... to
# choose; models are generated into $(BENCH_BUILD)/bench); then rewrite --target-opset
# against plain rewrite on a 100k-node transformer (bench/bench_opset.py).
bench: deps
	cmake -S . -B $(BENCH_BUILD) -DONNXSHAPE_PGO=ON -DONNXSHAPE_TESTS=ON $(CMAKE_FLAGS)
	cmake --build $(BENCH_BUILD) -j $(JOBS)
	$(BENCH_BUILD)/bench_infer_chain
	/usr/bin/python3 bench/run.py $(BENCH_BUILD)/onnxshape $(BENCH_BUILD)
	/usr/bin/python3 bench/bench_opset.py $(BENCH_BUILD)/onnxshape $(BENCH_BUILD)/bench/opset

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

# make diff-ort [SEED=1] [COUNT=5000]: COUNT mutants of valid models (both ONNX
# corpora, the real networks, the fixtures), each judged by ONNX Runtime and by
# onnxshape check (tests/validity/diff/run_diff.py); prints every class of
# disagreement and fails on one that tests/validity/known_diff_ort.txt does not list.
# The ctest fixtures it needs (ORT, the corpora, the networks) are brought up first;
# the mutants that disagree are kept in $(BUILD)/diff-ort/seedSEED/kept.
SEED ?= 1
COUNT ?= 5000
DIFF_FIXTURES = ^(ort/setup|corpus/generate|corpus123/unpack|real/unpack-real-networks|real/unpack-real-networks-ort)$$

.PHONY: diff-ort
diff-ort: build-tests
	cd $(BUILD) && ctest -R '$(DIFF_FIXTURES)' --output-on-failure
	/usr/bin/python3 tests/validity/diff/run_diff.py --build $(BUILD) --seed $(SEED) --count $(COUNT) --jobs $(JOBS)

# Bugs planted one at a time into a copy of the tree (tests/mutants/planted.py): the
# tests that own the code must catch every one (ctest mutants/planted in make test).
.PHONY: mutants
mutants: build-tests
	/usr/bin/python3 tests/mutants/planted.py $(BUILD)/mutants

# make opset-proof: `rewrite --target-opset` over every model of both ONNX corpora, the
# real networks and the old converted models, to each of the opsets 13, 17, 18, 21,
# 23 and 26, run on ONNX Runtime beside the original (tests/opset/opset_proof.py);
# then onnx's version_converter the same way (targets up to 17). make test runs a
# sample of it (ctest opset/ort-proof).
OPSET_FIXTURES = ^(ort/setup|corpus/generate|corpus123/unpack|real/unpack-.*|opset/unpack-converted-models)$$

.PHONY: opset-proof
opset-proof: build-tests
	cd $(BUILD) && ctest -R '$(OPSET_FIXTURES)' --output-on-failure
	cmake --build $(BUILD) --target opset-proof

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(BENCH_BUILD) $(FUZZ_BUILD)

# ---- fuzzing ---------------------------------------------------------------------
# make fuzz [FUZZ_SECONDS=600] [FUZZ_TARGETS="load infer roundtrip split dimexpr"]
# Builds the libFuzzer targets of tests/fuzz with clang, ASan and UBSan (FUZZ_BUILD),
# then runs each for FUZZ_SECONDS, one after the other, from the committed seeds
# (tests/fuzz/corpus; dimexpr's, tests/fuzz/corpus-dimexpr) and what earlier runs kept
# (FUZZ_BUILD/corpus-TARGET), with the dictionary tests/fuzz/onnx.dict (dimexpr's,
# tests/fuzz/dimexpr.dict). A crash stops it; the input is saved as
# FUZZ_BUILD/artifacts/TARGET-crash-*: fix the bug, then copy the (small) file into
# tests/fuzz/crashes/ so `make test` replays it from then on.
# Needs Debian's clang and its runtimes (libclang-rt-dev, or libclang-common-N-dev).
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 600
FUZZ_TARGETS ?= load infer roundtrip split dimexpr
FUZZ_FLAGS ?= -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1
FUZZ_CC ?= clang
fuzz_seeds = tests/fuzz/$(if $(filter dimexpr,$(1)),corpus-dimexpr,corpus)
fuzz_dict = tests/fuzz/$(if $(filter dimexpr,$(1)),dimexpr,onnx).dict

.PHONY: fuzz fuzz-build

fuzz-build: deps
	@command -v $(FUZZ_CC) >/dev/null || { echo "make fuzz needs clang (and libclang-rt-dev)" >&2; exit 1; }
	cmake -S . -B $(FUZZ_BUILD) -DCMAKE_C_COMPILER=$(FUZZ_CC) -DONNXSHAPE_FUZZ=ON -DONNXSHAPE_SANITIZE=ON -DONNXSHAPE_TESTS=ON \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g" $(CMAKE_FLAGS)
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target $(addprefix fuzz_,$(FUZZ_TARGETS))

fuzz: fuzz-build
	@mkdir -p $(FUZZ_BUILD)/artifacts
	@set -e; $(foreach t,$(FUZZ_TARGETS), \
		mkdir -p $(FUZZ_BUILD)/corpus-$(t); \
		echo "fuzz_$(t): $(FUZZ_SECONDS) s"; \
		$(FUZZ_BUILD)/tests/fuzz_$(t) -max_total_time=$(FUZZ_SECONDS) $(FUZZ_FLAGS) $(if $(filter dimexpr,$(t)),-max_len=4096) \
			-dict=$(call fuzz_dict,$(t)) -artifact_prefix=$(FUZZ_BUILD)/artifacts/$(t)- \
			$(FUZZ_BUILD)/corpus-$(t) $(call fuzz_seeds,$(t));)
