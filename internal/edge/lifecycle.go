package edge

import (
	"context"
	"net/http"
	"sync"
)

// ClosedBody is what the endpoint answers, with 503, once the Door is
// closed.
const ClosedBody = "mcpdoor: this MCP endpoint is closed (the server is shutting down)"

// A Lifecycle is what Door.Close ends: the endpoint's requests in flight,
// and its sessions.
type Lifecycle struct {
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
	// Unused ends the stateful sessions that make no request after their
	// initialize; nil on a stateless door.
	Unused *UnusedSessions

	once sync.Once
	err  error
}

// NewLifecycle returns the Lifecycle of an open Door.
func NewLifecycle() *Lifecycle {
	l := &Lifecycle{}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	return l
}

// enter admits a request, unless the Door is closed. A request counted in
// opening (opens) must call l.opening.Done when it ends.
func (l *Lifecycle) enter(opens bool) bool {
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

// Wrap is the step that serves a request until the Door closes, and 503
// after. A request's context also ends when the Door closes, and with it
// the tool call it carries and any stream it holds open. stateful tells
// which POSTs Close waits for (see opening).
func (l *Lifecycle) Wrap(stateful bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// A POST that may open a session, or carries a stateless call.
			opens := r.Method == http.MethodPost && (!stateful || r.Header.Get(SessionIDHeader) == "")
			if !l.enter(opens) {
				http.Error(w, ClosedBody, http.StatusServiceUnavailable)
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
}

// Closed reports whether the Door is closed (or closing).
func (l *Lifecycle) Closed() bool { return l.ctx.Err() != nil }

// Close closes the Door (see Door.Close): from then on Wrap answers 503.
// It ends the contexts of the requests in flight, waits for the requests
// that were opening a session, stops Unused, then ends every live session
// with endSessions, whose error it returns. It runs once; every call
// returns once the Door is closed, with the first call's result.
func (l *Lifecycle) Close(endSessions func() error) error {
	l.once.Do(func() {
		l.mu.Lock()
		l.closed = true
		l.mu.Unlock()
		l.cancel()
		l.opening.Wait()
		if l.Unused != nil {
			l.Unused.Stop() // the sessions end here
		}
		l.err = endSessions()
	})
	return l.err
}
