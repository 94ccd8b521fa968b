package autoexpose

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/leakcheck"
)

// TestElicitStdio: over stdio, which carries requests both ways, Elicit
// asks the client on the stream (protocol 2025-11-25), or through input
// requests (2026-07-28).
func TestElicitStdio(t *testing.T) {
	leakcheck.Check(t)
	runs := 0
	r := chi.NewRouter()
	r.Post("/confirm", func(w http.ResponseWriter, r *http.Request) {
		runs++
		res, err := Elicit(r.Context(), "Sure?", nil)
		if err != nil {
			http.Error(w, err.Error(), http.StatusConflict)
			return
		}
		json.NewEncoder(w).Encode(res)
	})
	for _, tc := range []struct {
		protocol string
		runs     int
	}{{"2025-11-25", 1}, {"", 2}} {
		t.Run("protocol "+tc.protocol, func(t *testing.T) {
			d := stdioDoor(t, r, Config{Name: "test", ExposeToolsOverMCP: true, Logger: enabled(MCPConfig{}).Logger}) // a Door serves one stream
			runs = 0
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			served := make(chan error, 1)
			go func() { served <- d.serveIO(ctx, inR, outW); outW.Close() }()
			client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
				ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: "decline"}, nil
				},
			})
			cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, &mcp.ClientSessionOptions{ProtocolVersion: tc.protocol})
			if err != nil {
				t.Fatal(err)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "confirm", Arguments: map[string]any{}})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(res.Content)
			if string(b) != `[{"type":"text","text":"{\"action\":\"decline\"}"}]` || runs != tc.runs {
				t.Errorf("got %s after %d runs, want the decline after %d", b, runs, tc.runs)
			}
			cs.Close()
			if err := <-served; err != nil {
				t.Errorf("serveIO: %v", err)
			}
		})
	}
}
