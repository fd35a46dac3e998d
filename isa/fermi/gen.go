package fermi

//go:generate go run ./internal/specgen/gentables
