package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/go-chi/chi/v5"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// echoIn is the echo tool's arguments, the same for every server.
type echoIn struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

// echoOut is the echo tool's answer: the text it was given.
type echoOut struct {
	Text string `json:"text"`
}

// maxBody bounds a request body on the servers that do not bound it
// themselves; the 1 MiB scenario's request fits with room to spare.
const maxBody = 4 << 20

// A server is one way of serving the echo tool. Each runs on its own
// 127.0.0.1 port in the server process.
type server struct {
	key   string // names it on the command line between the processes
	title string // as printed
	path  string // where it answers
	mcp   bool   // false for the raw floor, which is not MCP
	goals bool   // an mcpdoor variant: checked against the fast path's targets
	// build returns the server's handler; nil marks a server that does not
	// exist yet, printed as "not built yet" rather than measured.
	build func() (http.Handler, error)
}

// servers lists the contenders' servers, in the order they are printed.
// Every MCP server among them is measured under each protocol version of
// protocols.
var servers = []server{
	{key: "raw", title: "raw net/http JSON echo (not MCP; the floor)", path: "/echo", build: newRawEcho},
	{key: "lean", title: "lean hand-rolled JSON-RPC handler", path: "/mcp", mcp: true, build: newLean},
	{key: "mcp-go", title: "mcp-go, hand-written tool", path: "/mcp", mcp: true, build: newMCPGo},
	// mcpdoor as it was before its fast path, which still serves every
	// request with mcp.disable_fast_path: the go-sdk's stateless path.
	{key: "mcpdoor", title: "mcpdoor, fast path off (go-sdk path)", path: "/mcp", mcp: true, goals: true, build: newMCPDoorSDK},
	{key: "mcpdoor-fast", title: "mcpdoor (fast path)", path: "/mcp", mcp: true, goals: true, build: newMCPDoor},
	{key: "go-sdk", title: "go-sdk, hand-written tool", path: "/mcp", mcp: true, build: newGoSDK},
}

// newRawEcho is the floor: plain net/http that decodes the JSON arguments
// and writes them back, with no MCP around them.
func newRawEcho() (http.Handler, error) {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in echoIn
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody)).Decode(&in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(echoOut(in))
	}), nil
}

// newMCPGo is the echo tool written by hand with mark3labs/mcp-go, served by
// its stateless Streamable HTTP server, the way its README shows.
func newMCPGo() (http.Handler, error) {
	s := mcpgoserver.NewMCPServer("doorbench", "1", mcpgoserver.WithToolCapabilities(false))
	s.AddTool(
		mcpgo.NewTool("echo",
			mcpgo.WithDescription("Echo the text back."),
			mcpgo.WithInputSchema[echoIn](),
			mcpgo.WithOutputSchema[echoOut]()),
		mcpgo.NewStructuredToolHandler(func(_ context.Context, _ mcpgo.CallToolRequest, in echoIn) (echoOut, error) {
			return echoOut(in), nil
		}))
	return mcpgoserver.NewStreamableHTTPServer(s, mcpgoserver.WithStateLess(true)), nil
}

// newGoSDK is the echo tool written by hand with the go-sdk (mcp.AddTool),
// served by its stateless Streamable HTTP handler.
func newGoSDK() (http.Handler, error) {
	s := mcp.NewServer(&mcp.Implementation{Name: "doorbench", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text back."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, echoOut, error) {
			return nil, echoOut(in), nil
		})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: true}), nil
}

// mcpdoorConfig is the door's configuration: a plain API (no rollout
// routes, so no token), stateless, everything else the default.
const mcpdoorConfig = `
name: doorbench
expose_tools_over_mcp: true
`

// newMCPDoor is the echo tool as an mcpdoor user writes it: an ordinary chi
// route, auto-exposed at /mcp.
func newMCPDoor() (http.Handler, error) { return mcpdoorWith(mcpdoorConfig) }

// newMCPDoorSDK is the same with the fast path off: every request goes
// through the go-sdk's Streamable HTTP handler.
func newMCPDoorSDK() (http.Handler, error) {
	return mcpdoorWith(mcpdoorConfig + "mcp:\n  disable_fast_path: true\n")
}

// mcpdoorWith serves the echo route with the door of config.
func mcpdoorWith(config string) (http.Handler, error) {
	cfg, err := autoexpose.ParseConfig([]byte(config))
	if err != nil {
		return nil, err
	}
	r := chi.NewRouter()
	r.Method(http.MethodPost, "/echo", autoexpose.Handler(func(_ context.Context, _ *http.Request, in echoIn) (echoOut, error) {
		return echoOut(in), nil
	}))
	if _, err := autoexpose.Install(r, cfg); err != nil {
		return nil, fmt.Errorf("mcpdoor: %w", err)
	}
	return r, nil
}
