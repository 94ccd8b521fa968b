package autoexpose

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// frontWarning starts the warning of a router whose own middlewares may
// cut or refuse the MCP endpoint's requests.
const frontWarning = "mcpdoor: the router's own middlewares (its Use) also run in front of the MCP endpoint"

// TestHarmlessMiddlewareInFront: the middlewares that do the MCP endpoint
// no harm are not warned about, and with each in front of it, a stateless
// and a stateful client (with its event stream) list and call tools as
// without.
func TestHarmlessMiddlewareInFront(t *testing.T) {
	quiet := middleware.RequestLogger(&middleware.DefaultLogFormatter{Logger: quietLog{}})
	defer func(logger func(http.Handler) http.Handler) { middleware.DefaultLogger = logger }(middleware.DefaultLogger)
	middleware.DefaultLogger = quiet // what Logger logs with
	for _, tc := range []struct {
		name string
		mw   func(http.Handler) http.Handler
	}{
		{"URLFormat", middleware.URLFormat},
		{"Logger", middleware.Logger},
		{"RequestLogger", quiet},
		{"RequestID", middleware.RequestID},
		//lint:ignore SA1019 what RealIP does in front of the MCP endpoint is the point
		{"RealIP", middleware.RealIP},
		{"Recoverer", middleware.Recoverer},
		{"StripSlashes", middleware.StripSlashes},
		{"CleanPath", middleware.CleanPath},
		{"NoCache", middleware.NoCache},
		{"Heartbeat", middleware.Heartbeat("/ping")},
		{"GetHead", middleware.GetHead},
		{"WithValue", middleware.WithValue(ctxKey{}, "v")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, stateful := range []bool{false, true} {
				var logs bytes.Buffer
				r := chi.NewRouter()
				r.Use(tc.mw)
				r.Post("/echo", ok)
				cfg := enabled(MCPConfig{Stateful: stateful})
				cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
				door, err := Install(r, cfg)
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(logs.String(), frontWarning) {
					t.Errorf("stateful %v: warned of a harmless middleware:\n%s", stateful, logs.String())
				}
				srv := httptest.NewServer(door)
				client := mcp.NewClient(&mcp.Implementation{Name: "front", Version: "1"}, nil)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", DisableStandaloneSSE: !stateful}, nil)
				if err != nil {
					t.Fatalf("stateful %v: connect: %v", stateful, err)
				}
				if list, err := cs.ListTools(ctx, nil); err != nil || len(list.Tools) != 1 {
					t.Errorf("stateful %v: tools/list: %v, %v", stateful, list, err)
				}
				if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}}); err != nil || res.IsError {
					t.Errorf("stateful %v: tools/call: %+v, %v", stateful, res, err)
				}
				cs.Close()
				cancel()
				srv.Close()
			}
		})
	}
}

// TestMiddlewareInFrontWarned: a middleware that may end an MCP request
// early or hold it back, or change its event stream, is warned about.
func TestMiddlewareInFrontWarned(t *testing.T) {
	for _, tc := range []struct {
		name, full string
		mw         func(http.Handler) http.Handler
	}{
		{"Timeout", "github.com/go-chi/chi/v5/middleware.Timeout.func1", middleware.Timeout(time.Second)},
		{"Throttle", "github.com/go-chi/chi/v5/middleware.ThrottleWithOpts.func1", middleware.Throttle(10)},
		{"Compress", "github.com/go-chi/chi/v5/middleware.(*Compressor).Handler-fm", middleware.Compress(5, "text/event-stream")},
		{"unknown code", "github.com/mcpdoor/mcpdoor/autoexpose.customMiddleware", customMiddleware},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			r := chi.NewRouter()
			r.Use(tc.mw)
			r.Post("/echo", ok)
			cfg := enabled(MCPConfig{})
			cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			if _, err := Install(r, cfg); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(logs.String(), frontWarning) || !strings.Contains(logs.String(), "middlewares="+tc.full) {
				t.Errorf("no warning naming %s:\n%s", tc.full, logs.String())
			}
		})
	}
}

type ctxKey struct{}

// quietLog is a middleware.LoggerInterface that writes nothing.
type quietLog struct{}

func (quietLog) Print(...any) {}
