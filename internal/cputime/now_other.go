//go:build !unix

package cputime

import (
	"errors"
	"time"
)

// Now is not available here: CPU time is read with getrusage, which only
// Unix systems have.
func Now() (time.Duration, error) {
	return 0, errors.New("cputime: CPU time needs getrusage, which this system lacks; run it on Linux or another Unix")
}
