// Package dispatch serves one MCP tool call through a route's own HTTP handler,
// in process, and captures what the handler writes.
//
// A Call carries the client's JSON arguments as the request body, unchanged,
// so the handler reads exactly the bytes the HTTP door would have been sent.
// Two dispatchers serve it:
//
//   - Direct calls the route's endpoint with a fabricated request: a fresh chi
//     route context with the URL parameters, path values and pattern set. It
//     is for routes whose middlewares may all be skipped.
//   - Replay serves the request through the whole router, so every middleware
//     the HTTP door enforces runs, exactly as for an HTTP client.
//
// A REST route's call (any method, path parameters, a query) is built by a
// Template: it expands the route's pattern with the parameters' values so
// that the router serves the request with that route and those values, or
// refuses a value that would reach another route, with a *ParamError a
// caller can show.
//
// Both dispatchers recover a handler's panic (the Response says so), honour
// the caller's context (the handler sees its cancellation), and cap the
// captured body. The Response holds what an HTTP client would have
// received: the status, the header as it stood when the status was
// written, and the body. Serve does the same for a request of the
// caller's own: it is package replay's Do.
package dispatch
