package autoexpose

import (
	"fmt"
	"io"
	"text/tabwriter"
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
	// Schema is where an exposed tool's schema came from (SourceTyped, ...).
	Schema string
}

// Report returns the startup report, one row per POST route.
func (d *Door) Report() []ReportRow { return d.report }

// WriteReport writes the startup report as a table.
func (d *Door) WriteReport(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tROUTE\tVERDICT\tSCHEMA\tREASON")
	for _, r := range d.report {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", dash(r.Tool), r.Route, r.Verdict, dash(r.Schema), r.Reason)
	}
	return tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
