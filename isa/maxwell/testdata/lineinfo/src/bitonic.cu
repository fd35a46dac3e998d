// One step of a bitonic sort network over a global array.
extern "C" __global__ void bitonic_step(unsigned *a, int j, int k)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned p = i ^ j;
    if (p > i) {
        bool up = (i & k) == 0;
        unsigned x = a[i], y = a[p];
        if ((x > y) == up) {
            a[i] = y;
            a[p] = x;
        }
    }
}
