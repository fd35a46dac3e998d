package tesla

//go:generate go run ./internal/specgen spec.txt tables.go
//go:generate go test -tags initboot -run TestInitTables -inittables
