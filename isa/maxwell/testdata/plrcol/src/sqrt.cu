// sqrtf's slow path is a call (CAL) inside the SSY/SYNC region of the
// divergent fast-path test; the callee's .size line is the file's longest
// directive. build.sh renames the kernel (k, k x7, k x30) and adds a
// call-free kernel with a 60-character name to vary that line alone.
extern "C" __global__ void k(float *out) { out[threadIdx.x] = sqrtf(out[threadIdx.x]); }
