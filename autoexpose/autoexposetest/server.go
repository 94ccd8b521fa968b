package autoexposetest

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// A Server serves a handler to clients in the same process, with no
// listener: each client's requests are served by calling the handler, and
// responses stream back as the handler writes them. The handler is the
// server's real one: the Door it serves, made by [autoexpose.Install] or
// [autoexpose.Wrap] (a router with its Door installed serves the same, but
// for NeMo Gym's /ng-rollout/<id>/ prefix, which only the Door strips).
type Server struct {
	// URL is the base URL the clients address, http://127.0.0.1; the
	// handler sees a loopback listener and Host 127.0.0.1.
	URL string
	// Seed is the body [Server.Parity] posts to /seed_session to start each of its
	// sessions, when the rollout contract is on. Default {}.
	Seed string

	door *autoexpose.Door
	// path and tokenHeader are the door's Endpoint: where its MCP endpoint
	// is, and the rollout's token header ("" when the contract is off).
	path, tokenHeader string
	host              *host
	ports             atomic.Int32
}

// NewServer serves h, what the server serves (door itself, or the router
// door is installed on), until the test ends: then
// the requests still in flight end, as they would if their connections
// closed, and the Server waits for their handlers to return. It fails the
// test at once when door serves no MCP endpoint (expose_tools_over_mcp is
// false, or mcp.degrade: http-only dropped it).
func NewServer(t testing.TB, h http.Handler, door *autoexpose.Door) *Server {
	t.Helper()
	path, tokenHeader := door.Endpoint()
	if path == "" {
		why := "expose_tools_over_mcp is false"
		if door != nil && door.Degraded() != nil {
			why = "mcp.degrade: http-only dropped it: " + door.Degraded().Error()
		}
		t.Fatalf("autoexposetest: NewServer: the door serves no MCP endpoint (%s)", why)
	}
	s := &Server{
		URL:         "http://127.0.0.1",
		door:        door,
		path:        path,
		tokenHeader: tokenHeader,
		host: &host{
			h:        h,
			local:    &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 80},
			inflight: make(map[*serving]struct{}),
		},
	}
	t.Cleanup(func() {
		s.host.close(func(done <-chan struct{}) {
			for {
				select {
				case <-done:
					return
				case <-time.After(5 * time.Second):
					t.Logf("autoexposetest: waiting for handlers still running after their requests ended")
				}
			}
		})
	})
	return s
}

// Client returns a new client of the server: one user, with a cookie jar
// of its own, empty, as a new user's is. The first response that sets the
// server's session cookie (its session middleware's, or /seed_session's)
// gives the client its session, apart from every other client's; from then
// on its HTTP requests and its MCP calls run in it. An MCP call made before
// runs where a real client's would: in the session its token names, else
// the door's local one.
func (s *Server) Client() *Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		panic("mcpdoor: autoexposetest: " + err.Error())
	}
	tr := &transport{host: s.host, remote: fmt.Sprintf("127.0.0.1:%d", 40000+s.ports.Add(1))}
	return &Client{
		HTTP: &http.Client{
			Jar:       jar,
			Transport: tr,
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return http.ErrUseLastResponse
			},
		},
		srv: s,
	}
}

// A Client is one user of a [Server]: its HTTP requests and the MCP sessions
// it opens share its cookies, and so its session.
type Client struct {
	// HTTP sends requests to the server in process, with the client's
	// cookies. It does not follow redirects: a test sees what the route
	// answered. The client's MCP sessions ([Client.Connect]) send their
	// requests through its Jar and Transport too, so a header that a
	// test's Transport adds (credentials, say) reaches both doors.
	HTTP *http.Client

	srv    *Server
	header http.Header // sent with every MCP request: the last Seed's
}

// A Response is what the HTTP door answered.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Post sends body (JSON) to path through the HTTP door, as POST with
// Content-Type application/json, and fails the test if no response comes.
func (c *Client) Post(t testing.TB, path, body string) *Response {
	t.Helper()
	resp, err := c.post(context.Background(), path, body)
	if err != nil {
		t.Fatalf("autoexposetest: %v", err)
	}
	return resp
}

func (c *Client) post(ctx context.Context, path, body string) (*Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.srv.URL+path, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("POST %s: %w", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("POST %s: reading the body: %w", path, err)
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: b}, nil
}
