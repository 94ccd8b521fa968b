package autoexpose

import (
	"io"
	"strings"

	"github.com/mcpdoor/mcpdoor/internal/table"
)

// A ReportRow is one line of the startup report: one POST route and what
// mcpdoor made of it.
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

// WriteReport writes the startup report as a table.
func (d *Door) WriteReport(w io.Writer) error {
	rows := [][]string{{"TOOL", "ROUTE", "VERDICT", "SCHEMA", "REASON"}}
	for _, r := range d.report {
		rows = append(rows, []string{r.Tool, r.Route, r.Verdict, string(r.Schema), r.Reason})
	}
	return table.Write(w, rows)
}
