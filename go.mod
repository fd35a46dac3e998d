module gpuisa

go 1.26
