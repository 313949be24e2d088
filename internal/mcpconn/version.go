package mcpconn

// ModuleVersion is the version of the mcpbind module in the build, as the
// clientInfo of sessions gives it ("devel" when it has none): for
// composition/otelmcp's instrumentation scope.
func ModuleVersion() string { return moduleVersion() }
