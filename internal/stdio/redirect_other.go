//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd)

package stdio

import "os"

// RedirectStdout, where mcpdoor does not move file descriptors, points the
// os.Stdout variable at standard error (fmt.Println and the like follow it;
// direct writes to the descriptor do not) and returns the original for the
// MCP stream; restore points os.Stdout back.
func RedirectStdout() (out *os.File, restore func(), err error) {
	out = os.Stdout
	os.Stdout = os.Stderr
	return out, func() { os.Stdout = out }, nil
}
