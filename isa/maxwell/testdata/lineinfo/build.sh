#!/bin/sh
# Rebuilds the line-info corpus from src/*.cu with NVIDIA's CUDA 11.8 nvcc (ptxas
# inside), and NVIDIA's listings of it: each kernel file as NAME.li.cubin
# (-lineinfo, optimized) and NAME.g.cubin (-G, debug), for sm_50, sm_52 or sm_53
# in turn. Run from this directory: sh build.sh [CUDA_BIN]
set -e
BIN=${1:-/opt/cuda118/usr/bin}
export PATH=/opt/cuda118/usr/lib/nvidia-cuda-toolkit/bin:$BIN:$PATH
NVCC="nvcc -ccbin g++-12 -allow-unsupported-compiler -I/opt/cuda118/usr/include -cubin"
archs="sm_50 sm_52 sm_53"
k=0
mkdir -p cubin
for src in src/*.cu; do
	name=$(basename "$src" .cu)
	set -- $archs
	shift $((k % 3))
	arch=$1
	k=$((k + 1))
	# the source path is recorded in the line tables: keep it relative
	$NVCC -arch=$arch -lineinfo -o cubin/$name.li.cubin "$src"
	$NVCC -arch=$arch -G -o cubin/$name.g.cubin "$src"
done

# NVIDIA's listings of every cubin for the flag sets the tests replay, one
# gzip file per flag set: "==> NAME <==" lines, then nvdisasm's output
mkdir -p nvdisasm
while read -r tag flags; do
	for c in cubin/*.cubin; do
		echo "==> $(basename "$c") <=="
		$BIN/nvdisasm $flags "$c"
	done | gzip -9n > nvdisasm/$tag.txt.gz
done <<'SETS'
plain
novliw-hex-c -novliw -hex -c
g-hex-c -g -hex -c
gi-c -gi -c
raw-sf-c -raw -sf -c
ndf-fun1-c -ndf -fun 1 -c
cfg -cfg
bbcfg-poff -bbcfg -poff
cfg-poff -cfg -poff
SETS

# register life ranges of the -lineinfo builds (gpuisa matches part of them:
# see TestNvdisasmLifeRanges)
for set in "plr-c -plr -c" "lrm-count-hex-c -lrm count -hex -c"; do
	tag=${set%% *}
	flags=${set#* }
	for c in cubin/*.li.cubin; do
		echo "==> $(basename "$c") <=="
		$BIN/nvdisasm $flags "$c"
	done | gzip -9n > nvdisasm/$tag.txt.gz
done

# a fatbin and a host object carrying two cubins each, for cuobjdump
NVCCF="nvcc -ccbin g++-12 -allow-unsupported-compiler -I/opt/cuda118/usr/include"
$NVCCF -fatbin -gencode arch=compute_50,code=sm_50 -gencode arch=compute_52,code=[sm_52,compute_52] -o cubin/vecadd.fatbin src/vecadd.cu
$NVCCF -c -gencode arch=compute_50,code=sm_50 -gencode arch=compute_53,code=sm_53 -o cubin/reduce.o src/reduce.cu
mkdir -p cuobjdump
while read -r tag flags; do
	for c in cubin/*; do
		echo "==> $(basename "$c") <=="
		$BIN/cuobjdump $flags "$c"
	done | gzip -9n > cuobjdump/$tag.txt.gz
done <<'SETS'
sass -sass
symbols-res-usage -symbols -res-usage
lelf-lptx -lelf -lptx
SETS

# -elf of every file (the -G builds' DWARF sections decoded)
for c in cubin/*; do
	echo "==> $(basename "$c") <=="
	$BIN/cuobjdump -elf "$c"
done | gzip -9n > cuobjdump/elf.txt.gz
