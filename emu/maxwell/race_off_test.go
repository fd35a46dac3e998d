//go:build !race

package maxwell

const raceDetector = false
