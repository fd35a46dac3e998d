#!/bin/sh
# NVIDIA's listings of the corpus that TestNvtoolsGolden (cmd/gpuisa)
# replays without the tools: one gzip file per flag set, "==> NAME <=="
# lines, then the tool's standard output. Run from this directory after
# build.sh: sh golden.sh [CUDA_BIN]
set -e
BIN=${1:-/opt/cuda118/usr/bin}
mkdir -p nvdisasm cuobjdump
while read -r tag flags; do
	for c in cubin/*.cubin; do
		echo "==> $(basename "$c") <=="
		$BIN/nvdisasm $flags "$c" 2>/dev/null
	done | gzip -9n > nvdisasm/$tag.txt.gz
done <<'SETS'
plain
cfg -cfg
ndf-c -ndf -c
SETS
while read -r tag flags; do
	for c in cubin/*; do
		echo "==> $(basename "$c") <=="
		$BIN/cuobjdump $flags "$c" 2>/dev/null
	done | gzip -9n > cuobjdump/$tag.txt.gz
done <<'SETS'
elf -elf
sass-symbols-res-usage -sass -symbols -res-usage
lelf-lptx -lelf -lptx
SETS
