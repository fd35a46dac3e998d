// Breadth-first search on a graph in CSR form, two ways, for bfs.json
// (a launch file with a sequence of launches):
// - bfs_level: one launch per level, a queue of the frontier and atomics;
//   the host loops while the next level's count is not zero.
// - bfs_expand + bfs_commit: Rodinia's two kernels per level; the host
//   clears *over, runs both, and loops while the second set it.

extern "C" __global__ void bfs_level(const int *rowptr, const int *cols, int *dist,
                                     int *queue, int *counts, int level, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	int *cur = queue + (level & 1) * n;
	int *next = queue + ((level + 1) & 1) * n;
	if (i >= counts[level])
		return;
	int v = cur[i];
	for (int e = rowptr[v]; e < rowptr[v + 1]; e++) {
		int u = cols[e];
		if (atomicCAS(&dist[u], -1, level + 1) == -1)
			next[atomicAdd(&counts[level + 1], 1)] = u;
	}
}

extern "C" __global__ void bfs_expand(const int *rowptr, const int *cols, unsigned char *mask,
                                      unsigned char *updating, const unsigned char *visited, int *cost, int n)
{
	int v = blockIdx.x * blockDim.x + threadIdx.x;
	if (v < n && mask[v]) {
		mask[v] = 0;
		for (int e = rowptr[v]; e < rowptr[v + 1]; e++) {
			int u = cols[e];
			if (!visited[u]) {
				atomicMin(&cost[u], cost[v] + 1);
				updating[u] = 1;
			}
		}
	}
}

extern "C" __global__ void bfs_commit(unsigned char *mask, unsigned char *updating,
                                      unsigned char *visited, int *over, int n)
{
	int v = blockIdx.x * blockDim.x + threadIdx.x;
	if (v < n && updating[v]) {
		mask[v] = 1;
		visited[v] = 1;
		*over = 1;
		updating[v] = 0;
	}
}
