package autoexpose_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/session"
)

// UseSessions makes one session manager for the router's middleware and
// the door, so that a client's HTTP requests and its tool calls run in one
// session.
func ExampleConfig_UseSessions() {
	cfg, err := autoexpose.ParseConfig([]byte(`
name: notes
expose_tools_over_mcp: true
mcp:
  session_secret: "an example secret of at least 32 bytes"
`))
	if err != nil {
		log.Fatal(err)
	}
	cfg.Logger = slog.New(slog.DiscardHandler)

	sessions, err := cfg.UseSessions() // optional: per-session state, shared by both doors
	if err != nil {
		log.Fatal(err)
	}
	r := chi.NewRouter()
	r.Use(sessions.Middleware)
	r.Post("/whoami", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, "%q", session.ID(r)) // the same id on both doors
	})
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(door)
	defer srv.Close()

	// One client: its cookie jar carries the session to both doors.
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar}
	resp, err := client.Post(srv.URL+"/whoami", "application/json", nil)
	if err != nil {
		log.Fatal(err)
	}
	overHTTP, _ := io.ReadAll(resp.Body)
	resp.Body.Close()

	ctx := context.Background()
	transport := &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", HTTPClient: client}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil).Connect(ctx, transport, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
	if err != nil {
		log.Fatal(err)
	}
	overMCP := res.Content[0].(*mcp.TextContent).Text
	fmt.Println("one session:", overMCP == string(overHTTP) && len(overHTTP) > 2)
	// Output:
	// one session: true
}
