package dispatch

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"
)

// Replay dispatches through a whole router, in process: every middleware
// runs as it does for an HTTP client, so a replayed call is never let past a
// check the HTTP door enforces.
type Replay struct {
	router http.Handler
	limit  int64
}

// NewReplay returns a Replay dispatcher serving through router.
// maxResponseBytes caps the captured body; 0 means DefaultMaxResponseBytes.
func NewReplay(router http.Handler, maxResponseBytes int64) *Replay {
	return &Replay{router: router, limit: limitOr(maxResponseBytes)}
}

// Dispatch serves c through the router with ctx's cancellation and values,
// minus any chi route context in ctx (chi would reuse it and route the call
// as the request that carried it).
func (rp *Replay) Dispatch(ctx context.Context, c *Call) *Response {
	if ctx.Value(chi.RouteCtxKey) != nil {
		ctx = context.WithValue(ctx, chi.RouteCtxKey, nil)
	}
	e := &exchange{rec: recorder{limit: rp.limit}}
	req, err := e.request(ctx, c)
	if err != nil {
		return failed(err)
	}
	return serve(rp.router, req, e)
}

// Serve serves req through h, in process, as Replay serves a Call: minus
// any chi route context in req's context, capturing at most limit bytes of
// the body (0: DefaultMaxResponseBytes), a panic recovered into a 500.
func Serve(h http.Handler, req *http.Request, limit int64) *Response {
	ctx := req.Context()
	if ctx.Value(chi.RouteCtxKey) != nil {
		req = req.WithContext(context.WithValue(ctx, chi.RouteCtxKey, nil))
	}
	e := &exchange{rec: recorder{limit: limitOr(limit)}}
	return serve(h, req, e)
}
