extern "C" __global__ void predk(const int *a, int *b, float *f, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x; if (t >= n) return;
  int x = a[t]; float y = f[t];
  bool p = x > 3, q = y < 2.0f, r = (x & 5) == 1;
  int z = p ? x * 3 : x - 1; if (q && !r) z += 7; else if (r || p) z ^= 9;
  if (__any_sync(0xffffffff, p)) z++;
  if (__all_sync(0xffffffff, q)) z--;
  z += __ballot_sync(0xffffffff, r) & 0xff;
  b[t] = z; f[t] = (q ^ p) ? y * y : fminf(y, 1.0f);
}
extern "C" __global__ void atom(int *c, unsigned long long *u, float *f) {
  atomicAdd(c, 1); atomicMax(c + 1, threadIdx.x); atomicCAS(u, 0ull, (unsigned long long)threadIdx.x); atomicAdd(f, 1.5f);
  if (threadIdx.x < 16) atomicExch(c + 2, threadIdx.x);
}
