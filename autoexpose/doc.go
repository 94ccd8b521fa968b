// Package autoexpose serves a chi router's existing POST tool routes over MCP
// (Model Context Protocol), with zero handler changes:
//
//	cfg, err := autoexpose.LoadConfig("server.yaml") // expose_tools_over_mcp: true
//	...
//	r := chi.NewRouter()
//	r.Method(http.MethodPost, "/get_weather", autoexpose.Handler(getWeather))
//	r.Post("/seed_session", seedSession)
//	r.Post("/verify", verify)
//	door, err := autoexpose.Install(r, cfg) // after the routes, before serving
//
// Any MCP client can then list and call the tools at /mcp, while every HTTP
// route answers exactly as before. Both doors run the same handlers and share
// the same per-session state.
//
// # What Install promises
//
//   - With expose_tools_over_mcp false, nothing changes, byte for byte.
//   - Every POST /<name> route is a tool named <name> (see package detector
//     for the rules), dispatched directly when every middleware on it is
//     transparent and replayed through the whole router otherwise: a tool
//     call never gets past a middleware the HTTP door enforces.
//   - A route that cannot be a tool makes Install fail with an error naming
//     the route and the fix; nothing is silently dropped.
//   - Install sees the router it is given: its routes and their middleware
//     chains. A handler the server wraps around the router is out of its
//     sight unless Config.Outer names it; then every call replays through it.
//   - Tools are listed by name. A call's arguments are validated against the
//     tool's input schema, then sent to the route as the request body,
//     unchanged.
//
// # Schemas
//
// A tool's input schema comes from, in order: a declaration (Config.Declared,
// the Tools hook), a typed handler (Handler), the server's OpenAPI document
// (Config.OpenAPI or mcp.openapi: the operation's JSON request body schema,
// summary, description and x-mcp- annotations), or else a permissive object
// schema. The startup report names the source of each.
//
// # Results
//
// A 2xx JSON object response becomes structuredContent plus the same JSON as
// text; other JSON and text become text; image/* and audio/* become image and
// audio content, after the image is decoded and its format checked. A non-2xx
// response is an isError result whose text reads
// "HTTP <status> from POST /<tool>: <body>", with the envelope
// {"error": {"code", "message", "status", "effect"}} for programs (see
// ErrorEnvelope). A handler's panic is a 500 whose details go to the log
// only; the server keeps serving. A call to an unknown tool is the JSON-RPC
// error -32602, naming the tools there are.
//
// # Limits, cancellation and progress
//
// mcp.max_body_bytes, mcp.rate_limit (per session) and mcp.call_timeout
// answer a call that passes them with an isError result naming the limit
// (codes request_too_large, response_too_large, rate_limited, timeout; see
// ErrorInfo). /verify has its own body limit, mcp.max_verify_bytes
// (64 MiB by default): a trajectory over it gets 413 naming the key. A handler's context ends when the client cancels the call or
// goes away, or at the timeout. Progress and Log let a long handler report
// to the MCP client, and do nothing on the HTTP door.
//
// # The rollout contract
//
// A rollout server (mcp.rollout, the default) has /seed_session and /verify.
// Install wraps them: /seed_session's JSON response gains the "mcp" metadata
// with a signed session token (see Metadata and package token), and /verify
// sees mcp__<server>__<tool> names normalized (see package verifywrap). Every
// tool call checks the token and runs in the session it names.
//
// NeMo Gym's observability prefix, /ng-rollout/<rollout_id>/<path>, is
// served as /<path>, and the handler reads the id with RolloutID.
//
// # Session policy and protection
//
// The endpoint is stateless Streamable HTTP by default. mcp.stateful gives
// sessions with Mcp-Session-Id, each ended after mcp.idle_timeout without a
// request; mcp.exclusive allows one live session at a time and answers
// another rollout's initialize with HTTP 409 and a JSON-RPC error (code
// ExclusiveErrorCode) that says when to retry, while the same rollout
// reconnects at any time. A request from a browser page of another origin,
// or naming a foreign Host on a loopback listener (DNS rebinding), gets 403
// (see mcp.allowed_origins and mcp.allowed_hosts).
// Door.Close ends the sessions and the calls in flight; the endpoint then
// answers 503.
//
// A stateless endpoint serves the hot case — a POST that carries one
// tools/call request for one of its tools — on a fast path of its own,
// without the go-sdk's per-request session, and answers it with the same
// bytes the go-sdk would; every other request goes to the go-sdk.
// mcp.disable_fast_path hands every request to the go-sdk (see
// MCPConfig.DisableFastPath).
//
// # stdio
//
// ServeStdio serves the same tools over standard input and output, for a
// client that starts the server itself, with whatever else the process
// prints kept off the stream.
package autoexpose
