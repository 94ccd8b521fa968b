package apisurface

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/detector"
	"github.com/mcpdoor/mcpdoor/session"
	"github.com/mcpdoor/mcpdoor/token"
)

// prefix is how every error text and setup panic of mcpdoor starts, so
// that a user reading a log can tell whose it is.
const prefix = "mcpdoor: "

// TestErrorPrefix: the errors a user gets from each public package, and
// the panics of its setup mistakes, start with "mcpdoor: ".
func TestErrorPrefix(t *testing.T) {
	const secret = "a secret of at least thirty-two bytes"
	keys, err := token.NewKeys([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	codec := token.NewCodec("weather", keys, 0)
	bad := filepath.Join(t.TempDir(), "server.yaml")
	if err := os.WriteFile(bad, []byte("nme: weather\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		text func() string
	}{
		{"autoexpose.LoadConfig", func() string { _, err := autoexpose.LoadConfig(bad); return errText(err) }},
		{"autoexpose.ParseConfig", func() string { _, err := autoexpose.ParseConfig([]byte("nme: weather\n")); return errText(err) }},
		{"autoexpose.Install", func() string {
			r := chi.NewRouter()
			r.Post("/mcp", func(http.ResponseWriter, *http.Request) {})
			_, err := autoexpose.Install(r, autoexpose.Config{Name: "weather", ExposeToolsOverMCP: true,
				MCP: autoexpose.MCPConfig{SessionSecret: []string{secret}}, Logger: slog.New(slog.DiscardHandler)})
			return errText(err)
		}},
		{"autoexpose.ServeStdio", func() string {
			return errText(autoexpose.ServeStdio(context.Background(), chi.NewRouter(), autoexpose.Config{}))
		}},
		{"autoexpose.Config.UseSessions", func() string {
			cfg := autoexpose.Config{MCP: autoexpose.MCPConfig{SessionSecret: []string{"short"}}}
			_, err := cfg.UseSessions()
			return errText(err)
		}},
		{"detector.Inspect, a bad option", func() string {
			_, err := detector.Inspect(chi.NewRouter(), &detector.Options{Dispatch: "sometimes"})
			return errText(err)
		}},
		{"detector.Inspect, a router with /mcp", func() string {
			r := chi.NewRouter()
			r.Post("/mcp", func(http.ResponseWriter, *http.Request) {})
			_, err := detector.Inspect(r, nil)
			return errText(err)
		}},
		{"session.New panic", func() string { return panicText(func() { session.New(token.Keys{}, nil) }) }},
		{"token.NewKeys none", func() string { _, err := token.NewKeys(); return errText(err) }},
		{"token.NewKeys short", func() string { _, err := token.NewKeys([]byte("short")); return errText(err) }},
		{"token.NewCodec panic", func() string { return panicText(func() { token.NewCodec("weather", token.Keys{}, 0) }) }},
		{"token.NewCodec ttl panic", func() string { return panicText(func() { token.NewCodec("weather", keys, -1) }) }},
		{"token.Codec.Mint", func() string { _, err := codec.Mint(token.Payload{}); return errText(err) }},
		{"token.Codec.Verify", func() string { _, err := codec.Verify("garbage"); return errText(err) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := c.text()
			if !strings.HasPrefix(text, prefix) {
				t.Errorf("%s: %q does not start with %q", c.name, text, prefix)
			}
		})
	}
}

// errText is err's text, or a note that there was none.
func errText(err error) string {
	if err == nil {
		return "(no error)"
	}
	return err.Error()
}

// panicText is the text of the value f panics with, or a note that it did
// not panic.
func panicText(f func()) (text string) {
	defer func() {
		if v := recover(); v != nil {
			text = fmt.Sprint(v)
		}
	}()
	f()
	return "(no panic)"
}
