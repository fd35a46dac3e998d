#!/bin/sh
# Rebuilds the nvdisasm/cuobjdump differential corpus of mxdiff -tools from
# src/*.cu with NVIDIA's CUDA 11.8 nvcc (ptxas inside): jump tables and calls
# through function pointers, textures and surfaces, recursion, printf and
# assert, shared memory, loops, 64-bit math and half precision. Every source
# for sm_50, sm_52 and sm_53, with -lineinfo (NAME.sm_5x.li.cubin) and with -G
# (NAME.sm_5x.g.cubin); relocatable (-rdc) builds; a fatbin with PTX and a host
# object for cuobjdump. Run from this directory: sh build.sh [CUDA_BIN]
set -e
BIN=${1:-/opt/cuda118/usr/bin}
export PATH=/opt/cuda118/usr/lib/nvidia-cuda-toolkit/bin:$BIN:$PATH
NVCC="nvcc -ccbin g++-12 -allow-unsupported-compiler -I/opt/cuda118/usr/include"
mkdir -p cubin
for src in src/*.cu; do
	name=$(basename "$src" .cu)
	for arch in sm_50 sm_52 sm_53; do
		# the source path is recorded in the line tables: keep it relative
		$NVCC -cubin -arch=$arch -lineinfo -o cubin/$name.$arch.li.cubin "$src"
		$NVCC -cubin -arch=$arch -G -o cubin/$name.$arch.g.cubin "$src"
	done
done
$NVCC -cubin -rdc=true -arch=sm_52 -lineinfo -o cubin/calls.sm_52.rdc.cubin src/calls.cu
$NVCC -cubin -rdc=true -arch=sm_50 -G -o cubin/switch.sm_50.rdc.cubin src/switch.cu
$NVCC -fatbin -lineinfo -gencode arch=compute_50,code=sm_50 -gencode arch=compute_53,code=[sm_53,compute_53] -o cubin/tex.fatbin src/tex.cu
$NVCC -c -G -gencode arch=compute_52,code=sm_52 -gencode arch=compute_50,code=[sm_50,compute_50] -o cubin/loops.o src/loops.cu
