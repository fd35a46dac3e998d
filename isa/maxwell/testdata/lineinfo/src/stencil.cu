// 1D seven-point stencil with a halo in shared memory.
#define R 3
#define BLOCK 256
extern "C" __global__ void stencil1d(const float *in, float *out, int n)
{
    __shared__ float s[BLOCK + 2 * R];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int l = threadIdx.x + R;
    s[l] = g < n ? in[g] : 0.0f;
    if (threadIdx.x < R) {
        s[l - R] = g >= R ? in[g - R] : 0.0f;
        s[l + BLOCK] = g + BLOCK < n ? in[g + BLOCK] : 0.0f;
    }
    __syncthreads();
    float r = 0;
    for (int o = -R; o <= R; o++)
        r += s[l + o] * (1.0f / (2 * R + 1));
    if (g < n) out[g] = r;
}
