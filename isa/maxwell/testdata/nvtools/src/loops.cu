// Loops: nested, unrolled, while with break and continue, do-while, goto,
// a dynamically indexed local array and constant memory.
__constant__ float coef[16];
extern "C" __global__ void loops(const int *in, float *out, int n, int m) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float acc[8];
  for (int i = 0; i < 8; i++) acc[i] = coef[i];
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < m; j++) {
      int v = in[(i * m + j) & 1023];
      if (v < 0) continue;
      if (v == 77) break;
      acc[v & 7] += coef[(v + j) & 15];
    }
  }
#pragma unroll 4
  for (int k = 0; k < n; k++) acc[k & 7] *= 0.5f;
  int k = t;
  do { k = (k * 1103515245 + 12345) & 0x7fffffff; } while (k % 5);
again:
  if (k > 1000) { k >>= 1; goto again; }
  while (true) { if (in[k & 1023] == 0) break; k++; }
  out[t] = acc[k & 7] + acc[t & 7];
}
