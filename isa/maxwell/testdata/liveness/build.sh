#!/bin/sh
# Rebuilds the -plr/-lrm differential corpus from src/*.cu with NVIDIA's CUDA
# 11.8 nvcc (ptxas inside): loops, __noinline__ calls (also -rdc), 64-bit
# integer and double math, vector loads and stores, surfaces and textures,
# predicates, votes and atomics. Every file is built for sm_50, sm_52 and
# sm_53 at -O3 and ptxas -O0 (36 cubins, plus calls -rdc and loops -G on
# sm_52) into $OUT (default: a scratch directory); the sm_52 builds are
# committed in cubin/. Run from this directory: sh build.sh [OUT]
set -e
OUT=${1:-$(mktemp -d)}
export PATH=/opt/cuda118/usr/lib/nvidia-cuda-toolkit/bin:/opt/cuda118/usr/bin:$PATH
NVCC="nvcc -ccbin g++-12 -allow-unsupported-compiler -I/opt/cuda118/usr/include -cubin"
for src in src/*.cu; do
	name=$(basename "$src" .cu)
	for a in 50 52 53; do
		$NVCC -arch=sm_$a -o "$OUT/$name.sm_$a.O3.cubin" "$src"
		$NVCC -arch=sm_$a -Xptxas -O0 -o "$OUT/$name.sm_$a.O0.cubin" "$src"
	done
done
$NVCC -rdc=true -arch=sm_52 -o "$OUT/calls.sm_52.rdc.cubin" src/calls.cu
$NVCC -G -arch=sm_52 -o "$OUT/loops.sm_52.G.cubin" src/loops.cu
echo "$OUT"
