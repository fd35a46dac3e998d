// 64-bit and double math, integer division, atomics on global memory,
// __ldg, memory fences, clock, inline PTX, and __launch_bounds__.
extern "C" __global__ void __launch_bounds__(128, 4)
misc(const double *__restrict__ a, double *b, unsigned long long *c, long long *d, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  double x = __ldg(&a[t]);
  b[t] = sqrt(x) * exp(x) / (1.0 + fabs(x));
  atomicAdd(c, (unsigned long long)t);
  atomicCAS(c + 1, 0ull, (unsigned long long)clock64());
  d[t] = d[t] / (t + 3) + d[t] % 11;
  __threadfence();
  unsigned r;
  asm volatile("brev.b32 %0, %1;" : "=r"(r) : "r"(t));
  asm volatile("membar.sys;");
  c[2 + (t & 3)] = r;
}
