// Calls a function defined in another relocatable cubin (link_lib.cu): the
// launch file links them ("link").
extern __device__ int combine(int a, int b);

extern "C" __global__ void linked(const int *a, const int *b, int *c)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    c[i] = combine(a[i], b[i]);
}
