// Graph traversal: a level-synchronous BFS with an explicit frontier queue
// (as in Rodinia's and Parboil's BFS), one launch per level from the host.
// frontier sizes live in counts[level]; the queues ping-pong by level parity.

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
		if (atomicCAS(&dist[u], -1, level + 1) == -1) {
			int pos = atomicAdd(&counts[level + 1], 1);
			next[pos] = u;
		}
	}
}

// Rodinia-style mask BFS: expand every masked node, then commit the
// updated nodes in a second kernel; *over says whether another level is due.
extern "C" __global__ void bfs_mask_expand(const int *rowptr, const int *cols, unsigned char *mask,
                                           unsigned char *updating, const unsigned char *visited,
                                           int *cost, int n)
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

extern "C" __global__ void bfs_mask_commit(unsigned char *mask, unsigned char *updating,
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
