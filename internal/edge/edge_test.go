package edge

import (
	"testing"
	"time"
)

func TestSeconds(t *testing.T) {
	for d, want := range map[time.Duration]string{
		600 * time.Second:       "600s",
		1500 * time.Millisecond: "1.5s",
		300 * time.Millisecond:  "300ms",
		time.Hour:               "3600s",
	} {
		if got := Seconds(d); got != want {
			t.Errorf("Seconds(%v) = %q, want %q", d, got, want)
		}
	}
}
