package autoexpose

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpdoor/mcpdoor/internal/edge"
	"github.com/mcpdoor/mcpdoor/internal/mcpcall"
)

// batchVersions are the Mcp-Protocol-Version headers FuzzBatch posts a
// body with, picked by a byte of the input: none, each version the go-sdk
// knows (batches are allowed up to 2025-03-26), and the stateless protocol,
// which a stateful door refuses.
var batchVersions = []string{"", "2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

// FuzzBatch posts raw bodies — batches of initializes, notifications and
// calls, under mixed protocol versions — to a stateful door on a real
// listener, alone or in a session it has just initialized (the variant's
// bit 7), and requires:
//   - the process survives (a panic in a goroutine of the go-sdk's ends
//     the fuzzing process, which reports the input);
//   - every POST is answered, within its bound, with no 5xx;
//   - a POST the go-sdk accepted (200) answers every request it carried:
//     each id of a request gets a response;
//   - the session goes on serving: a ping in it is answered.
func FuzzBatch(f *testing.F) {
	r, door := echoRouter(f, "  stateful: true\n")
	srv := httptest.NewServer(r)
	f.Cleanup(func() {
		door.Close()
		srv.Close()
	})
	url := srv.URL + "/mcp"
	// More seeds, batches of every kind, are in testdata/fuzz/FuzzBatch.
	for i := range batchVersions {
		f.Add(uint8(i), []byte(twoInitializes))
		f.Add(uint8(i)|0x80, []byte(twoInitializes))
	}
	f.Fuzz(func(t *testing.T, variant uint8, body []byte) {
		version := batchVersions[int(variant&0x7f)%len(batchVersions)]
		session := ""
		if variant&0x80 != 0 {
			session = openSession(t, url, version)
			defer endSession(url, session)
		}
		status, ctype, answer, opened, err := postFuzz(url, version, session, body)
		if opened != "" && opened != session {
			// A session the body opened ends too, so that the fuzzing
			// does not fill mcp.max_sessions.
			defer endSession(url, opened)
		}
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) && listens(body) {
				return // subscriptions/listen streams until its client ends it
			}
			t.Fatalf("version %q, in a session %t, body %q: %v", version, session != "", body, err)
		}
		if status >= 500 {
			t.Fatalf("version %q, in a session %t, body %q: %d %s", version, session != "", body, status, answer)
		}
		if status == http.StatusOK {
			got := responseIDs(ctype, answer)
			for _, id := range requestIDs(body) {
				if !got[id] {
					t.Fatalf("version %q, in a session %t, body %q: %d %s: no response to the request of id %s", version, session != "", body, status, answer, id)
				}
			}
		}
		if session != "" {
			ping := `{"jsonrpc":"2.0","id":"after","method":"ping"}`
			if status, _, answer, _, err := postFuzz(url, pingVersion(version), session, []byte(ping)); err != nil || status != http.StatusOK || !strings.Contains(string(answer), `"id":"after","result":{}`) {
				t.Fatalf("version %q, body %q: then a ping in the session got %d %s (%v)", version, body, status, answer, err)
			}
		}
	})
}

// openSession initializes a session under version (2025-03-26 where the
// stateful door would refuse it), sends notifications/initialized, and
// returns its id.
func openSession(t *testing.T, url, version string) string {
	t.Helper()
	v := pingVersion(version)
	if v == "" {
		v = "2025-03-26"
	}
	init := fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}`, v)
	req := mcpRequest(context.Background(), url, pingVersion(version), "", []byte(init))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	id := resp.Header.Get(edge.SessionIDHeader)
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, id)
	}
	if status, _, answer, _, err := postFuzz(url, pingVersion(version), id, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil || status != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d %s (%v)", status, answer, err)
	}
	return id
}

// pingVersion is the header of a request in a session of a stateful door
// opened under version: the stateless protocol's is refused there.
func pingVersion(version string) string {
	if version >= mcpcall.ProtocolVersion2026 {
		return "2025-11-25"
	}
	return version
}

// endSession ends a session with DELETE.
func endSession(url, id string) {
	req, _ := http.NewRequest(http.MethodDelete, url, nil)
	req.Header.Set(edge.SessionIDHeader, id)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
}

// mcpRequest is a POST of body to the MCP endpoint at url, with the
// protocol version and session headers when they are set.
func mcpRequest(ctx context.Context, url, version, session string, body []byte) *http.Request {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if version != "" {
		req.Header.Set("Mcp-Protocol-Version", version)
	}
	if session != "" {
		req.Header.Set(edge.SessionIDHeader, session)
	}
	return req
}

// postFuzz posts body, within 5 seconds, and returns the answer's status,
// Content-Type, body and Mcp-Session-Id.
func postFuzz(url, version, session string, body []byte) (status int, ctype string, answer []byte, opened string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(mcpRequest(ctx, url, version, session, body))
	if err != nil {
		return 0, "", nil, "", err
	}
	defer resp.Body.Close()
	answer, err = io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), answer, resp.Header.Get(edge.SessionIDHeader), err
}

// rpcID is a JSON-RPC id as a comparable string: a string's JSON, or a
// number's value; "" for anything else.
func rpcID(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	switch v := v.(type) {
	case string:
		b, _ := json.Marshal(v)
		return string(b)
	case float64:
		return fmt.Sprint(v)
	}
	return ""
}

// message is what FuzzBatch reads of a JSON-RPC message: its id, and its
// method (nil for none, or one that is not a string).
type message struct {
	ID     json.RawMessage
	Method *string
}

// messages returns the messages of a body: one object, or a batch's.
func messages(body []byte) []message {
	var batch []json.RawMessage
	if err := json.Unmarshal(body, &batch); err != nil {
		batch = []json.RawMessage{body}
	}
	var msgs []message
	for _, raw := range batch {
		// By exact keys, as the go-sdk reads them: encoding/json would
		// take "Method" for "method".
		var members map[string]json.RawMessage
		if json.Unmarshal(raw, &members) != nil {
			continue
		}
		m := message{ID: members["id"]}
		if method, ok := members["method"]; ok {
			var name string
			if json.Unmarshal(method, &name) == nil {
				m.Method = &name
			}
		}
		msgs = append(msgs, m)
	}
	return msgs
}

// requestIDs returns the ids of the requests (messages with a method and
// an id) a body carries.
func requestIDs(body []byte) []string {
	var ids []string
	for _, m := range messages(body) {
		if id := rpcID(m.ID); m.Method != nil && id != "" {
			ids = append(ids, id)
		}
	}
	return ids
}

// responseIDs returns the ids of the responses in an answer: a JSON body,
// or the data of each event of a stream.
func responseIDs(ctype string, answer []byte) map[string]bool {
	var bodies [][]byte
	if strings.HasPrefix(ctype, "text/event-stream") {
		for line := range strings.SplitSeq(string(answer), "\n") {
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				bodies = append(bodies, []byte(data))
			}
		}
	} else {
		bodies = append(bodies, answer)
	}
	ids := make(map[string]bool)
	for _, b := range bodies {
		for _, m := range messages(b) {
			if m.Method == nil {
				ids[rpcID(m.ID)] = true
			}
		}
	}
	return ids
}

// listens reports whether body carries a subscriptions/listen request.
func listens(body []byte) bool {
	for _, m := range messages(body) {
		if m.Method != nil && *m.Method == "subscriptions/listen" {
			return true
		}
	}
	return false
}
