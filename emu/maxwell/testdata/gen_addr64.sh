#!/bin/sh
# Rebuilds the addr64 cubins (our aligned variant of the oracle's 14_addr64)
# with NVIDIA's ptxas 11.8 at -O3 and -O0 for sm_50, sm_52 and sm_53.
set -e
cd "$(dirname "$0")"
PTXAS=${PTXAS:-/opt/cuda118/usr/bin/ptxas}
for sm in 50 52 53; do
	for o in 3 0; do
		"$PTXAS" -arch sm_$sm -O$o addr64.ptx -o addr64.sm_$sm.O$o.cubin
	done
done
