#!/bin/sh
# Rebuilds the example cubins with NVIDIA's CUDA 11.8 tools (not needed to
# run the examples: the cubins are committed). Then `go run gen.go` writes
# the inputs and expected outputs.
set -e
cd "$(dirname "$0")"
CUDA=${CUDA:-/opt/cuda118/usr}
NVCC="$CUDA/lib/nvidia-cuda-toolkit/bin/nvcc -ccbin g++-12 -allow-unsupported-compiler -I$CUDA/include"
export PATH="$CUDA/lib/nvidia-cuda-toolkit/bin:$CUDA/bin:$PATH"
$NVCC -cubin -arch=sm_52 -o saxpy.sm_52.cubin saxpy.cu
$NVCC -cubin -arch=sm_52 -o kinds.sm_52.cubin kinds.cu
$NVCC -cubin -rdc=true -arch=sm_52 -o link_main.rel.sm_52.cubin link_main.cu
$NVCC -cubin -rdc=true -arch=sm_52 -o link_lib.rel.sm_52.cubin link_lib.cu
"$CUDA/bin/ptxas" -arch=sm_52 -O3 -o textures.sm_52.cubin textures.ptx
$NVCC -cubin -arch=sm_52 -o bfs.sm_52.cubin bfs.cu
