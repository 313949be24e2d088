// Package testrules holds no code: its test checks rules about the
// repository's tests themselves, so that CI enforces them. Tests wait for
// signals (a channel, a barrier, a server's line on stderr, a context's
// deadline), never for time: no time.Sleep as synchronisation, and no
// assertion on elapsed wall-clock time (speed is measured with go test
// -bench and reported, never asserted). And no product package (anything
// outside testservers/, bench/, examples/ and golden/) links a package under
// testservers/.
package testrules
