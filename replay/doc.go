// Package replay serves one MCP tool call through a route's own HTTP handler,
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
// Both recover a handler's panic (the Response says so), honour the caller's
// context (the handler sees its cancellation), and cap the captured body. The
// Response holds what an HTTP client would have received: the status, the
// header as it stood when the status was written, and the body.
package replay
