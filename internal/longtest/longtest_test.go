package longtest

import "testing"

// TestSkip: without MCPDOOR_LONG=1 a long test is skipped, with it it runs.
func TestSkip(t *testing.T) {
	for _, c := range []struct {
		env  string
		runs bool
	}{{"", false}, {"0", false}, {"1", !testing.Short()}} {
		t.Run("MCPDOOR_LONG="+c.env, func(t *testing.T) {
			t.Setenv(Env, c.env)
			ran := false
			t.Run("long", func(t *testing.T) {
				Skip(t, "a long test")
				ran = true
			})
			if ran != c.runs {
				t.Errorf("the long test ran: %v, want %v", ran, c.runs)
			}
		})
	}
}
