package edge

import (
	"net/http"
	"net/http/httptest"
	"strings"
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

// TestChain: a request meets the steps in the order Chain lists them, the
// handler last; a nil step is skipped, and a step that refuses stops the
// request there.
func TestChain(t *testing.T) {
	var met []string
	step := func(name string, refuse bool) Step {
		return func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				met = append(met, name)
				if refuse {
					http.Error(w, name, http.StatusForbidden)
					return
				}
				next.ServeHTTP(w, r)
			})
		}
	}
	handler := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { met = append(met, "handler") })
	for _, c := range []struct {
		name  string
		steps []Step
		want  string
	}{
		{"in order", []Step{step("a", false), nil, step("b", false), step("c", false)}, "a b c handler"},
		{"none", nil, "handler"},
		{"refused", []Step{step("a", false), step("b", true), step("c", true)}, "a b"},
	} {
		met = nil
		Chain(c.steps...).Handler(handler).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/mcp", nil))
		if got := strings.Join(met, " "); got != c.want {
			t.Errorf("%s: met %q, want %q", c.name, got, c.want)
		}
	}
}
