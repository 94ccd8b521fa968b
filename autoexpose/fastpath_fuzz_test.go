package autoexpose

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpdoor/mcpdoor/internal/fastpath"
	"github.com/mcpdoor/mcpdoor/internal/mcpcall"
)

// fuzzHeader is the header FuzzFastPath sends a body with, chosen by a
// byte of the input: the protocol version (each the fast path serves, none,
// an unknown one), then Accept, Mcp-Method and Mcp-Name as a client sends
// them or not. The byte's next bit picks the door (see fuzzREST).
var fuzzVersions = append([]string{"", "1999-01-01"}, fastpath.Versions...)

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

// fuzzREST reports whether variant picks the REST door of FuzzFastPath.
func fuzzREST(variant uint8) bool { return (variant/uint8(len(fuzzVersions)))&8 != 0 }

// FuzzFastPath sends raw bodies, with header variations, to a door with
// the fast path and to the same door without it, in process, and requires
// the same answer: status, headers and body. One door's tools answer in
// JSON (echo, with an output schema), in text (raw, its arguments as it
// got them), with notifications (report), with several blocks (rich), and
// with questions to the client (ask, sample); the other's are REST routes
// (see restRouter).
func FuzzFastPath(f *testing.F) {
	type door struct{ rest, fast bool }
	handlers := make(map[door]http.Handler)
	doors := make(map[door]*Door)
	for _, rest := range []bool{false, true} {
		for _, fast := range []bool{true, false} {
			block := "mcp:\n  session_secret: \"" + goldenSecret + "\"\n"
			if !fast {
				block += "  disable_fast_path: true\n"
			}
			router := goldenRouter(false)
			if rest {
				block += restGoldenBlock
				router = restRouter()
			}
			cfg, err := ParseConfig([]byte("name: fuzz\nexpose_tools_over_mcp: true\n" + block))
			if err != nil {
				f.Fatal(err)
			}
			cfg.Logger = slog.New(slog.DiscardHandler)
			d, err := Install(router, cfg)
			if err != nil {
				f.Fatal(err)
			}
			handlers[door{rest, fast}], doors[door{rest, fast}] = d.handler, d
		}
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
	for _, v := range fastpath.Versions {
		f.Add(uint8(0), []byte(callBody(v, "1", "echo", `{"text":"hi"}`, "")))
		f.Add(uint8(0), []byte(callBody(v, `"x"`, "raw", `{"a": [1, 2.5e3, null, true]}`, `"progressToken":3`)))
		f.Add(uint8(0), []byte(callBody(v, "2", "report", `{}`, `"progressToken":"p"`)))
		f.Add(uint8(0), []byte(callBody(v, "3", "echo", `{"text":"hi"}`, `"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01","tracestate":"rojo=00f067aa0ba902b7","baggage":"user=alice"`)))
		f.Add(uint8(0), []byte(callBody(v, "4", "echo", `{"text":"hi"}`, `"traceparent":"not a traceparent","baggage":{"user":"alice"}`)))
		f.Add(uint8(0), []byte(callBody(v, "3", "rich", `{}`, "")))
		f.Add(uint8(0), []byte(callBody(v, "4", "ask", `{}`, "")))
	}
	// Questions to a 2026-07-28 client that can be asked, and its answers.
	const modern = 5 // fuzzVersions[5] is 2026-07-28
	f.Add(uint8(modern), []byte(askingCall("5", "ask", "")))
	f.Add(uint8(modern), []byte(askingCall("6", "sample", `"requestState":"e30"`)))
	f.Add(uint8(modern), []byte(askingCall("7", "ask", `"inputResponses":{"mcpdoor-1-c6289321ce54":{"action":"accept","content":{"sure":true}}},"requestState":"e30"`)))
	f.Add(uint8(modern), []byte(askingCall("8", "sample", `"inputResponses":{"mcpdoor-1-e8ddb23afeb1":{"role":"assistant","model":"m","content":[{"type":"text","text":"hi"}]}}`)))
	// REST calls: path, query and body arguments.
	for _, v := range []uint8{4, modern} {
		rest := v + 8*uint8(len(fuzzVersions))
		version := fuzzVersions[v]
		f.Add(rest, []byte(callBody(version, "1", "get_note", `{"id":"42"}`, "")))
		f.Add(rest, []byte(callBody(version, "2", "search_notes", `{"q":"a b","tags":["x","y"]}`, "")))
		f.Add(rest, []byte(callBody(version, "3", "update_note", `{"id":"1/2","text":"t"}`, "")))
		f.Add(rest, []byte(callBody(version, "4", "delete_note", `{"id":"9"}`, "")))
	}
	f.Fuzz(func(t *testing.T, variant uint8, body []byte) {
		header := fuzzHeader(variant)
		if v := header.Get("Mcp-Protocol-Version"); v >= mcpcall.ProtocolVersion2026 {
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
		rest := fuzzREST(variant)
		served := doors[door{rest, true}].fastCalls.Load()
		fast := post(handlers[door{rest, true}], header.Clone(), body)
		served = doors[door{rest, true}].fastCalls.Load() - served
		sdk := post(handlers[door{rest, false}], header.Clone(), body)
		diff := differ(sdk, fast)
		// The go-sdk's answer to a few bodies varies from one request to the
		// next: of several bad inputResponses, it names the first it meets
		// in a map's random order. Where the go-sdk answered on both doors
		// (the fast path left the request to it), both are asked again until
		// they agree; the fast path's own answer must be one of the go-sdk's.
		for i := 0; diff != "" && i < 100; i++ {
			if served == 0 {
				fast = post(handlers[door{rest, true}], header.Clone(), body)
			}
			sdk = post(handlers[door{rest, false}], header.Clone(), body)
			diff = differ(sdk, fast)
		}
		if diff != "" {
			t.Fatalf("header %v, body %q (served by the fast path: %t): the fast path's answer differs from the go-sdk's (-sdk +fast):\n%s", header, body, served > 0, diff)
		}
	})
}

// differ says how the answer fast differs from the answer sdk: its status,
// headers, body, and whether it was flushed; "" when it does not.
func differ(sdk, fast *httptest.ResponseRecorder) string {
	got := answer{Status: fast.Code, Header: fast.Header(), Body: fast.Body.String()}
	want := answer{Status: sdk.Code, Header: sdk.Header(), Body: sdk.Body.String()}
	if diff := cmp.Diff(want, got); diff != "" {
		return diff
	}
	if fast.Flushed != sdk.Flushed {
		return fmt.Sprintf("flushed: sdk %v, fast %v", sdk.Flushed, fast.Flushed)
	}
	return ""
}
