//go:build !unix

package main

import (
	"errors"
	"time"
)

// cpuTime is not available here: the bench reads CPU time with getrusage,
// which only Unix systems have.
func cpuTime() (time.Duration, error) {
	return 0, errors.New("doorbench: CPU time needs getrusage, which this system lacks; run it on Linux or another Unix")
}
