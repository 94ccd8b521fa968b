package autoexpose

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fuzzHeaders are the header variations FuzzFastPath sends a body with,
// chosen by a byte of the input: the protocol version (each the fast path
// serves, none, an unknown one), then Accept, Mcp-Method and Mcp-Name as a
// client sends them or not.
var fuzzVersions = append([]string{"", "1999-01-01"}, fastVersions...)

func fuzzHeader(variant uint8) http.Header {
	v := fuzzVersions[int(variant)%len(fuzzVersions)]
	variant /= uint8(len(fuzzVersions))
	h := callHeader(v, "echo")
	if variant&1 != 0 {
		h.Set("Accept", "application/json")
	}
	if variant&2 != 0 {
		h.Set("Mcp-Name", "raw")
	}
	if variant&4 != 0 {
		h.Del("Mcp-Method")
	}
	return h
}

// FuzzFastPath sends raw bodies, with header variations, to a door with
// the fast path and to the same door without it, in process, and requires
// the same answer: status, headers and body. The door's tools answer in
// JSON (echo, with an output schema), in text (raw, its arguments as it
// got them) and with notifications (report).
func FuzzFastPath(f *testing.F) {
	handlers := make(map[bool]http.Handler)
	for _, fast := range []bool{true, false} {
		block := "mcp:\n  session_secret: \"" + goldenSecret + "\"\n"
		if !fast {
			block += "  disable_fast_path: true\n"
		}
		cfg, err := ParseConfig([]byte("name: fuzz\nexpose_tools_over_mcp: true\n" + block))
		if err != nil {
			f.Fatal(err)
		}
		cfg.Logger = slog.New(slog.DiscardHandler)
		d, err := Install(goldenRouter(false), cfg)
		if err != nil {
			f.Fatal(err)
		}
		handlers[fast] = d.Handler()
	}
	post := func(h http.Handler, header http.Header, body []byte) *httptest.ResponseRecorder {
		// subscriptions/listen waits for its context to end: bound it.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/mcp", bytes.NewReader(body))
		req.Header = header
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	for _, v := range fastVersions {
		f.Add(uint8(0), []byte(callBody(v, "1", "echo", `{"text":"hi"}`, "")))
		f.Add(uint8(0), []byte(callBody(v, `"x"`, "raw", `{"a": [1, 2.5e3, null, true]}`, `"progressToken":3`)))
		f.Add(uint8(0), []byte(callBody(v, "2", "report", `{}`, `"progressToken":"p"`)))
	}
	f.Fuzz(func(t *testing.T, variant uint8, body []byte) {
		header := fuzzHeader(variant)
		if v := header.Get("Mcp-Protocol-Version"); v >= protocolVersion2026 {
			// The name a 2026-07-28 client sends is the one it calls.
			var call struct {
				Params struct {
					Name string `json:"name"`
				} `json:"params"`
			}
			if json.Unmarshal(body, &call) == nil && variant/uint8(len(fuzzVersions))&2 == 0 {
				header.Set("Mcp-Name", call.Params.Name)
			}
		}
		fast := post(handlers[true], header.Clone(), body)
		sdk := post(handlers[false], header.Clone(), body)
		got := answer{Status: fast.Code, Header: fast.Header(), Body: fast.Body.String()}
		want := answer{Status: sdk.Code, Header: sdk.Header(), Body: sdk.Body.String()}
		if diff := cmp.Diff(want, got); diff != "" || fast.Flushed != sdk.Flushed {
			t.Fatalf("header %v, body %q: the fast path's answer differs from the go-sdk's (-sdk +fast):\n%s\nflushed: sdk %v, fast %v", header, body, diff, sdk.Flushed, fast.Flushed)
		}
	})
}
