package autoexpose

import (
	"slices"
	"strings"

	"github.com/mcpdoor/mcpdoor/detector"
)

// compareRows orders the report: tools by name, then the other routes by
// pattern.
func compareRows(a, b detector.Row) int {
	switch {
	case (a.Tool == "") != (b.Tool == ""):
		if a.Tool != "" {
			return -1
		}
		return 1
	case a.Tool != b.Tool:
		return strings.Compare(a.Tool, b.Tool)
	}
	return strings.Compare(a.Route, b.Route)
}

// Report returns the startup report: one row per tool and per other POST
// route (under mcp.rest, per route), tools by name first. Write it as a
// table with detector.WriteTable(w, door.Report()).
func (d *Door) Report() []detector.Row { return slices.Clone(d.report) }
