#!/bin/sh
# Rebuilds matmul.sm_52.cubin with NVIDIA's CUDA 11.8 nvcc (the cubin is
# committed; nothing else needs the tools), and copies the oracle's sm_52
# cubins of our own PTX (../shared/oracle/maxwell, built by ptxas 11.8).
set -e
cd "$(dirname "$0")"
CUDA=${CUDA:-/opt/cuda118}
PATH=$CUDA/usr/lib/nvidia-cuda-toolkit/bin:$CUDA/usr/bin:$PATH nvcc -ccbin g++-12 -allow-unsupported-compiler \
	-I$CUDA/usr/include -cubin -arch=sm_52 -O3 -o matmul.sm_52.cubin matmul.cu
SHARED=${GPUISA_SHARED:-../../../../shared}
for k in 01_vecadd 02_saxpy 09_branches 10_reduce_shared; do
	cp "$SHARED/oracle/maxwell/cubin/sm_52/$k.O3.cubin" "$k.sm_52.cubin"
	chmod 644 "$k.sm_52.cubin"
done
