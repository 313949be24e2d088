package composition

// PinningDigestCheck is pinning.DigestCheck, set by the external test
// package (pinhook_ext_test.go) before any test runs: package pinning
// imports composition, so these internal tests cannot import it, yet they
// test pinning as programs configure it, with changes classified as
// `mcpbind diff` does. It exists only in the test binary.
var PinningDigestCheck func(Pins, DigestMode) Option
