// Package detector reads a chi router's route table and decides, for each
// POST route, whether and how mcpdoor can serve it as an MCP tool.
//
// It is usable on its own, to see what a router would expose:
//
//	rep, err := detector.Inspect(r, nil)
//	if err != nil {
//		return err
//	}
//	rep.WriteTable(os.Stdout)
//
// For every POST route the report gives the tool name (the path without its
// leading slash), the full middleware list, and a verdict: Direct (every
// middleware is known to be transparent, so the endpoint can be called with a
// fabricated request), Replay (some middleware must run, so the call goes
// through the whole router), or Refused (with the reasons and the fix). A
// single-segment parameterized route such as POST /{tool} is a catch-all
// dispatcher, not a tool. Routes are walked with chi.Walk and reported in a
// deterministic order: tools by name.
//
// The detector never changes the router.
package detector
