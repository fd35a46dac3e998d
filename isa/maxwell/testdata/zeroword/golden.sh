#!/bin/sh
# NVIDIA's listings of all-zero sm_5x words that TestZeroWordGolden
# (cmd/gpuisa) replays without the tools: "==> FLAGS NAME <==" lines, then
# the tool's standard output and standard error.
#
# raw/*.bin are bundles made with mk.py (a control word of three fields, each
# 7f0 = stall 0 with yield, which opens a dual-issued pair, or 7e1; then MOV
# or zero words): the zero word at each slot, opening and closing pairs, in
# and after bundles whose second and third fields both open. cubin/ holds
# oracle 09_branches.O3 (sm_52) with instructions zeroed by patch.py:
#   zero-slots:   text+0x10, +0x58, +0x70 (opens a pair), +0xc8 (opens a pair)
#   zero-closers: text+0x78, +0xf0 (each the second of a braced pair)
# (text at file offset 0x680). Run from this directory: sh golden.sh [CUDA_BIN]
set -e
BIN=${1:-/opt/cuda118/usr/bin}
{
	for f in raw/*.bin; do
		for flags in "-b SM52 -hex" "-b SM52" "-b SM52 -hex -novliw" "-b SM50 -raw" "-b SM53 -hex"; do
			echo "==> nvdisasm $flags $f <=="
			$BIN/nvdisasm $flags "$f" 2>&1 || true
		done
	done
	for f in cubin/*.cubin; do
		for flags in "" "-hex" "-hex -novliw" "-cfg" "-bbcfg -poff" "-raw" "-c -sf"; do
			echo "==> nvdisasm $flags $f <=="
			$BIN/nvdisasm $flags "$f" 2>&1 || true
		done
		echo "==> cuobjdump -sass $f <=="
		$BIN/cuobjdump -sass "$f" 2>&1 || true
	done
} | gzip -9n > golden.txt.gz
