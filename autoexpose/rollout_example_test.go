package autoexpose_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// sendToken sends a session token on every request, as an agent sends the
// one /seed_session handed it.
type sendToken string

func (tok sendToken) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-NeMo-Gym-Session-Token", string(tok))
	return http.DefaultTransport.RoundTrip(r)
}

// A rollout server: /seed_session hands out a session token, here narrowed
// by AllowedTools to the tools the dataset row allows, and every MCP call
// carries it.
func ExampleRollout_allowedTools() {
	cfg, err := autoexpose.ParseConfig([]byte(`
name: weather
expose_tools_over_mcp: true
mcp:
  session_secret: "an example secret of at least 32 bytes"
`))
	if err != nil {
		log.Fatal(err)
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	cfg.MCP.Rollout.AllowedTools = func(seedBody []byte) ([]string, error) {
		var row struct {
			AllowedTools []string `json:"allowed_tools"`
		}
		if err := json.Unmarshal(seedBody, &row); err != nil {
			return nil, err // the seed fails with 500, and no token is minted
		}
		return row.AllowedTools, nil // nil: every tool
	}

	answer := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, body)
		}
	}
	r := chi.NewRouter()
	r.Post("/get_weather", answer(`{"weather":"sunny"}`))
	r.Post("/list_cities", answer(`{"cities":["Paris"]}`))
	r.Post("/seed_session", answer(`{}`))
	r.Post("/verify", answer(`{"reward":1}`))
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(door)
	defer srv.Close()

	// The harness seeds the rollout with its dataset row.
	resp, err := http.Post(srv.URL+"/seed_session", "application/json", strings.NewReader(`{"allowed_tools":["get_weather"]}`))
	if err != nil {
		log.Fatal(err)
	}
	var seed struct {
		MCP struct {
			ServerName string            `json:"server_name"`
			URLPath    string            `json:"url_path"`
			Transport  string            `json:"transport"`
			Headers    map[string]string `json:"headers"`
		} `json:"mcp"`
	}
	json.NewDecoder(resp.Body).Decode(&seed)
	resp.Body.Close()
	fmt.Println(seed.MCP.ServerName, seed.MCP.URLPath, seed.MCP.Transport)

	// The agent calls the tools with the token.
	tok := seed.MCP.Headers["X-NeMo-Gym-Session-Token"]
	ctx := context.Background()
	transport := &mcp.StreamableClientTransport{
		Endpoint:   srv.URL + seed.MCP.URLPath,
		HTTPClient: &http.Client{Transport: sendToken(tok)},
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, transport, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range list.Tools {
		fmt.Println("listed:", t.Name)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_cities", Arguments: map[string]any{}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.IsError, res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// weather /mcp http
	// listed: get_weather
	// true Tool 'list_cities' is not allowed for this session.
}
