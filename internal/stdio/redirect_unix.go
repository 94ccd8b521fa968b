//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package stdio

import (
	"fmt"
	"os"
	"syscall"
)

// RedirectStdout points file descriptor 1 at standard error and returns a
// file on the original standard output, for the MCP stream alone; restore
// points descriptor 1 back and closes that file.
func RedirectStdout() (out *os.File, restore func(), err error) {
	// Hold ForkLock so that no child started meanwhile inherits the copy
	// before it is marked close-on-exec.
	syscall.ForkLock.RLock()
	saved, err := syscall.Dup(1)
	if err == nil {
		syscall.CloseOnExec(saved)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, nil, fmt.Errorf("duplicating standard output: %w", err)
	}
	if err := dup2(2, 1); err != nil {
		syscall.Close(saved)
		return nil, nil, fmt.Errorf("redirecting standard output to standard error: %w", err)
	}
	out = os.NewFile(uintptr(saved), "/dev/stdout")
	return out, func() {
		dup2(saved, 1)
		out.Close()
	}, nil
}
