// Dense linear algebra in the style of PolyBench/GPU, SHOC and the CUDA
// samples (written for gpuisa's emulator corpus): tiled SGEMM, GEMV with a
// warp per row, a padded shared-memory transpose, CSR SpMV and PolyBench's
// four-kernel correlation.

#define TILE 16

// C = alpha*A*B + beta*C, A MxK, B KxN, row-major; 16x16 blocks.
extern "C" __global__ void sgemm_tiled(const float *A, const float *B, float *C,
                                       int M, int N, int K, float alpha, float beta)
{
	__shared__ float as[TILE][TILE];
	__shared__ float bs[TILE][TILE + 1];
	int tx = threadIdx.x, ty = threadIdx.y;
	int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
	float acc = 0.0f;
	for (int t = 0; t < (K + TILE - 1) / TILE; t++) {
		int ka = t * TILE + tx, kb = t * TILE + ty;
		as[ty][tx] = (row < M && ka < K) ? A[row * K + ka] : 0.0f;
		bs[ty][tx] = (kb < K && col < N) ? B[kb * N + col] : 0.0f;
		__syncthreads();
#pragma unroll
		for (int k = 0; k < TILE; k++)
			acc += as[ty][k] * bs[k][tx];
		__syncthreads();
	}
	if (row < M && col < N)
		C[row * N + col] = alpha * acc + beta * C[row * N + col];
}

// y = A*x, one warp per row, lanes stride the row and meet with shuffles.
extern "C" __global__ void sgemv_warp(const float *A, const float *x, float *y, int rows, int cols)
{
	int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
	int lane = threadIdx.x & 31;
	if (warp >= rows)
		return;
	float sum = 0.0f;
	for (int j = lane; j < cols; j += 32)
		sum += A[(size_t)warp * cols + j] * x[j];
	for (int off = 16; off > 0; off >>= 1)
		sum += __shfl_down_sync(0xffffffffu, sum, off);
	if (lane == 0)
		y[warp] = sum;
}

// out = in^T for a rows x cols matrix of words; 32x8 blocks, 32x33 tile.
extern "C" __global__ void transpose_tiled(const unsigned *in, unsigned *out, int rows, int cols)
{
	__shared__ unsigned tile[32][33];
	int x = blockIdx.x * 32 + threadIdx.x;
	int y = blockIdx.y * 32 + threadIdx.y;
	for (int j = 0; j < 32; j += 8)
		if (x < cols && y + j < rows)
			tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
	__syncthreads();
	x = blockIdx.y * 32 + threadIdx.x;
	y = blockIdx.x * 32 + threadIdx.y;
	for (int j = 0; j < 32; j += 8)
		if (x < rows && y + j < cols)
			out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

// y = A*x for a CSR matrix, a thread per row (SHOC's scalar kernel).
extern "C" __global__ void spmv_csr(const int *rowptr, const int *colidx, const float *val,
                                    const float *x, float *y, int rows)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r < rows) {
		float s = 0.0f;
		for (int e = rowptr[r]; e < rowptr[r + 1]; e++)
			s += val[e] * x[colidx[e]];
		y[r] = s;
	}
}

// PolyBench correlation over data[n][m] (n samples of m variables): column
// means, standard deviations, centring and scaling, then the m x m matrix.
extern "C" __global__ void corr_mean(float *mean, const float *data, float fn, int m, int n)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	if (j < m) {
		mean[j] = 0.0f;
		for (int i = 0; i < n; i++)
			mean[j] += data[i * m + j];
		mean[j] /= fn;
	}
}

extern "C" __global__ void corr_std(const float *mean, float *stddev, const float *data, float fn, float eps, int m, int n)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	if (j < m) {
		stddev[j] = 0.0f;
		for (int i = 0; i < n; i++)
			stddev[j] += (data[i * m + j] - mean[j]) * (data[i * m + j] - mean[j]);
		stddev[j] /= fn;
		stddev[j] = sqrtf(stddev[j]);
		if (stddev[j] <= eps)
			stddev[j] = 1.0f;
	}
}

extern "C" __global__ void corr_reduce(const float *mean, const float *stddev, float *data, float fn, int m, int n)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	if (i < n && j < m) {
		data[i * m + j] -= mean[j];
		data[i * m + j] /= sqrtf(fn) * stddev[j];
	}
}

extern "C" __global__ void corr_corr(float *symmat, const float *data, int m, int n)
{
	int j1 = blockIdx.x * blockDim.x + threadIdx.x;
	if (j1 < m - 1) {
		symmat[j1 * m + j1] = 1.0f;
		for (int j2 = j1 + 1; j2 < m; j2++) {
			symmat[j1 * m + j2] = 0.0f;
			for (int i = 0; i < n; i++)
				symmat[j1 * m + j2] += data[i * m + j1] * data[i * m + j2];
			symmat[j2 * m + j1] = symmat[j1 * m + j2];
		}
	}
}
