#!/bin/sh
# Rebuilds the cubins from kernels.ptx with NVIDIA's ptxas 11.8
# (../../../../shared/tools/cuda118-setup.sh installs it).
set -e
cd "$(dirname "$0")"
PTXAS=${PTXAS:-/opt/cuda118/usr/bin/ptxas}
for sm in 50 52 53; do
	"$PTXAS" -arch sm_$sm -O3 kernels.ptx -o kernels.sm_$sm.cubin
done
