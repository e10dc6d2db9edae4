# gpuprim — the two commands of the README:
#   make demo   build, then run the main job (`gpuprim demo`: on the GPU if there is one, else the CPU backend)
#   make test   build, then run every test with ctest (GPU tests are skipped, exit 77, where no GPU is present)
# Other targets: make build | make install PREFIX=/usr/local | make clean. Variables: BUILD, JOBS, CMAKE_FLAGS
# (e.g. CMAKE_FLAGS=-DCMAKE_CUDA_ARCHITECTURES=80 or CUDAARCHS=80 in the environment).
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
PREFIX ?= /usr/local
CMAKE_FLAGS ?=

.PHONY: all deps build test demo install clean

all: build

deps:
	@sh scripts/deps.sh

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

demo: build
	$(BUILD)/gpuprim demo

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD)
