// Package wire is the JSON-RPC wire as the door reads and writes it
// outside the go-sdk: a scanner that walks a message's members in place,
// without decoding them, and the error response the door writes itself.
package wire
