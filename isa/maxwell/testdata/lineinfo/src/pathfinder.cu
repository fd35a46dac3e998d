// Dynamic-programming row update (Rodinia pathfinder style) with min of three.
__device__ __forceinline__ int min3(int a, int b, int c) { return min(a, min(b, c)); }

extern "C" __global__ void pathfinder_row(const int *wall, const int *prev, int *next, int cols, int row)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= cols) return;
    int l = x > 0 ? prev[x - 1] : 0x7fffffff;
    int r = x < cols - 1 ? prev[x + 1] : 0x7fffffff;
    next[x] = wall[row * cols + x] + min3(l, prev[x], r);
}
