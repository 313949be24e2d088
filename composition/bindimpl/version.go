package bindimpl

// SupportPackageIsVersion1 is referenced by every package mcpbind
// generates ("const _ = bindimpl.SupportPackageIsVersion1" in
// client.go), as gRPC's generated code references
// grpc.SupportPackageIsVersionN: a generated package that needs a newer
// runtime than the one it is built against fails to build at that line,
// naming the constant, instead of failing somewhere in the runtime's API or
// misbehaving at run time.
//
// When to bump: when mcpbind starts generating code that needs something
// this package did not have before (a new function, type, field or
// behaviour the generated code relies on), add SupportPackageIsVersion2
// beside this one and make the generator (gen.RuntimeVersion) reference
// it. Keep the older constants for as long as this runtime still serves
// the code that references them; removing one is how a runtime drops
// support for packages generated before that version.
const SupportPackageIsVersion1 = true
