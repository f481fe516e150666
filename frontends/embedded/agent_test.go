package embedded_test

import (
	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/frontends/client"
	"github.com/albedo-agent/albedo/frontends/embedded"
)

// An embedded albedo and the HTTP client of a daemon are both a whole
// Agent: a program moves between them by changing one constructor.
var (
	_ wire.Agent = (*embedded.Albedo)(nil)
	_ wire.Agent = (*client.Client)(nil)
)
