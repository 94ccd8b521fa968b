package autoexpose_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// connect returns an MCP client session to door's server, in memory.
func connect(door *autoexpose.Door, opts *mcp.ClientOptions) *mcp.ClientSession {
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	if _, err := door.Server().Connect(ctx, st, nil); err != nil {
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
	door, err := autoexpose.Install(r, autoexpose.Config{Name: "sales", ExposeToolsOverMCP: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		log.Fatal(err)
	}
	cs := connect(door, nil)
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
	door, err := autoexpose.Install(r, autoexpose.Config{Name: "files", ExposeToolsOverMCP: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		log.Fatal(err)
	}
	cs := connect(door, &mcp.ClientOptions{
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
	door, err := autoexpose.Install(r, autoexpose.Config{Name: "notes", ExposeToolsOverMCP: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		log.Fatal(err)
	}
	cs := connect(door, &mcp.ClientOptions{
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
