// One explicit step of a 2D heat equation on a grid (Rodinia hotspot style).
extern "C" __global__ void hotspot_step(const float *temp, const float *power, float *out, int w, int h, float cap, float rx, float ry, float rz, float amb)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    int c = y * w + x;
    float t = temp[c];
    float n = y > 0 ? temp[c - w] : t;
    float s = y < h - 1 ? temp[c + w] : t;
    float e = x < w - 1 ? temp[c + 1] : t;
    float wv = x > 0 ? temp[c - 1] : t;
    out[c] = t + cap * (power[c] + (n + s - 2 * t) * ry + (e + wv - 2 * t) * rx + (amb - t) * rz);
}
