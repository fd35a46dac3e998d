// matmul: C = A B for n x n float matrices, one thread per element of C
// (16x16 blocks), the inner product in a loop: the sm_5x kernel of about
// 100k warp-instructions the fault-injection speed figures use.
extern "C" __global__ void matmul(const float *a, const float *b, float *c, int n)
{
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	int col = blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= n || col >= n)
		return;
	float sum = 0.0f;
	for (int k = 0; k < n; k++)
		sum += a[row * n + k] * b[k * n + col];
	c[row * n + col] = sum;
}
