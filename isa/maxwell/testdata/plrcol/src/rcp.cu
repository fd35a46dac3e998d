// 1/x: the __cuda_sm20_rcp_rn_f32_slowpath call inside an SSY region.
extern "C" __global__ void k(float *out) { out[threadIdx.x] = 1.0f / out[threadIdx.x]; }
