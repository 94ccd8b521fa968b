// Package detect reads a chi router's route table and decides, for each
// POST route, whether and how mcpdoor can serve it as an MCP tool.
//
// It is the reading behind package detector's rows and Install's startup
// report; its own table shows more of it:
//
//	rep, err := detect.Inspect(r, nil)
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
// dispatcher, not a tool. Routes are walked as chi.Walk walks them and
// reported in a deterministic order: tools by name. A route under a mounted
// handler that is not a *chi.Mux itself (a type that embeds a chi.Router
// and has a ServeHTTP of its own) is never Direct: that ServeHTTP runs
// before the route and may check the request, so the route replays (or is
// refused under Strict).
//
// # REST servers
//
// With Options.REST set, the detector reads a REST server instead: every
// route of the named methods (POST, PUT, PATCH, DELETE, and GET only when
// named) is a tool, at any depth, with its path parameters (Route.Params),
// the annotations its method implies (Route.Hints) and a name: the
// config's, else the OpenAPI operationId, else RESTName's rule (GET
// /api/notes/{id} is get_note, POST /api/notes/{id}/archive is
// archive_note). Routes that cannot be tools — wildcards, methods not
// named — are reported as skipped, with the reason; two routes with one
// name are both refused, with the fix. POST /<name> routes keep their
// tool-route names.
//
// The detector never changes the router.
package detect
