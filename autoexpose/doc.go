// Package autoexpose serves a chi router's existing POST routes over MCP
// (Model Context Protocol) as tools, with zero handler changes:
//
//	cfg, err := autoexpose.LoadConfig("server.yaml") // name: weather, expose_tools_over_mcp: true
//	...
//	r := chi.NewRouter()
//	r.Method(http.MethodPost, "/get_weather", autoexpose.Handler(getWeather))
//	door, err := autoexpose.Install(r, cfg) // after the routes, before serving
//	...
//	http.ListenAndServe("127.0.0.1:8080", door) // the Door, which serves r
//
// Any MCP client can then list and call the tools at /mcp, while every HTTP
// route answers exactly as before. Both doors run the same handlers and share
// the same per-session state (package session).
//
// # What becomes a tool
//
// Every POST /<name> route of the router is a tool named <name> (unless
// mcp.rest reads it the REST way, below): a name of
// letters, digits, '_' and '-', at most 64 characters. A call's arguments
// are validated against the tool's input schema, then posted to the route
// as the request body, unchanged, with Content-Type application/json; the
// route's response is the call's result. A route that cannot be a tool (a
// nested path such as /a/b) makes Install fail with an error naming the
// route and the fix, unless mcp.exclude keeps it off MCP. Routes with a
// parameter, a wildcard or a mount are not tools; one POST /{param} route
// is the catch-all dispatcher, which serves the tools Config.CatchAll
// declares. [Door.Report] says what each POST route became, and why.
//
// Install reads the router it is given: its routes, and each route's
// middlewares (the router's Use, Group's, With's). A route is dispatched
// directly, its handler called in process, when every middleware on it is
// known to be transparent (a logger, a recoverer, mcpdoor's session
// middleware); otherwise the call is replayed through the whole router, so
// that auth or a rate limit the HTTP door enforces runs for it too (see
// package detector). A handler the server wraps around the router is out of
// Install's sight unless Config.Outer names it.
//
// The router's own middlewares also run in front of the MCP endpoint, since
// a router's Use applies to every route. Install warns of those it does not
// know to be harmless there: a timeout cuts a session's stream, a body limit
// refuses large requests, auth asks MCP clients for credentials.
//
// # REST routes
//
// With the mcp.rest block, Install reads the router the REST way instead:
// every route of the listed methods (default POST, PUT, PATCH and DELETE;
// GET only when listed, or route by route in mcp.rest.names), at any depth,
// Route, Group and Mount included, is a tool:
//
//	mcp:
//	  rest:
//	    methods: [POST, PUT, PATCH, DELETE, GET]
//	    names: {"POST /api/notes/{id}/archive": archive_note}
//
// A tool's name is the one mcp.rest.names gives its route, else the
// OpenAPI document's operationId, else a readable default from the method
// and path (POST /api/notes/{id}/archive is archive_note; the README's
// "Tool names" gives the rule). The config wins over the document so that a bad or
// colliding operationId can be fixed without editing a generated document.
// Two routes of one name, an invalid name and a name for a route the
// router does not have are Install errors naming the routes and the fix;
// the routes that are not tools are in the report, with the reason.
//
// A REST tool's arguments are one JSON object: its path parameters
// (required; strings, with a chi regexp as their pattern, unless the
// document or a declaration types them), its query parameters (the
// document's, or a declaration's), and its JSON body's members, side by
// side. A member named like a path parameter fills it in, a query
// parameter's goes into the query (an array as the key repeated), and every
// other member is the body's, when the route takes a body (a typed
// handler's, the document's request body, else POST, PUT and PATCH), or a
// query parameter when it does not (GET, DELETE). Config.Declared gives the
// whole input schema; its query parameters are then the properties that
// are neither path parameters nor members of the body the typed handler or
// the document describes. A body member named like a path or query
// parameter is an Install error: one object cannot hold both.
//
// Each path value is put into the path escaped as net/url escapes a path,
// so that the router routes the call to that very route with that very
// value; a value no path can carry so ("", "/", "." or "..", one the
// router would serve with another route) is refused before the route runs,
// with an isError naming the parameter. The body is the arguments as the
// client sent them when none of them is a path or query parameter, and
// otherwise a new object of the members left, each as the client wrote it:
// for REST tools, the body is not always the client's bytes verbatim.
//
// Calls go direct or replay as for tool routes, so that auth on a group or
// a mounted router runs for them; a direct call sees chi's URL parameters,
// r.PathValue and r.Pattern as the router sets them. Annotations come last
// from the method: GET is read-only, PUT idempotent, DELETE destructive and
// idempotent. A 2xx response without a body reads "204 No Content" with
// structured content {"status": 204}; a Location header is reported
// ({"status": 201, "location": ...}, or a last text block "Location: ..."
// after a body).
//
// # What a tool says of itself
//
// Each of a tool's description, input schema, output schema and annotations
// comes from the first that gives it of: the YAML's mcp.annotations
// (annotations only); Config.Declared (a route's tool) or Config.CatchAll (a
// catch-all tool); the route's typed handler ([Handler], [Describe],
// [Annotate]); the route's operation in Config.OpenAPI; else the defaults
// (the description "POST /<name>", a permissive object schema). An output
// schema is advertised only when it describes an object. The startup report
// names where each input schema came from: declared, typed, openapi or
// permissive.
//
// # Results
//
// A 2xx JSON object response becomes structuredContent plus the same JSON as
// text; other JSON and text become text; image/* and audio/* become image and
// audio content, after the image is decoded and its format checked. A
// response of type [ContentMediaType] spells out its result: several content
// blocks (text, image, audio, embedded resources, resource links) and,
// optionally, structuredContent, each block checked; the HTTP door answers
// its JSON unchanged.
//
// A failed call is an isError result with one text block for a model, and
// {"error": [errorInfo]} for a program: as structuredContent, or, for a tool
// that advertises an output schema, in the result's _meta under
// [ErrorMetaKey] ("mcpdoor/error"). [Door.Result] gives the result a route's
// answer becomes. A route's non-2xx response reads
// "HTTP <status> from POST /<tool>: <body>", and errorInfo.Message is the
// message its JSON body gives. mcpdoor's own refusals say so: arguments that
// break the input schema are refused before the route runs ("Invalid
// arguments for <tool> (checked against its input schema; POST /<tool> was
// not called): ..."), as are calls over a limit. A handler's panic is a 500
// whose details go to the log only; the server keeps serving. A call to an
// unknown tool is the JSON-RPC error -32602, naming the tools the caller
// may call (none for a session token that does not verify).
//
// # Limits, cancellation and progress
//
// mcp.max_body_bytes, mcp.rate_limit (per session, client address or
// server: mcp.rate_limit.by) and mcp.call_timeout answer a call that
// passes them with an isError result naming the limit (its error envelope's
// code: request_too_large, rate_limited, timeout; README, "Results and
// errors").
// mcp.max_batch, mcp.max_concurrent_calls, mcp.max_sessions and
// mcp.unused_session_timeout bound what one request or one client can make
// the server hold: a batch's messages, the calls that run at once, the live
// sessions. A handler's context ends when the client cancels the call or
// goes away, or at the timeout. [Progress] and [Log] let a long
// handler report to the MCP client, and do nothing on the HTTP door.
//
// # Asking the user: Elicit and Sample
//
// [Elicit] asks the user of the MCP client that made a tool call to confirm or
// fill in a form; [Sample] asks the client's language model for a completion.
// Both work through direct and replayed dispatch. They need a client that
// declared the capability, and a way to reach it: a stateful session
// (mcp.stateful, mcp.exclusive) or stdio sends the request on the call's
// stream; a stateless door reaches a client of protocol 2026-07-28 or later
// through the protocol's input requests, running the handler again with the
// answer, and cannot reach an older client. Where no one can be asked (the
// HTTP door: [ErrNoClient]) they return an error that matches
// [errors.ErrUnsupported], for the handler to refuse, or to take the answer
// another way.
//
// # Sessions
//
// A tool call runs in a session, which a handler reads with session.ID: the
// session the caller's token names (see "NeMo Gym's rollout contract"),
// else the session of its cookie, else, on a stateful endpoint, one per MCP
// session, else one local session. The endpoint is stateless Streamable HTTP by default:
// any replica with the same secret serves any call. mcp.stateful gives
// sessions with Mcp-Session-Id, each ended after mcp.idle_timeout without a
// request; mcp.exclusive allows one live session at a time and answers
// another client's with HTTP 409 and a JSON-RPC error that says when to
// retry, while the same rollout or client reconnects at any time. A request
// from a browser page of another origin, or naming a foreign Host on a
// loopback listener (DNS rebinding), gets 403 (see mcp.allowed_origins and
// mcp.allowed_hosts). [Door.Close] ends the sessions and the calls in
// flight; the endpoint then answers 503.
//
// A stateless endpoint serves the hot case — a POST that carries one
// tools/call request for one of its tools — on a fast path of its own,
// without the go-sdk's per-request session, and answers it with the same
// bytes the go-sdk would; every other request goes to the go-sdk.
// mcp.disable_fast_path hands every request to the go-sdk (see
// [MCPConfig.DisableFastPath]).
//
// # NeMo Gym's rollout contract
//
// When the router serves POST /seed_session and POST /verify, Install turns
// on NeMo Gym's rollout contract (configured by the mcp.rollout block,
// [Rollout]): /seed_session's JSON response gains the "mcp" metadata
// with a signed session token, every tool call needs that token and runs in
// its session, /verify sees mcp__<server>__<tool> names normalized, and
// /ng-rollout/<rollout_id>/<path> is served as /<path>: the Door strips the
// prefix before any of the server's checks run, so serve the Door, outermost
// ([Door.ServeHTTP]); [RolloutID] reads the rollout a request is for.
//
// # Other servers
//
// [Wrap] serves any http.Handler (an http.ServeMux, a framework without a
// route table) with the door in front; [ServeStdio] serves the same tools
// over standard input and output, for a client that starts the server
// itself.
//
// # The catalog
//
// The Door serves one resource, the catalog: every tool with
// its schemas, annotations and route, and the server's session policy and
// limits, as JSON, at <name>://catalog, narrowed by the reader's session
// token as tools/list is (and refused, as tools/list is, to a token that
// does not verify). How calls are dispatched, and why, is not in it: that
// is the operator's, in [Door.Report]. mcp.disable_catalog: true serves
// none.
//
// # Testing a server
//
// Package autoexposetest serves a server's real handler in process to an
// HTTP client and the go-sdk's MCP client, checks that its two doors answer
// alike, and pins its startup report.
package autoexpose
