#!/bin/sh
# Rebuilds the cubins from kernels.ptx with NVIDIA's ptxas 11.8
# (../../../../shared/tools/cuda118-setup.sh installs it).
set -e
cd "$(dirname "$0")"
PTXAS=${PTXAS:-/opt/cuda118/usr/bin/ptxas}
for sm in 50 52 53; do
	"$PTXAS" -arch sm_$sm -O3 kernels.ptx -o kernels.sm_$sm.cubin
done
# texture and surface kernels, both optimization levels
for sm in 50 52 53; do
	for o in O3 O0; do
		"$PTXAS" -arch sm_$sm -$o texsurf.ptx -o texsurf.sm_$sm.$o.cubin
		"$PTXAS" -arch sm_$sm -$o texcube.ptx -o texcube.sm_$sm.$o.cubin
	done
done
# f16x2 texture results need sm_53
for o in O3 O0; do
	"$PTXAS" -arch sm_53 -$o texhalf.ptx -o texhalf.sm_53.$o.cubin
done
# a fatbin holding the sm_50 and sm_53 builds
FATBINARY=${FATBINARY:-$(dirname "$PTXAS")/fatbinary}
"$FATBINARY" --64 --compress=false --create=kernels.fatbin \
	--image=profile=sm_50,file=kernels.sm_50.cubin --image=profile=sm_53,file=kernels.sm_53.cubin
# control flow and linking: calls.ptx whole and relocatable, link.ptx and
# ext_fn.ptx relocatable (the emulator links them itself); nvlink's output
# for link.ptx + ext_fn.ptx checks the emulator's linker
NVLINK=${NVLINK:-$(dirname "$PTXAS")/nvlink}
for sm in 50 52 53; do
	"$PTXAS" -arch sm_$sm -O3 calls.ptx -o calls.sm_$sm.cubin
	for f in calls link ext_fn; do
		"$PTXAS" -c -arch sm_$sm -O3 $f.ptx -o $f.rel.sm_$sm.cubin
	done
done
"$NVLINK" -arch sm_52 link.rel.sm_52.cubin ext_fn.rel.sm_52.cubin -o link.nvlink.sm_52.cubin
