// Command fence is the server TestFenceOffPath builds against a go-sdk the
// fast path was not verified against. It serves one tool, echo, which
// answers its text and whether the fast path is serving the call: the
// fast path runs a tool's handler on the request's own goroutine, under
// its serve method, where the go-sdk runs it on a goroutine of its own.
// It prints its URL on standard output and logs on standard error.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

func main() {
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, nil)))
	r := chi.NewRouter()
	r.Post("/echo", func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Text string `json:"text"`
		}
		json.NewDecoder(r.Body).Decode(&in)
		stack := make([]byte, 64<<10)
		stack = stack[:runtime.Stack(stack, false)]
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"text":      in.Text,
			"fast_path": bytes.Contains(stack, []byte("fastpath.(*Path).serve(")),
		})
	})
	cfg, err := autoexpose.ParseConfig([]byte("name: fence\nexpose_tools_over_mcp: true\n"))
	if err != nil {
		log.Fatal(err)
	}
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("http://%s/mcp\n", ln.Addr())
	log.Fatal(http.Serve(ln, door))
}
