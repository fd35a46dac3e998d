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
# line tables: "==> FLAGS NAME <==", the listings of inline call sites in
# a unit of two kernels (tex) and of two rows on one instruction (calls)
while read -r name flags; do
	echo "==> $flags $name <=="
	$BIN/nvdisasm $flags "cubin/$name" 2>/dev/null
done <<'LINES' | gzip -9n > nvdisasm/lines.txt.gz
tex.sm_50.li.cubin -gi
tex.sm_52.li.cubin -gi
tex.sm_53.li.cubin -gi
calls.sm_52.rdc.cubin -g
calls.sm_50.g.cubin -gp
LINES
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
