package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// protocols are the MCP protocol versions each MCP server is measured
// under: the last one that opens with initialize, and the stateless one
// that needs no handshake at all.
var protocols = []string{"2025-11-25", "2026-07-28"}

// A call is the HTTP request a client sends for one echo call: replayed
// byte for byte to every contender, so that the client's work is the same
// whichever server answers.
type call struct {
	header http.Header
	body   []byte
}

// request returns the call as a request to url.
func (c call) request(ctx context.Context, url string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(c.body))
	if err != nil {
		return nil, err
	}
	req.Header = c.header.Clone()
	return req, nil
}

// placeholder stands for the echoed text in a recorded call; it needs no
// JSON escaping, nor does any text the bench sends.
const placeholder = "doorbench-placeholder-7f3a9c"

// calls holds a template call per protocol version, recorded from the
// go-sdk client; "" is the raw floor's, which is not MCP.
type calls map[string]call

// withText returns the call of protocol version v with text as the echo
// tool's argument.
func (cs calls) withText(v, text string) call {
	c := cs[v]
	return call{header: c.header, body: bytes.Replace(c.body, []byte(placeholder), []byte(text), 1)}
}

// recordCalls records the tools/call request the go-sdk client sends under
// each protocol version, against the hand-written go-sdk server on a
// loopback port, with the text placeholder as the echo tool's argument.
// Headers the HTTP transport sets by itself (Content-Length,
// Accept-Encoding) are left for the transport to set again.
func recordCalls(ctx context.Context) (calls, error) {
	h, err := newGoSDK()
	if err != nil {
		return nil, err
	}
	var (
		mu       sync.Mutex
		recorded call
	)
	rec := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if r.Method == http.MethodPost && bytes.Contains(body, []byte(`"tools/call"`)) {
			hdr := r.Header.Clone()
			hdr.Del("Content-Length")
			hdr.Del("Accept-Encoding")
			mu.Lock()
			recorded = call{header: hdr, body: body}
			mu.Unlock()
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: rec, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()

	out := calls{"": {header: http.Header{"Content-Type": {"application/json"}}, body: []byte(`{"text":"` + placeholder + `"}`)}}
	hc := &http.Client{Transport: &http.Transport{}}
	defer hc.CloseIdleConnections()
	for _, v := range protocols {
		client := mcp.NewClient(&mcp.Implementation{Name: "doorbench", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
			Endpoint: "http://" + ln.Addr().String() + "/mcp", HTTPClient: hc, DisableStandaloneSSE: true,
		}, &mcp.ClientSessionOptions{ProtocolVersion: v})
		if err != nil {
			return nil, fmt.Errorf("recording the go-sdk client's %s call: connect: %w", v, err)
		}
		if got := cs.InitializeResult().ProtocolVersion; got != v {
			cs.Close()
			return nil, fmt.Errorf("recording the go-sdk client's %s call: it negotiated %s", v, got)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": placeholder}})
		cs.Close()
		if err != nil || res.IsError {
			return nil, fmt.Errorf("recording the go-sdk client's %s call: %v %v", v, err, res)
		}
		mu.Lock()
		c := recorded
		recorded = call{}
		mu.Unlock()
		if bytes.Count(c.body, []byte(placeholder)) != 1 {
			return nil, fmt.Errorf("recording the go-sdk client's %s call: no tools/call request with the text once: %q", v, c.body)
		}
		out[v] = c
	}
	return out, nil
}
