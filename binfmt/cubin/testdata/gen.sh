#!/bin/sh
# Regenerates the cubins in this directory from our own PTX with CUDA 11.8
# ptxas (unpacked by /work/shared/tools/cuda118-setup.sh). Output is
# deterministic. The *.cuobjdump-elf.txt files are cuobjdump -elf listings the
# tests compare our parse with.
set -eu
cd "$(dirname "$0")"
B=${CUDA_BIN:-/opt/cuda118/usr/bin}
"$B/ptxas" -arch sm_50 -O3 small.ptx -o small.sm_50.cubin
"$B/ptxas" -arch sm_53 -O0 small.ptx -o small.sm_53.O0.cubin
"$B/ptxas" -arch sm_52 -c -O3 small.ptx -o small.sm_52.rel.cubin
"$B/ptxas" -arch sm_52 -c -O3 extern.ptx -o extern.sm_52.rel.cubin
for f in *.cubin; do "$B/cuobjdump" -elf "$f" > "${f%.cubin}.cuobjdump-elf.txt"; done
