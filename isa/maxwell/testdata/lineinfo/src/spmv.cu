// CSR sparse matrix-vector product, one row per thread.
extern "C" __global__ void spmv_csr(int rows, const int *rowptr, const int *cols, const double *vals, const double *x, double *y)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        double s = 0;
        for (int k = rowptr[r]; k < rowptr[r + 1]; k++)
            s += vals[k] * x[cols[k]];
        y[r] = s;
    }
}
