module github.com/gpuisa/gpuisa

go 1.26
