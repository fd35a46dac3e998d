package tesla

//go:generate go run ./internal/specgen spec.txt tables.go
