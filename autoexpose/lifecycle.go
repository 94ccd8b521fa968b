package autoexpose

import (
	"context"
	"errors"
	"net/http"
	"sync"
)

// closedBody is what the endpoint answers, with 503, once the Door is
// closed.
const closedBody = "mcpdoor: this MCP endpoint is closed (the server is shutting down)"

// lifecycle is what Door.Close ends: the endpoint's requests in flight, and
// its sessions.
type lifecycle struct {
	ctx    context.Context // ends when the Door closes
	cancel context.CancelFunc

	mu     sync.Mutex
	closed bool
	// opening counts the requests that may create a session (a stateful
	// POST without Mcp-Session-Id), so that Close can wait for them before
	// it ends the sessions there are, and the POSTs of a stateless endpoint,
	// each in a session of its own or served by the fast path, so that
	// Close waits for their calls to return.
	opening sync.WaitGroup
	// unused ends the stateful sessions that make no request after their
	// initialize; nil on a stateless door.
	unused *unusedSessions

	once sync.Once
	err  error
}

func newLifecycle() *lifecycle {
	l := &lifecycle{}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	return l
}

// enter admits a request, unless the Door is closed. A request counted in
// opening (opens) must call l.opening.Done when it ends.
func (l *lifecycle) enter(opens bool) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return false
	}
	if opens {
		l.opening.Add(1)
	}
	return true
}

// wrap serves next until the Door closes, and 503 after. A request's
// context also ends when the Door closes, and with it the tool call it
// carries and any stream it holds open.
func (l *lifecycle) wrap(stateful bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A POST that may open a session, or carries a stateless call.
		opens := r.Method == http.MethodPost && (!stateful || r.Header.Get(sessionIDHeader) == "")
		if !l.enter(opens) {
			http.Error(w, closedBody, http.StatusServiceUnavailable)
			return
		}
		if opens {
			defer l.opening.Done()
		}
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		defer context.AfterFunc(l.ctx, cancel)()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// Close shuts the MCP endpoint: from then on it answers every request with
// 503 Service Unavailable. Close ends the contexts of the tool calls in
// flight (a handler that honours its context returns), waits for the
// requests that were opening a session, then ends every live MCP session,
// waiting for the calls still running in it to return. Close does not touch
// the router or the HTTP door's routes.
//
// Close is safe to call more than once and concurrently (every call returns
// once the Door is closed, with the first call's result), and on the Door of
// a disabled or degraded config, where it does nothing. Its error joins the
// sessions' own close errors.
//
// To close the Door with the HTTP server, register it:
//
//	srv.RegisterOnShutdown(func() { door.Close() })
//
// so that srv.Shutdown does not wait for session streams to end by
// themselves.
func (d *Door) Close() error {
	if d.life == nil {
		return nil
	}
	l := d.life
	l.once.Do(func() {
		l.mu.Lock()
		l.closed = true
		l.mu.Unlock()
		l.cancel()
		l.opening.Wait()
		if l.unused != nil {
			l.unused.stop() // the sessions end here
		}
		var errs []error
		for ss := range d.server.Sessions() {
			if err := ss.Close(); err != nil {
				errs = append(errs, err)
			}
		}
		l.err = errors.Join(errs...)
	})
	return l.err
}
