// A __noinline__ call inside a divergent if: CAL between SSY and SYNC, the
// callee straight-line (g) or with guarded RETs (h).
__device__ __noinline__ int g(int a) { return a * a + 7; }
__device__ __noinline__ int h(int a, int *p) { if (a > 100) return p[a]; return a * a + 7; }
extern "C" __global__ void straight(int *out) { int v = out[threadIdx.x]; if (v > 3) v = g(v); out[threadIdx.x] = v; }
extern "C" __global__ void guarded(int *out) { int v = out[threadIdx.x]; if (v > 3) v = h(v, out); out[threadIdx.x] = v; }
