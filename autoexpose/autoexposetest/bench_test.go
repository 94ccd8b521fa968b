package autoexposetest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose/autoexposetest"
)

// BenchmarkCall measures one tools/call of the fixture's greet, with the
// go-sdk client, over the kit's in-process transport and over a loopback
// listener (httptest.Server), to show what a test saves by the first.
func BenchmarkCall(b *testing.B) {
	params := &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "Ana"}}
	for _, via := range []string{"in-process", "loopback"} {
		b.Run(via, func(b *testing.B) {
			h, door := newShop(b, "")
			var cs *mcp.ClientSession
			if via == "in-process" {
				c := autoexposetest.NewServer(b, h, door).Client()
				c.Seed(b, "{}")
				cs = c.Connect(b, nil)
			} else {
				cs = loopback(b, h)
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if res, err := cs.CallTool(ctx, params); err != nil || res.IsError {
					b.Fatal(res, err)
				}
			}
		})
	}
}

// loopback serves h on 127.0.0.1, seeds a rollout and connects with its
// token.
func loopback(b *testing.B, h http.Handler) *mcp.ClientSession {
	srv := httptest.NewServer(h)
	b.Cleanup(srv.Close)
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar}
	b.Cleanup(hc.CloseIdleConnections)
	resp, err := hc.Post(srv.URL+"/seed_session", "application/json", strings.NewReader("{}"))
	if err != nil {
		b.Fatal(err)
	}
	var seed struct {
		MCP struct{ Headers map[string]string }
	}
	json.NewDecoder(resp.Body).Decode(&seed)
	resp.Body.Close()
	header := http.Header{}
	for k, v := range seed.MCP.Headers {
		header.Set(k, v)
	}
	hc.Transport = roundTripper(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		for k, v := range header {
			r.Header[k] = v
		}
		return http.DefaultTransport.RoundTrip(r)
	})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", HTTPClient: hc}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
