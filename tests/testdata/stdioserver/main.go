// Command stdioserver is the tests' stdio MCP server: a router whose
// handlers print to standard output, as careless handlers and libraries do,
// served with autoexpose.ServeStdio. The tests build it and drive it with
// real MCP clients; what the handlers print must reach standard error, and
// the MCP stream on standard output must stay intact.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/session"
)

type echoIn struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

type echoOut struct {
	Echo    string `json:"echo"`
	Session bool   `json:"session"`
}

func main() {
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	cfg := autoexpose.Config{
		Name:               "stdio_fixture",
		ExposeToolsOverMCP: true,
		Logger:             log,
	}
	sessions, err := cfg.UseSessions()
	if err != nil {
		log.Error("stdioserver", "err", err)
		os.Exit(1)
	}
	r := chi.NewRouter()
	r.Use(sessions.Middleware)
	// echo prints to standard output three ways before it answers.
	r.Method(http.MethodPost, "/echo", autoexpose.Handler(func(_ context.Context, r *http.Request, in echoIn) (echoOut, error) {
		fmt.Println("stray fmt.Println from the echo handler:", in.Text)
		os.Stdout.WriteString("stray os.Stdout write from the echo handler\n")
		syscall.Write(1, []byte("stray write to file descriptor 1 from the echo handler\n"))
		return echoOut{Echo: in.Text, Session: session.ID(r) != ""}, nil
	}, autoexpose.Describe("Echo the text, after printing to standard output.")))
	// quiet answers plain text and prints nothing.
	r.Post("/quiet", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "shh")
	})

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = autoexpose.ServeStdio(ctx, r, cfg)
	// Standard output is the process's own again.
	fmt.Println("stdioserver: done")
	if err != nil {
		log.Error("stdioserver", "err", err)
		os.Exit(1)
	}
}
