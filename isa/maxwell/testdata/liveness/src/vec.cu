extern "C" __global__ void vec4(const float4 *a, float4 *b, const int2 *c, int2 *d, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x; if (t >= n) return;
  float4 v = a[t]; int2 w = c[t];
  v.x += v.y; v.z *= v.w; w.x ^= w.y;
  b[t] = v; d[t] = w;
  __shared__ float4 sh[64]; sh[threadIdx.x & 63] = v; __syncthreads(); b[n + t] = sh[(threadIdx.x + 1) & 63];
}
extern "C" __global__ void vec2d(const double2 *a, double2 *b, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x; if (t < n) { double2 v = a[t]; v.x = v.x * v.y; b[t] = v; }
}
