#!/bin/sh
# Rebuilds the corpus cubins from the .cu sources with NVIDIA's nvcc 11.8
# (../../../../../shared/tools/cuda118-setup.sh installs it under /opt/cuda118):
# every source for sm_50, sm_52 and sm_53 at -O3 and with ptxas at -O0
# (NAME.sm_XX.O3.cubin, NAME.sm_XX.O0.cubin), and with -G (debug: no
# optimisation in NVVM or ptxas, real calls) for sm_52 only (NAME.sm_52.G.cubin;
# the -G cubins are large).
set -e
cd "$(dirname "$0")"
CUDA=${CUDA:-/opt/cuda118}
PATH=$CUDA/usr/lib/nvidia-cuda-toolkit/bin:$CUDA/usr/bin:$PATH
NVCC="nvcc -ccbin ${CXX:-g++-12} -allow-unsupported-compiler -I$CUDA/usr/include -cubin"
for src in *.cu; do
	name=${src%.cu}
	for sm in 50 52 53; do
		$NVCC -arch=sm_$sm -O3 "$src" -o "$name.sm_$sm.O3.cubin"
		$NVCC -arch=sm_$sm -O3 -Xptxas -O0 "$src" -o "$name.sm_$sm.O0.cubin"
	done
	$NVCC -arch=sm_52 -G "$src" -o "$name.sm_52.G.cubin"
done
