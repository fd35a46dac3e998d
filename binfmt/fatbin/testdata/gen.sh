#!/bin/sh
# Regenerates the fatbins here from our own cubins and PTX (../../cubin/testdata)
# with CUDA 11.8 fatbinary, and a host object that embeds one (.nv_fatbin), the
# way nvcc does, compiled with the system C compiler. The tests check that the
# extracted payloads equal the inputs byte for byte.
set -eu
cd "$(dirname "$0")"
B=${CUDA_BIN:-/opt/cuda118/usr/bin}
C=../../cubin/testdata
"$B/fatbinary" --64 --compress=false --ident=small --cmdline="-O3" --create=plain.fatbin \
  --image=profile=sm_50,file=$C/small.sm_50.cubin \
  --image=profile=sm_53,file=$C/small.sm_53.O0.cubin \
  --image=profile=compute_50,file=$C/small.ptx
"$B/fatbinary" --64 --compress-all --create=compressed.fatbin \
  --image=profile=sm_52,file=$C/extern.sm_52.rel.cubin \
  --image=profile=compute_50,file=$C/extern.ptx
"$B/fatbinary" --64 --create=host.fatbin --embedded-fatbin=host.fatbin.c \
  --image=profile=sm_50,file=$C/small.sm_50.cubin --image=profile=compute_50,file=$C/small.ptx
# fatbinary's C file needs the wrapper type from CUDA's fatbinary_section.h; its layout:
printf 'typedef struct { int magic; int version; const unsigned long long *data; void *filename_or_fatbins; } __fatBinC_Wrapper_t;\n' > wrapper.h
cc -c -D__SKIP_INTERNAL_FATBINARY_HEADERS -include wrapper.h -x c host.fatbin.c -o host.o
rm -f host.fatbin host.fatbin.c wrapper.h
