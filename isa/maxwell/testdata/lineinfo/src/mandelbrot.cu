// Escape-time Mandelbrot, one pixel per thread.
extern "C" __global__ void mandelbrot(int *iters, int w, int h, float x0, float y0, float dx, float dy, int maxit)
{
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    int py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= w || py >= h) return;
    float cr = x0 + px * dx, ci = y0 + py * dy;
    float zr = 0, zi = 0;
    int k = 0;
    while (k < maxit && zr * zr + zi * zi < 4.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        k++;
    }
    iters[py * w + px] = k;
}
