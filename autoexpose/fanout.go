package autoexpose

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/edge"
	"github.com/mcpdoor/mcpdoor/internal/mcpcall"
	"github.com/mcpdoor/mcpdoor/internal/toolset"
)

// One POST may fan out into many tool calls: under protocol 2025-03-26 its
// body may be a JSON-RPC batch, and the go-sdk decodes every message of it,
// then runs each request in a goroutine of its own (its jsonrpc2
// connection starts one per request, which the server releases at once),
// all of them at the same time; a stateful session's concurrent POSTs do
// the same. Two bounds keep that in proportion:
//
//   - sdkserver.LimitBatch refuses a batch of more than mcp.max_batch messages before
//     the go-sdk decodes it, so one request makes at most that many
//     goroutines;
//   - callSlots lets at most mcp.max_concurrent_calls tool calls of one MCP
//     session (of one request, on a stateless endpoint, where each request
//     is a session) run at once. The others wait for a slot rather than
//     fail: they were sent together on purpose, an answer that depends on
//     timing would fail calls that would succeed a moment later, and a
//     waiting call costs only the goroutine the go-sdk has already made.
//     A waiting call ends with its request's context (the client cancels or
//     goes away, or the Door closes).

// callSlots bounds the tool calls that run at once, by the MCP session (or
// HTTP request) they came in. It is safe for concurrent use, and holds
// nothing for a key without calls.
type callSlots struct {
	max int

	mu   sync.Mutex
	keys map[string]*slots
}

// slots are one key's: a semaphore, and how many calls hold or wait for it.
type slots struct {
	free  chan struct{} // a value sent for each slot taken
	users int
}

func newCallSlots(max int) *callSlots {
	return &callSlots{max: max, keys: make(map[string]*slots)}
}

// acquire waits for a slot of key, within ctx, and returns the func that
// frees it, or ctx's error.
func (c *callSlots) acquire(ctx context.Context, key string) (release func(), err error) {
	c.mu.Lock()
	s := c.keys[key]
	if s == nil {
		s = &slots{free: make(chan struct{}, c.max)}
		c.keys[key] = s
	}
	s.users++
	c.mu.Unlock()
	leave := func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if s.users--; s.users == 0 {
			delete(c.keys, key)
		}
	}
	select {
	case s.free <- struct{}{}:
		return func() {
			<-s.free
			leave()
		}, nil
	case <-ctx.Done():
		leave()
		return nil, ctx.Err()
	}
}

// callMCP serves a tools/call that came through the go-sdk once a slot of
// its session is free (see callSlots).
func (c *calls) callMCP(ctx context.Context, t *toolset.Tool, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	release, err := c.slots.acquire(ctx, callKey(req))
	if err != nil {
		return nil, err
	}
	defer release()
	return c.call(ctx, t, req, mcpcall.New(req, c.stateless))
}

// callKey is what a call's slot is counted by: its MCP session, or on a
// stateless endpoint (whose sessions have no id, one to a request) its
// HTTP request; over stdio, the one session.
func callKey(req mcp.Request) string {
	if ss := req.GetSession(); ss != nil && ss.ID() != "" {
		return "session " + ss.ID()
	}
	return "request " + mcpcall.Header(req).Get(edge.RequestRefHeader)
}
