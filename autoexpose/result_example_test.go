package autoexpose_test

import (
	"fmt"
	"log"
	"log/slog"
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// A server's test checks what an agent is answered when a route answers
// what no call in a test provokes easily: here a dependency that is down,
// as a 503. No client, session or token is needed.
func ExampleDoor_Result() {
	r := chi.NewRouter()
	r.Post("/book_flight", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"booked":true}`)) })
	door, err := autoexpose.Install(r, autoexpose.Config{Name: "travel", ExposeToolsOverMCP: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		log.Fatal(err)
	}
	defer door.Close()
	res, ok := door.Result("book_flight", http.StatusServiceUnavailable, nil, []byte("the airline's API is down\n"))
	if !ok {
		log.Fatal("no tool book_flight")
	}
	fmt.Println(res.IsError, res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// true HTTP 503 from POST /book_flight: the airline's API is down
}
