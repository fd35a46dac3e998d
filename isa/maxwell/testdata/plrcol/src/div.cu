// x/y: the __cuda_sm3x_div_rn_noftz_f32_slowpath call after a guarded SYNC.
extern "C" __global__ void k(float *out) { out[threadIdx.x] = out[threadIdx.x] / out[threadIdx.x+1]; }
