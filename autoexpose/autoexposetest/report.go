package autoexposetest

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/detector"
)

// Verdicts checks the door's startup report ([autoexpose.Door.Report]), so
// that a test pins what each route became and a change shows in CI: that a
// route behind an auth middleware is replayed through it, say, and never
// called directly.
//
// want names every row of the report, each tool by its name and each other
// POST route by its method and pattern ("POST /seed_session"), with the
// verdict the report must give it: direct or replay for a tool; excluded,
// catch-all, reserved or skipped for the other routes. Verdicts reports
// with one t.Errorf every row whose verdict differs, every row want does not
// name (a new route), and every name the report lacks, each with the
// report's reason:
//
//	autoexposetest: startup report: verdicts differ (- want, + report):
//	  - secure_op: direct
//	  + secure_op: replay (middleware main.requireKey must run)
func Verdicts(t testing.TB, door *autoexpose.Door, want map[string]string) {
	t.Helper()
	var lines []string
	reported := make(map[string]bool)
	for _, row := range door.Report() {
		key := row.Tool
		if key == "" {
			key = row.Route
		}
		reported[key] = true
		switch w, named := want[key]; {
		case !named:
			lines = append(lines, "- "+key+": (not in want)", "+ "+key+": "+verdict(row))
		case w != row.Verdict:
			lines = append(lines, "- "+key+": "+w, "+ "+key+": "+verdict(row))
		}
	}
	for _, key := range slices.Sorted(maps.Keys(want)) {
		if !reported[key] {
			lines = append(lines, "- "+key+": "+want[key], "+ "+key+": (not in the report)")
		}
	}
	if len(lines) > 0 {
		t.Errorf("autoexposetest: startup report: verdicts differ (- want, + report):\n  %s", strings.Join(lines, "\n  "))
	}
}

// verdict writes a row's verdict with its reason.
func verdict(row detector.Row) string {
	if row.Reason == "" {
		return row.Verdict
	}
	return row.Verdict + " (" + row.Reason + ")"
}
