#!/bin/sh
# Builds the differential corpus of fresh ptxas builds that mxdiff -tools
# runs beside the committed one (not committed: 64 cubins): every src/*.cu
# for the two architectures build.sh does not use for it, with -lineinfo and
# with -G. Run from this directory: sh build-fresh.sh OUTDIR [CUDA_BIN]
set -e
OUT=${1:?usage: sh build-fresh.sh OUTDIR [CUDA_BIN]}
BIN=${2:-/opt/cuda118/usr/bin}
export PATH=/opt/cuda118/usr/lib/nvidia-cuda-toolkit/bin:$BIN:$PATH
NVCC="nvcc -ccbin g++-12 -allow-unsupported-compiler -I/opt/cuda118/usr/include -cubin"
mkdir -p "$OUT"
k=0
for src in src/*.cu; do
	name=$(basename "$src" .cu)
	i=0
	for arch in sm_50 sm_52 sm_53; do
		if [ $i != $((k % 3)) ]; then
			$NVCC -arch=$arch -lineinfo -o "$OUT/$name.$arch.li.cubin" "$src"
			$NVCC -arch=$arch -G -o "$OUT/$name.$arch.g.cubin" "$src"
		fi
		i=$((i + 1))
	done
	k=$((k + 1))
done
