// Package detector reports what mcpdoor would make of a chi router's
// routes, for tooling — a linter, a CI check, a command that prints the
// table — without installing anything:
//
//	rows, err := detector.Inspect(r, nil)
//	detector.WriteTable(os.Stdout, rows)
//	if err != nil {
//		log.Fatal(err) // the router as a whole cannot be served: an existing /mcp, two catch-alls
//	}
//
// Each [Row] is one POST route (with Options.REST, one route of any
// method): its tool name, or what else it is, and how a tool call would
// reach it — direct, calling the route's handler with a fabricated request
// because every middleware on it is known to be transparent; replay, through
// the whole router, because one must run; or refused, with the reasons and
// the fix. They are the rows of the startup report a Door logs and returns
// (autoexpose's Door.Report), as far as the router alone tells: the config's
// declarations, OpenAPI document and exclusions are Install's to read.
//
// The detector never changes the router.
package detector
