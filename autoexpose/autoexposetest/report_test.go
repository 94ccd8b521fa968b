package autoexposetest_test

import (
	"slices"
	"testing"

	"github.com/mcpdoor/mcpdoor/autoexpose/autoexposetest"
)

// TestVerdicts pins the fixture's startup report, and checks what Verdicts
// reports when the pins and the report disagree: a route that goes direct
// when it was pinned to replay (its middleware declared transparent), a
// route the pins do not name, and a pin for a route that is gone.
func TestVerdicts(t *testing.T) {
	pinned := map[string]string{
		"count":              "direct",
		"greet":              "replay",
		"note":               "direct",
		"pack":               "direct",
		"restock":            "direct",
		"stock":              "replay",
		"POST /seed_session": "reserved",
		"POST /verify":       "reserved",
	}
	t.Run("as pinned", func(t *testing.T) {
		_, door := newShop(t, "")
		rec := &recorder{TB: t}
		autoexposetest.Verdicts(rec, door, pinned)
		if len(rec.errors) > 0 {
			t.Errorf("Verdicts reported %q", rec.errors)
		}
	})
	t.Run("changed", func(t *testing.T) {
		// stock's key check declared transparent, note kept off MCP, greet
		// pinned to direct though its middleware must run, a pin for a
		// route that is gone.
		_, door := newShop(t, "  transparent_middleware: ["+middlewareName(requireKey)+"]\n  exclude: [note]\n")
		want := map[string]string{"greet": "direct", "stock": "replay", "discount": "direct", "POST /seed_session": "reserved", "POST /verify": "reserved"}
		rec := &recorder{TB: t}
		autoexposetest.Verdicts(rec, door, want)
		wantErrs := []string{`autoexposetest: startup report: verdicts differ (- want, + report):
  - count: (not in want)
  + count: direct
  - greet: direct
  + greet: replay (middleware ` + middlewareName(french) + ` must run)
  - note: (not in want)
  + note: excluded (mcp.exclude)
  - pack: (not in want)
  + pack: direct
  - restock: (not in want)
  + restock: direct
  - stock: replay
  + stock: direct
  - discount: direct
  + discount: (not in the report)`}
		if !slices.Equal(rec.errors, wantErrs) {
			t.Errorf("Verdicts reported:\n%s\nwant:\n%s", join(rec.errors), join(wantErrs))
		}
	})
}
