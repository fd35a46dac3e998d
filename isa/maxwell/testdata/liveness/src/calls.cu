__device__ __noinline__ float poly(float x, float a, float b) { return a * x * x + b * x + 1.0f; }
__device__ __noinline__ int mix(int a, int b) { int r = a; for (int i = 0; i < (b & 7); i++) r = r * 31 + i; return r; }
__device__ __noinline__ double dd(double x) { return sqrt(x) / (x + 1.0); }
extern "C" __global__ void callk(float *f, int *g, double *d, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) { f[t] = poly(f[t], 2.0f, 3.0f); g[t] = mix(g[t], t); d[t] = dd(d[t]); }
}
