#!/usr/bin/env bash
# merge_items.sh [BUILD_DIR] [LOG2N] — the GPU keys-only merge's outputs a thread (GP_MERGE_ITEMS_KEYS), blocks per SM
# (GP_MERGE_VEC_MINB) and 16-byte stores (GP_MERGE_VEC): each variant of src/sort/merge.cu built alone
# (merge_items_variant.cu), timed side by side on two sorted halves of 2^LOG2N u32 keys (default 28) against a D2D
# copy, and checked against the CPU backend. Needs a build's libgpuprim.a (default build-device); run from anywhere.
set -eu
B=${1:-build-device}
cd "$(dirname "$0")/../.."
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
F="-O3 -std=c++17 -arch=sm_90 -Iinclude -Isrc -Isrc/core -Isrc/sort"
V=""
mk() { # name, label, defines
  nvcc $F -DMERGE_VARIANT="$1" $3 -c bench/tune/merge_items_variant.cu -o "$T/$1.o" &
  V="$V V($1, \"$2\")"
}
mk m32v5 "32 keys a thread, 16-byte stores, 5 blocks (the default)" ""
mk m28 "28, scalar stores" "-DGP_MERGE_ITEMS_KEYS=28 -DGP_MERGE_VEC=0"
mk m28v5 "28, 16-byte stores, 5 blocks" "-DGP_MERGE_ITEMS_KEYS=28"
mk m36v5 "36, 16-byte stores, 5 blocks" "-DGP_MERGE_ITEMS_KEYS=36"
mk m32v4 "32, 16-byte stores, 4 blocks" "-DGP_MERGE_VEC_MINB=4"
mk m32v6 "32, 16-byte stores, 6 blocks" "-DGP_MERGE_VEC_MINB=6"
mk m40v4 "40, 16-byte stores, 4 blocks" "-DGP_MERGE_ITEMS_KEYS=40 -DGP_MERGE_VEC_MINB=4"
wait
gcc -std=c11 -O2 -Iinclude -Isrc -I/usr/local/cuda/include "-DVARIANTS=$V" -c bench/tune/merge_items.c -o "$T/main.o"
nvcc "$T"/*.o "$B/libgpuprim.a" -Xcompiler -fopenmp -o "$T/merge_items"
"$T/merge_items" "${2:-28}"
