package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// inProcess starts every server and the control endpoint in the test's
// process, records the client's calls, and returns a driver of them.
func inProcess(t *testing.T) (*driver, []contender) {
	t.Helper()
	logger := slog.Default()
	slog.SetDefault(slog.New(slog.DiscardHandler)) // the door's startup report
	t.Cleanup(func() { slog.SetDefault(logger) })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	wire, err := recordCalls(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := startServers()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rs.close)
	d := newDriver(rs.Control, wire, 8)
	t.Cleanup(d.close)
	return d, contenders(rs.endpoints)
}

// send sends contender c the bench's call with text and returns the
// response and its body.
func send(t *testing.T, d *driver, c contender, text string) (*http.Response, []byte) {
	t.Helper()
	req, err := d.callOf(c, text).request(context.Background(), c.url)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := d.client.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", c.label(), err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// TestContendersAnswerAlike: sent the bench's own requests, every
// contender gives the echo tool's exact result, for the small text and the
// 1 MiB one, so that no contender's figure comes from answering something
// else. A call under 2026-07-28 is answered under that protocol (its result
// says "resultType":"complete"), and one under 2025-11-25 is not.
func TestContendersAnswerAlike(t *testing.T) {
	d, cs := inProcess(t)
	const wantSmall = `{"content":[{"text":"{\"text\":\"hello\"}","type":"text"}],"structuredContent":{"text":"hello"}}`
	if got := wantResult(true, smallText); got != wantSmall {
		t.Fatalf("wantResult: %s\nwant %s", got, wantSmall)
	}
	built := 0
	for _, c := range cs {
		if !c.built() {
			continue
		}
		built++
		for _, text := range []string{smallText, bigText(1 << 20)} {
			resp, body := send(t, d, c, text)
			got, err := toolResult(c.mcp, resp, body)
			if err != nil {
				t.Errorf("%s, %d bytes: %v", c.label(), len(text), err)
				continue
			}
			if want := wantResult(c.mcp, text); got != want {
				t.Errorf("%s, %d bytes: %s", c.label(), len(text), mismatch(got, want))
			}
			if text != smallText {
				continue
			}
			if modern := bytes.Contains(body, []byte(`"resultType":"complete"`)); c.mcp && modern != (c.protocol == "2026-07-28") {
				t.Errorf("%s answered as if under another protocol version: %s", c.label(), body)
			}
		}
	}
	if want := 1 + 2*5; built != want { // the raw floor; lean, mcp-go, mcpdoor with and without its fast path, go-sdk under two versions
		t.Errorf("%d contenders built, want %d", built, want)
	}
}

// TestRealClient: the go-sdk client connects to every MCP server under
// each protocol version, gets that version, and gets the same echo result:
// the recorded request is one a real client sends, and the lean handler is
// a server a real client can use.
func TestRealClient(t *testing.T) {
	_, cs := inProcess(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, c := range cs {
		if !c.built() || !c.mcp {
			continue
		}
		t.Run(c.key+" "+c.protocol, func(t *testing.T) {
			client := mcp.NewClient(&mcp.Implementation{Name: "doorbench-test", Version: "1"}, nil)
			s, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: c.url, DisableStandaloneSSE: true},
				&mcp.ClientSessionOptions{ProtocolVersion: c.protocol})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if got := s.InitializeResult().ProtocolVersion; got != c.protocol {
				t.Errorf("negotiated %s, want %s", got, c.protocol)
			}
			res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": smallText}})
			if err != nil {
				t.Fatal(err)
			}
			got, err := canonical(struct {
				Content           []mcp.Content `json:"content"`
				StructuredContent any           `json:"structuredContent,omitempty"`
				IsError           bool          `json:"isError,omitempty"`
			}{res.Content, res.StructuredContent, res.IsError})
			if err != nil {
				t.Fatal(err)
			}
			if want := wantResult(true, smallText); got != want {
				t.Errorf("got %s\nwant %s", got, want)
			}
		})
	}
}

// TestBrokenContender: a server that answers anything but the echo fails
// the run's check, naming the server, instead of yielding a figure.
func TestBrokenContender(t *testing.T) {
	d, _ := inProcess(t)
	for _, c := range []struct {
		name   string
		answer func(http.ResponseWriter)
		want   string
	}{
		{"wrong text", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"text\":\"hellO\"}"}],"structuredContent":{"text":"hellO"}}}`)
		}, "broken 2025-11-25: the echo tool answered otherwise"},
		{"no structured content", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"text\":\"hello\"}"}]}}`)
		}, "broken 2025-11-25: the echo tool answered otherwise"},
		{"tool error", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "event: message\ndata: "+`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hello failed"}],"isError":true}}`+"\n\n")
		}, "broken 2025-11-25: the echo tool answered otherwise"},
		{"JSON-RPC error", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"hello?"}}`)
		}, "broken 2025-11-25: no result"},
		{"HTTP error", func(w http.ResponseWriter) {
			http.Error(w, "hello, no", http.StatusInternalServerError)
		}, "broken 2025-11-25: HTTP 500"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { c.answer(w) }))
			defer srv.Close()
			broken := contender{server: server{key: "broken", title: "broken", mcp: true}, protocol: "2025-11-25", url: srv.URL}
			err := d.check(context.Background(), []contender{broken}, bigText(64))
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("check: %v\nwant an error starting %q", err, c.want)
			}
		})
	}
}

// TestRunCore runs every scenario with a handful of calls (and a 64 KiB
// text for the big echo, which TestContendersAnswerAlike covers at 1 MiB,
// so that the test stays short under the race detector): every built
// contender gets a figure in every round, the report prints them and says
// the fast path is not built yet, and no figure is missing or undefined.
// It asserts no time.
func TestRunCore(t *testing.T) {
	d, cs := inProcess(t)
	p := plan{rounds: 2, calls: 3, bigRounds: 2, bigCalls: 1, peakClients: 2, peakCalls: 1,
		loadRounds: 2, loadClients: 4, loadCalls: 8, warmup: 1, bigSize: 64 << 10}
	res, err := d.run(context.Background(), cs, p, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cs {
		for _, sc := range []struct {
			name    string
			rounds  [][]sample
			metric  func(sample) float64
			rounds0 int
		}{
			{"small alloc", res.small, allocOf, p.rounds},
			{"big alloc", res.big, allocOf, p.bigRounds},
			{"peak heap", res.peak, peakOf, p.bigRounds},
			{"calls/s", res.load, rateOf, p.loadRounds},
		} {
			if len(sc.rounds) != sc.rounds0 {
				t.Fatalf("%s: %d rounds, want %d", sc.name, len(sc.rounds), sc.rounds0)
			}
			for r, round := range sc.rounds {
				if v := sc.metric(round[i]); c.built() != (v > 0) {
					t.Errorf("%s, round %d, %s: %v", c.label(), r, sc.name, v)
				}
			}
		}
		if c.built() && figure(res.big, i, allocOf).median < float64(p.bigSize) {
			t.Errorf("%s allocated %v bytes per %d-byte echo, less than the text", c.label(), figure(res.big, i, allocOf).median, p.bigSize)
		}
	}
	var out bytes.Buffer
	report(&out, res, p)
	text := out.String()
	for _, bad := range []string{"NaN", "Inf"} {
		if strings.Contains(text, bad) {
			t.Errorf("the report prints %s:\n%s", bad, text)
		}
	}
	if strings.Contains(text, "not built yet") {
		t.Errorf("the report has a contender not built:\n%s", text)
	}
	if n := len(regexp.MustCompile(`(?m)^mcpdoor \(fast path\) +2026-07-28 +(met|not met) \(`).FindAllString(text, -1)); n != 1 {
		t.Errorf("the targets table has %d lines for the fast path under 2026-07-28 with a verdict, want 1:\n%s", n, text)
	}
}

func TestSpread(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want spread
	}{
		{nil, spread{}},
		{[]float64{3}, spread{3, 3, 3}},
		{[]float64{5, 1, 3}, spread{3, 1, 5}},
		{[]float64{4, 1, 2, 10}, spread{3, 1, 10}},
	} {
		if got := spreadOf(c.in); got != c.want {
			t.Errorf("spreadOf(%v) = %+v, want %+v", c.in, got, c.want)
		}
	}
	rounds := [][]sample{{{cpu: 2}, {cpu: 1}}, {{cpu: 9}, {cpu: 3}}, {{cpu: 4}, {cpu: 2}}}
	if got, ok := ratio(rounds, 0, 1, cpuOf); !ok || got != (spread{2, 2, 3}) {
		t.Errorf("ratio = %+v %v, want the per-round ratios 2, 3, 2", got, ok)
	}
	if _, ok := ratio(rounds, 0, -1, cpuOf); ok {
		t.Error("ratio without a reference is ok")
	}
}
