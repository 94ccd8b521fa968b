package detector

import (
	"io"
	"slices"

	"github.com/mcpdoor/mcpdoor/internal/table"
)

// A Row is one line of the startup report: a route and what mcpdoor makes
// of it.
type Row struct {
	// Tool is the tool name, or "" for a route that is not a tool.
	Tool string
	// Route is the method and pattern, "POST /get_weather".
	Route string
	// Verdict is, for a tool, how its calls reach the route: direct or
	// replay (or, from Inspect, refused: it cannot be a tool as it stands);
	// excluded for a tool the config keeps off MCP; for another route,
	// what it is: catch-all, reserved or skipped (or, in the Door's report,
	// unserved: an operation of Config.OpenAPI that no route serves).
	Verdict string
	// Reason says why: the middlewares that make a tool replay, what keeps
	// a route from being a tool, a refusal's reasons and fix.
	Reason string
	// Schema is where an exposed tool's input schema came from: declared
	// (Config.Declared or CatchAll), typed (autoexpose.Handler), openapi
	// (Config.OpenAPI), generated (the facts mcpdoor gen read from the
	// handler) or permissive (none: any object). Inspect, which reads no
	// config, leaves it empty.
	Schema string
	// Arguments says, for a REST tool, which argument goes where:
	// "id (path); limit, tag (query); text (body)", with "any" for the
	// members its schema takes without naming them. Inspect leaves it
	// empty.
	Arguments string
}

// WriteTable writes rows as a table with a header line, one row a line,
// "-" in an empty cell; with a column of the arguments when a row has
// them. No line ends in a space, so the table can be compared with a
// golden file.
func WriteTable(w io.Writer, rows []Row) error {
	args := slices.ContainsFunc(rows, func(r Row) bool { return r.Arguments != "" })
	head := []string{"TOOL", "ROUTE", "VERDICT", "SCHEMA", "REASON"}
	if args {
		head = slices.Insert(head, 4, "ARGUMENTS")
	}
	cells := [][]string{head}
	for _, r := range rows {
		row := []string{r.Tool, r.Route, r.Verdict, r.Schema, r.Reason}
		if args {
			row = slices.Insert(row, 4, r.Arguments)
		}
		cells = append(cells, row)
	}
	return table.Write(w, cells)
}
