package autoexpose

import (
	"io"
	"slices"
	"strings"

	"github.com/mcpdoor/mcpdoor/internal/table"
)

// A ReportRow is one line of the startup report: one POST route (under
// mcp.rest, one route) and what mcpdoor made of it.
type ReportRow struct {
	// Tool is the tool name, or "" for a route that is not a tool.
	Tool string
	// Route is the method and pattern, "POST /get_weather".
	Route string
	// Verdict is direct or replay for an exposed tool; excluded; or the
	// route's kind (catch-all, reserved, skipped) for the others.
	Verdict string
	Reason  string
	// Schema is where an exposed tool's input schema came from.
	Schema SchemaSource
	// Arguments says, for a REST tool, which argument goes where:
	// "id (path); limit, tag (query); text (body)", with "any" for the
	// members its schema takes without naming them.
	Arguments string
}

// compareRows orders the report: tools by name, then the other routes by
// pattern.
func compareRows(a, b ReportRow) int {
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
// route.
func (d *Door) Report() []ReportRow { return d.report }

// WriteReport writes the startup report as a table, with a column of the
// arguments when it has REST tools.
func (d *Door) WriteReport(w io.Writer) error {
	args := slices.ContainsFunc(d.report, func(r ReportRow) bool { return r.Arguments != "" })
	head := []string{"TOOL", "ROUTE", "VERDICT", "SCHEMA", "REASON"}
	if args {
		head = slices.Insert(head, 4, "ARGUMENTS")
	}
	rows := [][]string{head}
	for _, r := range d.report {
		row := []string{r.Tool, r.Route, r.Verdict, string(r.Schema), r.Reason}
		if args {
			row = slices.Insert(row, 4, r.Arguments)
		}
		rows = append(rows, row)
	}
	return table.Write(w, rows)
}
