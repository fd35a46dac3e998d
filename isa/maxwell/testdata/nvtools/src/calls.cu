// Calls: recursion (a stack frame), __noinline__ functions with many
// arguments, printf (vprintf), assert (__assertfail) and __trap.
#include <cstdio>
#include <cassert>
__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__device__ __noinline__ float many(float a, float b, float c, float d, float e, float f, float g, float h, int i, double j) {
  return a * b + c * d + e * f + g * h + i + (float)j;
}
extern "C" __global__ void calls(int *io, float *fo, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) __trap();
  int r = fib(io[t] & 15);
  fo[t] = many(fo[t], 1, 2, 3, 4, 5, 6, 7, r, 0.5);
  assert(r >= 0);
  if (r == 42) printf("thread %d: %d %f\n", t, r, fo[t]);
}
