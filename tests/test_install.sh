#!/bin/sh
# Installs the build tree ($1) into a scratch prefix ($2), then compiles and runs a 15-line C program against the
# installed header and shared library through pkg-config. Runs on the CPU backend, so it needs no GPU.
set -eu
build=$1
work=$2
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
for f in include/gpuprim.h lib/libgpuprim.so lib/libgpuprim.a lib/pkgconfig/gpuprim.pc \
         lib/cmake/gpuprim/gpuprimConfig.cmake bin/gpuprim; do
  [ -e "$work/prefix/$f" ] || { echo "not installed: $f"; exit 1; }
done
cat >"$work/hello.c" <<'C'
#include <gpuprim.h>
#include <stdio.h>
int main(void) {
    gp_ctx_t *ctx;
    float x[5] = {1, 2, 3, 4, 5}, y[5] = {5, 4, 3, 2, 1}, z[5];
    double dot = 0;
    if (gp_ctx_create(&ctx, GP_DEVICE_CPU) != GP_OK) return 1;
    if (gp_vec_triad(ctx, GP_F32, 5, 2.0, x, y, z, NULL) != GP_OK) return 2;
    if (gp_vec_dot_sync(ctx, GP_F32, 5, x, y, &dot) != GP_OK) return 3;
    printf("gpuprim %d: z[4] = %g, dot = %g\n", gp_version(), z[4], dot);
    gp_ctx_destroy(ctx);
    return !(z[4] == 7.0f && dot == 35.0);
}
C
cc -std=c11 -pedantic -Wall -Wextra -Werror $(pkg-config --cflags gpuprim) "$work/hello.c" -o "$work/hello" \
   $(pkg-config --libs gpuprim)
LD_LIBRARY_PATH="$work/prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$work/hello"
echo "install_pkgconfig: 1 passed, 0 failed"
