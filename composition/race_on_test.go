//go:build race

package composition_test

// raceDetector is true when the tests run under the race detector, which
// makes large single-goroutine workloads 5–10× slower and adds nothing to
// them: the hostile-size measurements keep their smaller sizes then.
const raceDetector = true
