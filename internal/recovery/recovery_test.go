package recovery

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestPanicked: a request's panic is the client's internal error, which
// names the method and nothing of the cause; the log has the cause.
func TestPanicked(t *testing.T) {
	var logged bytes.Buffer
	err := Panicked(slog.New(slog.NewTextHandler(&logged, nil)), "tools/list", "the secret cause")
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInternalError || rpcErr.Message != "mcpdoor: internal error serving tools/list; the server logged it" {
		t.Errorf("Panicked = %v; want the internal error (-32603) of tools/list", err)
	}
	if strings.Contains(err.Error(), "secret") {
		t.Errorf("the client's error %q tells the cause", err)
	}
	if out := logged.String(); !strings.Contains(out, "level=ERROR") || !strings.Contains(out, "the secret cause") || !strings.Contains(out, "method=tools/list") {
		t.Errorf("the log: %s; want an ERROR with the method and the cause", out)
	}
}

// TestLogged: a goroutine's panic is logged with what it did; no panic
// logs nothing.
func TestLogged(t *testing.T) {
	var logged bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logged, nil))
	Logged(log, "recording a session's duration", nil)
	if logged.Len() != 0 {
		t.Errorf("no panic logged %s", logged.String())
	}
	Logged(log, "recording a session's duration", "boom")
	if out := logged.String(); !strings.Contains(out, `msg="mcpdoor: recording a session's duration panicked"`) || !strings.Contains(out, "panic=boom") {
		t.Errorf("the log: %s; want the panic of what the goroutine did", out)
	}
}
