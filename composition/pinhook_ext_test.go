package composition_test

import (
	"github.com/mcpbind/mcpbind/composition"
	"github.com/mcpbind/mcpbind/composition/pinning"
)

// init gives the internal pin tests pinning.DigestCheck (see
// composition.PinningDigestCheck in pinhook_test.go).
func init() { composition.PinningDigestCheck = pinning.DigestCheck }
