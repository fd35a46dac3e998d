extern "C" __global__ void prefix(const int *in, int *out, int n) {
  int acc = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) { acc += in[i] * (i & 3); if (acc > 1000) acc -= 7; out[i] = acc; }
}
extern "C" __global__ void nested(float *a, int n, int m) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0;
  for (int i = 0; i < n; i++) for (int j = 0; j < m; j++) { if ((i ^ j) & 1) s += a[(t + i * m + j) % 4096]; else s -= 0.5f; }
  a[t] = s;
}
extern "C" __global__ void whileloop(unsigned *x) {
  unsigned v = x[threadIdx.x]; int steps = 0;
  while (v != 1 && steps < 500) { v = (v & 1) ? 3 * v + 1 : v >> 1; steps++; }
  x[threadIdx.x] = steps;
}
