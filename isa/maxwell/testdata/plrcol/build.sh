#!/bin/sh
# Rebuilds the -plr column corpus from src/*.cu with NVIDIA's CUDA 11.8
# (nvcc -ptx, then ptxas for sm_52, after renaming kernels in the PTX) and
# lists every cubin with nvdisasm -plr and -plr -hex into nvdisasm/ (gzipped). Each
# build varies one thing that moves nvdisasm's life-range column: the
# kernel name (so the callee's .size line), a call-free kernel's name, the
# callee, calls or not, ptxas -O0. Run from this directory: sh build.sh
set -e
export PATH=/opt/cuda118/usr/lib/nvidia-cuda-toolkit/bin:/opt/cuda118/usr/bin:$PATH
T=$(mktemp -d)
ptx() { nvcc -ccbin g++-12 -allow-unsupported-compiler -I/opt/cuda118/usr/include -ptx -arch=sm_52 -o "$T/$1.ptx" "src/$1.cu"; }
cubin() { ptxas -arch=sm_52 $3 -o "cubin/$2.cubin" "$1"; }
rename() { sed "s/\\bk\\b/$2/g; s/k_param_0/$2_param_0/g" "$T/$1.ptx" > "$T/$3.ptx"; }
# a call-free kernel named by $2 appended to PTX $1
other() {
	cp "$1" "$3"
	cat >> "$3" <<PTX
.visible .entry $2(
	.param .u64 $2_param_0
)
{
	.reg .b32 	%r<2>;
	.reg .b64 	%rd<3>;
	ld.param.u64 	%rd1, [$2_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, %tid.x;
	st.global.u32 	[%rd2], %r1;
	ret;
}
PTX
}
for s in sqrt rcp div longname callssy ways; do ptx $s; done
cubin "$T/sqrt.ptx" sqrt_k1
rename sqrt kkkkkkk sqrt7; cubin "$T/sqrt7.ptx" sqrt_k7
rename sqrt kkkkkkkkkkkkkkkkkkkkkkkkkkkkkk sqrt30; cubin "$T/sqrt30.ptx" sqrt_k30
Q=qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq
other "$T/sqrt.ptx" $Q "$T/sqrt_q.ptx"; cubin "$T/sqrt_q.ptx" sqrt_k1_other60
other "$T/sqrt7.ptx" $Q "$T/sqrt7_q.ptx"; cubin "$T/sqrt7_q.ptx" sqrt_k7_other60
cubin "$T/rcp.ptx" rcp
cubin "$T/div.ptx" div
cubin "$T/longname.ptx" longname
cubin "$T/longname.ptx" longname_O0 -O0
cubin "$T/callssy.ptx" callssy
# the way and loop rules (not the column): ptxas -O3, -O0 and a -G build
cubin "$T/ways.ptx" ways_O3
cubin "$T/ways.ptx" ways_O0 -O0
nvcc -ccbin g++-12 -allow-unsupported-compiler -I/opt/cuda118/usr/include -ptx -G -arch=sm_52 -o "$T/waysG.ptx" src/ways.cu
cubin "$T/waysG.ptx" ways_G
# the -plr -hex column with the guard of the widest braced SYNC line:
# callssy with guarded's SYNC at 0x78 put under @P0 and @!P0 (its guard
# field, byte 2 of the word: 0x07 PT -> 0x00, 0x08)
guard() {
	off=$(readelf -S -W cubin/callssy.cubin 2>/dev/null | awk '$2 == ".text.guarded" { print $5 }')
	cp cubin/callssy.cubin "cubin/$1.cubin"
	printf "\\$2" | dd of="cubin/$1.cubin" bs=1 seek=$((0x$off + 0x78 + 2)) conv=notrunc 2>/dev/null
}
guard callssy_p0 000
guard callssy_np0 010
for c in cubin/*.cubin; do
	n=$(basename "$c" .cubin)
	nvdisasm -plr "$c" | gzip -9n > "nvdisasm/$n.plr.gz"
	nvdisasm -plr -hex "$c" | gzip -9n > "nvdisasm/$n.plr-hex.gz"
done
rm -r "$T"
