#!/bin/sh
# Rebuilds the seed files from seeds.cu and tiny.cu with NVIDIA's CUDA 11.8
# (../../../../shared/tools/cuda118-setup.sh installs it): a relocatable
# sm_52 cubin (relocations, externs), a whole
# sm_50 cubin, a compressed fatbin (sm_50, sm_52 and PTX) and a host object
# that embeds one. Between them they carry textures and surfaces (references
# and objects), global and constant variables, shared, dynamic shared and
# local memory, a jump table (EIATTR_INDIRECT_BRANCH_TARGETS), calls,
# printf, atomics, shuffles, launch bounds and a trap.
set -eu
cd "$(dirname "$0")"
B=${CUDA_BIN:-/opt/cuda118/usr/bin}
PATH=/opt/cuda118/usr/lib/nvidia-cuda-toolkit/bin:$B:$PATH
NVCC="nvcc -ccbin g++-12 -allow-unsupported-compiler -I/opt/cuda118/usr/include -w"
$NVCC -cubin -rdc=true -arch=sm_52 -O3 seeds.cu -o seeds.sm_52.rel.cubin
# the debug sections: line info, and everything -G adds, on a small kernel
$NVCC -cubin -arch=sm_53 -O3 -lineinfo tiny.cu -o tiny.sm_53.lineinfo.cubin
$NVCC -cubin -arch=sm_53 -G tiny.cu -o tiny.sm_53.G.cubin
# the whole-program builds define the extern function
sed 's/^extern __device__ int ext_fn(int);/__device__ __noinline__ int ext_fn(int x) { return x * 3; }/' seeds.cu > whole.cu
$NVCC -cubin -arch=sm_50 -O3 whole.cu -o seeds.sm_50.cubin
$NVCC -fatbin -gencode arch=compute_50,code=sm_50 -gencode arch=compute_52,code=[sm_52,compute_52] \
	-Xfatbin -compress-all whole.cu -o seeds.fatbin
$NVCC -c -gencode arch=compute_52,code=sm_52 whole.cu -o seeds.host.o
rm -f whole.cu
