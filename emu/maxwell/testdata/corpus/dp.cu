// Dynamic programming in the style of Rodinia: Needleman-Wunsch (16x16
// tiles along block anti-diagonals, one launch per diagonal, a kernel for
// each half of the matrix) and PathFinder (a pyramid of rows per launch).

#define NB 16

__device__ static int max3(int a, int b, int c) { return max(max(a, b), c); }

// Fills one 16x16 tile of score ((n+1) x (n+1), row and column 0 set by
// the host) whose top-left score cell is (brow, bcol).
__device__ static void nw_tile(int *score, const int *ref, int n, int penalty, int brow, int bcol)
{
	__shared__ int s[NB + 1][NB + 1];
	__shared__ int r[NB][NB];
	int tx = threadIdx.x, w = n + 1;
	for (int k = 0; k < NB; k++)
		r[k][tx] = ref[(brow + 1 + k) * w + bcol + 1 + tx];
	if (tx == 0)
		s[0][0] = score[brow * w + bcol];
	s[0][tx + 1] = score[brow * w + bcol + 1 + tx];
	s[tx + 1][0] = score[(brow + 1 + tx) * w + bcol];
	__syncthreads();
	for (int m = 0; m < NB; m++) {
		if (tx <= m) {
			int x = tx + 1, y = m - tx + 1;
			s[y][x] = max3(s[y - 1][x - 1] + r[y - 1][x - 1], s[y - 1][x] - penalty, s[y][x - 1] - penalty);
		}
		__syncthreads();
	}
	for (int m = NB - 2; m >= 0; m--) {
		if (tx <= m) {
			int x = tx + NB - m, y = NB - tx;
			s[y][x] = max3(s[y - 1][x - 1] + r[y - 1][x - 1], s[y - 1][x] - penalty, s[y][x - 1] - penalty);
		}
		__syncthreads();
	}
	for (int k = 0; k < NB; k++)
		score[(brow + 1 + k) * w + bcol + 1 + tx] = s[k + 1][tx + 1];
}

// Diagonal d (0-based) of the upper-left triangle of tiles: d+1 tiles.
extern "C" __global__ void nw_upper(int *score, const int *ref, int n, int penalty, int d)
{
	int bx = blockIdx.x, by = d - bx;
	nw_tile(score, ref, n, penalty, by * NB, bx * NB);
}

// Diagonal d of the lower-right triangle (nb tiles a side, d from nb on).
extern "C" __global__ void nw_lower(int *score, const int *ref, int n, int penalty, int d)
{
	int nb = n / NB;
	int bx = d - (nb - 1) + blockIdx.x, by = d - bx;
	nw_tile(score, ref, n, penalty, by * NB, bx * NB);
}

#define PBS 256

// iters rows of PathFinder from row start: dst[x] = wall[r][x] + min of the
// three cells above (clamped at the edges). Each block computes PBS-2*halo
// columns and recomputes a halo of halo >= iters columns on each side.
extern "C" __global__ void pathfinder_step(int iters, const int *wall, const int *src, int *dst,
                                           int cols, int start, int halo)
{
	__shared__ int prev[PBS];
	__shared__ int res[PBS];
	int tx = threadIdx.x;
	int xstart = blockIdx.x * (PBS - 2 * halo) - halo;
	int x = xstart + tx;
	bool inside = x >= 0 && x < cols;
	if (inside)
		prev[tx] = src[x];
	__syncthreads();
	bool computed = false;
	for (int i = 0; i < iters; i++) {
		computed = false;
		if (tx >= i + 1 && tx <= PBS - 2 - i && inside) {
			int left = x == 0 ? prev[tx] : prev[tx - 1];
			int right = x == cols - 1 ? prev[tx] : prev[tx + 1];
			res[tx] = wall[(start + i + 1) * cols + x] + min(min(left, prev[tx]), right);
			computed = true;
		}
		__syncthreads();
		if (i == iters - 1)
			break;
		if (computed)
			prev[tx] = res[tx];
		__syncthreads();
	}
	if (computed && tx >= halo && tx < PBS - halo)
		dst[x] = res[tx];
}
