#!/bin/sh
# Rebuilds fdiv.ptx from fdiv.cu with nvcc 11.8 (IEEE division, no fast
# math) and the cubins from it with ptxas 11.8 at -O3 and -O0 for sm_50,
# sm_52 and sm_53.
set -e
cd "$(dirname "$0")"
CUDA=${CUDA:-/opt/cuda118}
PATH=$CUDA/usr/lib/nvidia-cuda-toolkit/bin:$CUDA/usr/bin:$PATH
nvcc -ccbin g++-12 -allow-unsupported-compiler -I$CUDA/usr/include -ptx -arch=compute_50 fdiv.cu -o fdiv.ptx
for sm in 50 52 53; do
	for o in 3 0; do
		ptxas -arch sm_$sm -O$o fdiv.ptx -o fdiv.sm_$sm.O$o.cubin
	done
done
