//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Now returns the user and system CPU time the process has used, all its
// threads together (the garbage collector's included).
func Now() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}
