// y = a*x + y with a grid-stride loop.
extern "C" __global__ void saxpy(unsigned n, float a, const float *x, float *y)
{
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = a * x[i] + y[i];
}
