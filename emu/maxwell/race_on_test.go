//go:build race

package maxwell

// raceDetector: the tests run under go test -race, where a racy kernel's
// optimistic parallel round (writes the round then undoes) is a reported
// Go data race.
const raceDetector = true
