extern "C" __global__ void i64ops(long long *a, unsigned long long *b, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x; if (t >= n) return;
  long long x = a[t]; unsigned long long y = b[t];
  a[t] = x / (y | 1) + x % 13 - (x >> 7) * (long long)y;
  b[t] = (y * 0x9E3779B97F4A7C15ull) ^ (y >> 29) ^ (unsigned long long)__popcll(y) + __clzll(x);
}
extern "C" __global__ void f64ops(double *a, const double *b, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x; if (t >= n) return;
  double x = a[t], y = b[t];
  a[t] = fma(x, y, 1.0) / (y + 2.0) + rsqrt(fabs(x) + 1.0) + (double)(long long)x;
}
