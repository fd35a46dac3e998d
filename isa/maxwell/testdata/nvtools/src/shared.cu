// Shared memory (static and dynamic), barriers, shared atomics, shuffles,
// votes and match-free warp reductions.
extern __shared__ float dyn[];
extern "C" __global__ void shmem(const float *in, float *out, unsigned *hist, int n) {
  __shared__ unsigned bins[64];
  __shared__ float tile[32][33];
  int t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
  if (t < 64) bins[t] = 0;
  dyn[t] = g < n ? in[g] : 0.0f;
  tile[t & 31][t >> 5] = dyn[t];
  __syncthreads();
  atomicAdd(&bins[(int)dyn[t] & 63], 1u);
  atomicMax(&bins[t & 63], t);
  float v = tile[t >> 5][t & 31];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
  unsigned b = __ballot_sync(0xffffffff, v > 0.0f);
  if (__all_sync(0xffffffff, v != 0.0f) && __any_sync(b, t & 1)) v *= 2.0f;
  __syncthreads();
  if (t < 64) atomicAdd(&hist[t], bins[t]);
  if ((t & 31) == 0) out[g >> 5] = v + __popc(b);
}
