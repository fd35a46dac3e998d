package fermi

//go:generate go run ./internal/specgen/gentables
//go:generate go test -run TestPrintGen -printgen
//go:generate go test -tags initboot -run TestInitTables -inittables
