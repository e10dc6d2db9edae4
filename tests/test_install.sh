#!/bin/sh
# Installs the build tree ($1) into a scratch prefix ($2; $3 "cpu-only" for a build without CUDA), then builds and runs a small C program against it the
# three ways the README shows: pkg-config with an rpath (no LD_LIBRARY_PATH), and a C-only CMake project through
# find_package(gpuprim) with gpuprim::gpuprim (shared) and gpuprim::gpuprim_static. GP_DEVICE_DEFAULT runs it on GPU 0
# or, without one, on the CPU backend, so it needs no GPU.
set -eu
build=$1
work=$2
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
for f in include/gpuprim.h lib/libgpuprim.so lib/libgpuprim.a lib/pkgconfig/gpuprim.pc lib/pkgconfig/gpuprim-static.pc \
         lib/cmake/gpuprim/gpuprimConfig.cmake bin/gpuprim share/man/man1/gpuprim.1 \
         share/bash-completion/completions/gpuprim share/zsh/site-functions/_gpuprim share/doc/gpuprim/LICENSE \
         share/doc/gpuprim/README.md; do
  [ -e "$work/prefix/$f" ] || { echo "not installed: $f"; exit 1; }
done
# every doc the README links is installed beside it
doc=$work/prefix/share/doc/gpuprim
for f in $(grep -oE '\]\([A-Za-z0-9_./-]+\.md\)' "$doc/README.md" | sed 's/^](\(.*\))$/\1/' | sort -u); do
  [ -e "$doc/$f" ] || { echo "the README links $f, which is not installed"; exit 1; }
done
# the README's C quickstart builds against the installed tree and runs (on GPU 0, else the CPU backend)
sed -n '/^```c$/,/^```$/p' "$doc/README.md" | sed '1d;$d' >"$work/quickstart.c"
cc -std=c11 -Wall -Wextra -Werror $(pkg-config --cflags gpuprim) "$work/quickstart.c" -o "$work/quickstart" \
   $(pkg-config --libs gpuprim) -Wl,-rpath,"$(pkg-config --variable=libdir gpuprim)" ||
  { echo "the README's C quickstart does not build"; exit 1; }
env -u LD_LIBRARY_PATH "$work/quickstart" >/dev/null || { echo "the README's C quickstart failed"; exit 1; }
cat >"$work/hello.c" <<'C'
#include <gpuprim.h>
#include <stdio.h>
int main(void) {
    gp_ctx_t *ctx;
    float x[5] = {1, 2, 3, 4, 5}, y[5] = {5, 4, 3, 2, 1}, z[5];
    double dot = 0;
    if (gp_ctx_create(&ctx, GP_DEVICE_DEFAULT) != GP_OK) return 1;
    if (gp_ctx_device(ctx) != GP_DEVICE_CPU) { /* host arrays: run this check on the CPU backend */
        gp_ctx_destroy(ctx);
        if (gp_ctx_create(&ctx, GP_DEVICE_CPU) != GP_OK) return 1;
    }
    if (gp_vec_triad(ctx, GP_F32, 5, 2.0, x, y, z, NULL) != GP_OK) return 2;
    if (gp_vec_dot_sync(ctx, GP_F32, 5, x, y, &dot) != GP_OK) return 3;
    printf("gpuprim %d: z[4] = %g, dot = %g\n", gp_version(), z[4], dot);
    gp_ctx_destroy(ctx);
    return !(z[4] == 7.0f && dot == 35.0);
}
C
pass=0
cc -std=c11 -pedantic -Wall -Wextra -Werror $(pkg-config --cflags gpuprim) "$work/hello.c" -o "$work/hello" \
   $(pkg-config --libs gpuprim) -Wl,-rpath,"$(pkg-config --variable=libdir gpuprim)"
env -u LD_LIBRARY_PATH "$work/hello" && pass=$((pass + 1))
# the static library through pkg-config: gpuprim-static links the archive (no libgpuprim.so needed at run time)
cc -std=c11 -Wall -Wextra -Werror $(pkg-config --cflags gpuprim-static) "$work/hello.c" -o "$work/hello_static" \
   $(pkg-config --libs gpuprim-static)
if ldd "$work/hello_static" 2>/dev/null | grep -q libgpuprim; then
  echo "pkg-config gpuprim-static linked libgpuprim.so"; exit 1
fi
env -u LD_LIBRARY_PATH "$work/hello_static" >/dev/null && pass=$((pass + 1))
# A C-only CMake project: both exported targets must link with the C linker (no libstdc++ needed).
mkdir -p "$work/cm"
cp "$work/hello.c" "$work/cm/hello.c"
cat >"$work/cm/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.24)
project(consumer C)
find_package(gpuprim REQUIRED)
add_executable(hello_shared hello.c)
target_link_libraries(hello_shared PRIVATE gpuprim::gpuprim)
add_executable(hello_static hello.c)
target_link_libraries(hello_static PRIVATE gpuprim::gpuprim_static)
CM
cmake -S "$work/cm" -B "$work/cm/build" -DCMAKE_PREFIX_PATH="$work/prefix" >"$work/cm.log" 2>&1 &&
  cmake --build "$work/cm/build" >>"$work/cm.log" 2>&1 || { cat "$work/cm.log"; exit 1; }
env -u LD_LIBRARY_PATH "$work/cm/build/hello_shared" && pass=$((pass + 1))
"$work/cm/build/hello_static" && pass=$((pass + 1))
# The installed CLI finds its peers module in lib/gpuprim (none in a CPU-only build) and runs without LD_LIBRARY_PATH.
{ [ "${3:-full}" = cpu-only ] || [ -e "$work/prefix/lib/gpuprim/libgpuprim_peers.so" ]; } && pass=$((pass + 1))
env -u LD_LIBRARY_PATH "$work/prefix/bin/gpuprim" version >/dev/null && pass=$((pass + 1))
echo "install_pkgconfig: $pass passed, $((6 - pass)) failed"
[ "$pass" = 6 ]
