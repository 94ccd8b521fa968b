package replay

import "net/http"

// Capture serves req with h into a recorder that keeps at most limit bytes of
// body (0 means DefaultMaxResponseBytes) and returns what h wrote. A panic in
// h becomes a 500 Response with Panic set, as in Dispatch.
//
// It is for wrappers that post-process a handler's response, such as the
// /seed_session wrap that adds the MCP metadata.
func Capture(h http.Handler, req *http.Request, limit int64) *Response {
	return serve(h, req, &exchange{rec: recorder{limit: limitOr(limit)}})
}
