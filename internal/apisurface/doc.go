// Package apisurface holds the test that counts mcpdoor's public API: the
// exported identifiers of every importable package of the module, as go/doc
// sees them. The count is bounded so that a name is added because a user, a
// harness, a verifier or the test kit needs it, not by default.
package apisurface
