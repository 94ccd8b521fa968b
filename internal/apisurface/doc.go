// Package apisurface holds the tests of mcpdoor's public API as a whole:
// TestExportedSurface counts the exported identifiers of every importable
// package of the module, as go/doc sees them, and bounds the count, so that
// a name is added because a user, a harness, a verifier or the test kit
// needs it, not by default; TestErrorPrefix checks that the errors each
// package gives a user start with "mcpdoor: ".
package apisurface
