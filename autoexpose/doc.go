// Package autoexpose serves a chi router's existing routes over MCP (Model
// Context Protocol) as tools, with zero handler changes:
//
//	cfg, err := autoexpose.LoadConfig("server.yaml") // name: weather, expose_tools_over_mcp: true
//	if err != nil {
//		log.Fatal(err)
//	}
//	r := chi.NewRouter()
//	r.Method(http.MethodPost, "/get_weather", autoexpose.Handler(getWeather)) // or any http.Handler
//	door, err := autoexpose.Install(r, cfg)                                   // after the routes, before serving
//	if err != nil {
//		log.Fatal(err)
//	}
//	defer door.Close()
//	log.Fatal(http.ListenAndServe("127.0.0.1:8080", door)) // the Door, in place of r: it serves r
//
// Any MCP client can then list and call the tools at /mcp, while every HTTP
// route answers exactly as before.
//
// # What it promises
//
//   - Every POST /<name> route of the router is a tool named <name>; with
//     the mcp.rest block, every route of the listed methods, at any depth.
//     A route that cannot be a tool, and a config that names a tool or
//     route that does not exist, make Install fail with an error that names
//     the route or key and the fix. [Door.Report] says what each route
//     became, and why.
//   - A tool call never gets past a check the HTTP door makes: it calls
//     the route's handler directly only when every middleware on the route
//     is known to be transparent, and otherwise replays the call through
//     the whole router (and [Config.Outer]), with the client's
//     Authorization header.
//   - Both doors run the same handlers and share per-session state:
//     [Config.UseSessions] gives the router's middleware and the door one
//     session manager (package session).
//   - A route's response is the call's result: a 2xx JSON object is also
//     structuredContent, an error status an isError result with a JSON
//     envelope; a handler's panic is a 500, and the server keeps serving.
//   - With expose_tools_over_mcp false, nothing changes, byte for byte.
//   - When the router serves POST /seed_session and POST /verify, NeMo Gym's
//     rollout contract is on ([Rollout]): a signed session token per
//     rollout, checked on every call, mcp__<server>__<tool> names
//     normalized for /verify, and /ng-rollout/<id>/<path> served as /<path>
//     by the Door, before any of the server's checks run. So serve the Door,
//     outermost ([Door.ServeHTTP]).
//
// # Other entry points
//
// [Wrap] serves any http.Handler (an http.ServeMux, a framework without a
// route table) with the door in front. [ServeStdio] serves the same tools
// over standard input and output, for a client that starts the server
// itself. [Handler] adapts a typed function to a route that carries its
// schemas. Inside a handler, [Progress] and [Log] report to the MCP client,
// [Elicit] and [Sample] ask it, and [ContentMediaType] spells out a result
// of several blocks. On the HTTP door, Progress and Log do nothing, Elicit
// and Sample say there is no one to ask ([ErrNoClient]), and a
// ContentMediaType body is JSON like any other.
//
// # Generated facts
//
// mcpdoor gen reads a module's handlers as they are — a function, a method
// value, a closure a factory returns — and writes into each package that
// holds some a file, mcpdoor_gen.go, whose init hands Install what it read
// ([Generated]): each handler's doc comment, the JSON body it decodes, the
// query and path parameters it reads, and what it encodes on success. No
// other change to the app's code is needed:
//
//	go get -tool github.com/mcpdoor/mcpdoor/cmd/mcpdoor
//	go tool mcpdoor gen ./...    // or: //go:generate go tool mcpdoor gen ./...
//
// Install matches a route's handler to its facts by function identity, and
// warns of a generated file that no longer describes the handlers as they
// are, naming the tools and the command to rerun; gen -check fails in CI on
// any difference. docs/generator.md says what gen reads and what it cannot
// see.
//
// # Reference
//
// The repository's docs/ folder is the reference, one page per topic:
// tools.md (what becomes a tool, schemas and their sources, direct and
// replayed dispatch), rest.md, nethttp.md, stdio.md, results.md (results,
// the error envelope and its codes), sessions.md, rollout.md, config.md
// (every key and its default), limits.md, security.md, performance.md (the
// fast path and its fence), catalog.md, generator.md and testing.md (package
// autoexposetest, which tests a server's two doors in process).
package autoexpose
