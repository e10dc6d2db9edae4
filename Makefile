# gpuprim — the two commands of the README:
#   make demo   build, then run the main job (`gpuprim demo`: on the GPU if there is one, else the CPU backend)
#   make test   build, then run every test with ctest (GPU tests are skipped, exit 77, where no GPU is present)
# Other targets: make build | make install PREFIX=/usr/local | make python | make cli-reference | make clean. Variables: BUILD, JOBS, CMAKE_FLAGS
# (e.g. CMAKE_FLAGS=-DCMAKE_CUDA_ARCHITECTURES=80 or CUDAARCHS=80 in the environment).
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
PREFIX ?= /usr/local
CMAKE_FLAGS ?=

.PHONY: all deps build test demo install clean fuzz asan python cli-reference

all: build

deps:
	@sh scripts/deps.sh

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The demo builds with a progress line (the log is kept in $(BUILD)/build.log and shown when the build fails).
demo: | deps
	@[ -f $(BUILD)/CMakeCache.txt ] || cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null
	@sh scripts/build.sh $(BUILD) $(JOBS)
	@$(BUILD)/gpuprim demo

# docs/guide/cli-reference.md, written from the option tables (tests/test_cli_surface.sh fails when it is stale).
cli-reference: build
	$(BUILD)/gpuprim completion markdown > docs/guide/cli-reference.md.tmp && mv docs/guide/cli-reference.md.tmp docs/guide/cli-reference.md

# libFuzzer runs of the parsers' fuzz targets (clang; FUZZ_SECONDS per target, default 60). ctest replays their corpus.
fuzz: build
	sh scripts/fuzz.sh

# The CPU tests and CLI tests under AddressSanitizer + UBSan (host code; CUDA files are built as usual).
asan: | deps
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGP_SANITIZE=ON $(CMAKE_FLAGS)
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS) -L cpu -E 'install|fuzz_build|python_numpy'  # an instrumented libgpuprim.so cannot serve plain consumers (nor python3); clang's fuzzers link their own sanitizers

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

# The Python package into the active python3's environment, with this build's library (docs/guide/python.md).
python: build
	sh scripts/python_install.sh $(BUILD)

clean:
	rm -rf $(BUILD) build-asan build-fuzz
