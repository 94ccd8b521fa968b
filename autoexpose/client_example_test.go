package autoexpose_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// connect returns an MCP client session to a door's go-sdk server (kept
// by Config.ExtendServer), in memory.
func connect(server *mcp.Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, opts).Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	return cs
}

// A route answers several content blocks, and structured content, in the
// content convention. An MCP client gets exactly those blocks; an HTTP
// client, the JSON.
func ExampleContentMediaType() {
	r := chi.NewRouter()
	r.Post("/sales_report", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", autoexpose.ContentMediaType)
		json.NewEncoder(w).Encode(map[string]any{
			"content": []mcp.Content{
				&mcp.TextContent{Text: "Sales are up 12%."},
				&mcp.ResourceLink{URI: "https://example.com/sales.csv", Name: "sales.csv", MIMEType: "text/csv"},
			},
			"structuredContent": map[string]int{"up_percent": 12},
		})
	})
	var server *mcp.Server // the door's go-sdk server, for a client in memory
	if _, err := autoexpose.Install(r, autoexpose.Config{Name: "sales", ExposeToolsOverMCP: true, Logger: slog.New(slog.DiscardHandler),
		ExtendServer: func(s *mcp.Server) { server = s }}); err != nil {
		log.Fatal(err)
	}
	cs := connect(server, nil)
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "sales_report", Arguments: map[string]any{}})
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range res.Content {
		b, _ := json.Marshal(c)
		fmt.Println(string(b))
	}
	fmt.Println(res.StructuredContent)
	// Output:
	// {"type":"text","text":"Sales are up 12%."}
	// {"type":"resource_link","mimeType":"text/csv","uri":"https://example.com/sales.csv","name":"sales.csv"}
	// map[up_percent:12]
}

// A destructive route asks the user to confirm over MCP, and takes a
// "confirm" field from an HTTP caller, who has no one to ask.
func ExampleElicit() {
	r := chi.NewRouter()
	r.Post("/delete_files", func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Confirm bool `json:"confirm"`
		}
		json.NewDecoder(r.Body).Decode(&in)
		res, err := autoexpose.Elicit(r.Context(), "Delete every file?", &jsonschema.Schema{
			Type:       "object",
			Properties: map[string]*jsonschema.Schema{"reason": {Type: "string", Description: "Why"}},
		})
		switch {
		case errors.Is(err, autoexpose.ErrNoClient):
			if !in.Confirm {
				http.Error(w, `send "confirm": true to delete every file`, http.StatusBadRequest)
				return
			}
		case errors.Is(err, errors.ErrUnsupported):
			http.Error(w, "ask the user to confirm first: "+err.Error(), http.StatusBadRequest)
			return
		case err != nil:
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		case res.Action != "accept":
			fmt.Fprintf(w, "Nothing deleted: the user chose %s.", res.Action)
			return
		}
		fmt.Fprintf(w, "Deleted every file (reason: %v).", res.Content["reason"])
	})
	var server *mcp.Server // the door's go-sdk server, for a client in memory
	if _, err := autoexpose.Install(r, autoexpose.Config{Name: "files", ExposeToolsOverMCP: true, Logger: slog.New(slog.DiscardHandler),
		ExtendServer: func(s *mcp.Server) { server = s }}); err != nil {
		log.Fatal(err)
	}
	cs := connect(server, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			fmt.Println("asked:", req.Params.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"reason": "cleanup"}}, nil
		},
	})
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_files", Arguments: map[string]any{}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// asked: Delete every file?
	// Deleted every file (reason: cleanup).
}

// A route asks the MCP client's language model to summarize a text.
func ExampleSample() {
	r := chi.NewRouter()
	r.Post("/summarize", func(w http.ResponseWriter, r *http.Request) {
		//lint:ignore SA1019 MCP deprecates sampling as of 2026-07-28; clients keep it during the deprecation window
		res, err := autoexpose.Sample(r.Context(), &mcp.CreateMessageParams{
			//lint:ignore SA1019 see above
			Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "Summarize: the meeting moved to Friday."}}},
			MaxTokens: 100,
		})
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if text, ok := res.Content.(*mcp.TextContent); ok {
			fmt.Fprint(w, text.Text)
		}
	})
	var server *mcp.Server // the door's go-sdk server, for a client in memory
	if _, err := autoexpose.Install(r, autoexpose.Config{Name: "notes", ExposeToolsOverMCP: true, Logger: slog.New(slog.DiscardHandler),
		ExtendServer: func(s *mcp.Server) { server = s }}); err != nil {
		log.Fatal(err)
	}
	cs := connect(server, &mcp.ClientOptions{
		//lint:ignore SA1019 see above
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			//lint:ignore SA1019 see above
			return &mcp.CreateMessageResult{Role: "assistant", Model: "a-model", Content: &mcp.TextContent{Text: "Friday."}}, nil
		},
	})
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "summarize", Arguments: map[string]any{}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// Friday.
}

// A route asks for the client's roots, and works in the first.
func ExampleRoots() {
	r := chi.NewRouter()
	r.Post("/project", func(w http.ResponseWriter, r *http.Request) {
		res, err := autoexpose.Roots(r.Context())
		if err != nil || len(res.Roots) == 0 {
			http.Error(w, "no root to work in", http.StatusBadRequest)
			return
		}
		fmt.Fprintf(w, "Working in %s.", res.Roots[0].URI)
	})
	var server *mcp.Server // the door's go-sdk server, for a client in memory
	if _, err := autoexpose.Install(r, autoexpose.Config{Name: "project", ExposeToolsOverMCP: true, Logger: slog.New(slog.DiscardHandler),
		ExtendServer: func(s *mcp.Server) { server = s }}); err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil)
	//lint:ignore SA1019 MCP deprecates roots as of 2026-07-28; clients keep them during the deprecation window
	client.AddRoots(&mcp.Root{URI: "file:///home/ada/project", Name: "project"})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "project", Arguments: map[string]any{}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// Working in file:///home/ada/project.
}

// A route names its question's key, which a client of protocol 2026-07-28
// finds the question under, and may answer unasked: here in its first call.
func ExampleInputKey() {
	schema := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"name": {Type: "string"}}}
	r := chi.NewRouter()
	r.Post("/greet", func(w http.ResponseWriter, r *http.Request) {
		res, err := autoexpose.Elicit(autoexpose.InputKey(r.Context(), "user_name"), "What is your name?", schema)
		if err != nil {
			http.Error(w, err.Error(), http.StatusConflict)
			return
		}
		fmt.Fprintf(w, "Hello, %v!", res.Content["name"])
	})
	if _, err := autoexpose.Install(r, autoexpose.Config{Name: "greeter", ExposeToolsOverMCP: true, Logger: slog.New(slog.DiscardHandler)}); err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(r)
	defer srv.Close()
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}},` +
		`"inputResponses":{"user_name":{"action":"accept","content":{"name":"Ada"}}}}}`
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(call))
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "greet"} {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	var answer struct {
		Result mcp.CallToolResult `json:"result"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
		log.Fatal(err)
	}
	fmt.Println(answer.Result.Content[0].(*mcp.TextContent).Text)
	// Output:
	// Hello, Ada!
}
