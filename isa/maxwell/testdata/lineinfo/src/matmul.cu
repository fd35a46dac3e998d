// Shared-memory tiled matrix multiply C = A * B (square, n a multiple of 16).
#define BS 16
__device__ __forceinline__ float dot_tile(const float (*as)[BS], const float (*bs)[BS], int ty, int tx)
{
    float s = 0;
#pragma unroll 4
    for (int k = 0; k < BS; ++k)
        s += as[ty][k] * bs[k][tx];
    return s;
}

extern "C" __global__ void matmul(const float *A, const float *B, float *C, int n)
{
    __shared__ float as[BS][BS], bs[BS][BS];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * BS + ty, col = blockIdx.x * BS + tx;
    float acc = 0;
    for (int m = 0; m < n / BS; ++m) {
        as[ty][tx] = A[row * n + m * BS + tx];
        bs[ty][tx] = B[(m * BS + ty) * n + col];
        __syncthreads();
        acc += dot_tile(as, bs, ty, tx);
        __syncthreads();
    }
    C[row * n + col] = acc;
}
