package edge

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpdoor/mcpdoor/internal/wire"
)

// TestSlotWaits: a POST without a session that arrives while another one is
// being served waits for it to end, then is judged: served if that one
// opened no session, 409 if it did (for another identity), taken over for
// the same identity or by a valid token from a session opened without one;
// and 409 if it waited its whole bound. An identity ending in +token comes
// with a valid token.
func TestSlotWaits(t *testing.T) {
	for _, c := range []struct {
		name      string
		opens     bool   // the first POST opens a session
		first     string // the first POST's identity
		who       string // the second POST's identity
		wait      time.Duration
		want      int
		takenOver bool
	}{
		{"the first opened nothing", false, "a", "b", time.Minute, http.StatusOK, false},
		{"the first opened a session", true, "a", "b", time.Minute, http.StatusConflict, false},
		{"the first opened a session, same identity", true, "a", "a", time.Minute, http.StatusOK, true},
		{"the wait ran out", false, "a", "b", time.Millisecond, http.StatusConflict, false},
		{"a token over a session opened without one", true, "a", "b+token", time.Minute, http.StatusOK, true},
		{"a token over another rollout's token", true, "a+token", "b+token", time.Minute, http.StatusConflict, false},
		{"no token over a token", true, "a+token", "b", time.Minute, http.StatusConflict, false},
		{"the same token", true, "a+token", "a+token", time.Minute, http.StatusOK, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var ended []string
			entered, release := make(chan struct{}), make(chan struct{})
			s := &Slot{
				alive:    func(id string) bool { return id == "s1" && len(ended) == 0 },
				end:      func(id string) { ended = append(ended, id) },
				identify: func(r *http.Request) (string, bool) { return strings.CutSuffix(r.Header.Get("Who"), "+token") },
				message:  "busy", wait: c.wait,
			}
			h := s.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("First") != "" {
					close(entered)
					<-release
					if c.opens {
						w.Header().Set(SessionIDHeader, "s1")
					}
				}
			}))
			post := func(who string, first bool) *httptest.ResponseRecorder {
				req := httptest.NewRequest("POST", "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
				req.Header.Set("Who", who)
				if first {
					req.Header.Set("First", "1")
				}
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				return w
			}
			firstDone := make(chan *httptest.ResponseRecorder, 1)
			go func() { firstDone <- post(c.first, true) }()
			<-entered
			second := make(chan *httptest.ResponseRecorder, 1)
			go func() { second <- post(c.who, false) }()
			if c.wait < time.Second {
				// The second POST gives up while the first is still served.
				if w := <-second; w.Code != c.want {
					t.Errorf("second POST: %d %s, want %d", w.Code, w.Body, c.want)
				}
				close(release)
				<-firstDone
				return
			}
			close(release)
			if w := <-firstDone; w.Code != http.StatusOK {
				t.Errorf("first POST: %d %s", w.Code, w.Body)
			}
			if w := <-second; w.Code != c.want {
				t.Errorf("second POST: %d %s, want %d", w.Code, w.Body, c.want)
			}
			if got := len(ended) == 1 && ended[0] == "s1"; got != c.takenOver {
				t.Errorf("sessions ended: %v, want the first's taken over: %v", ended, c.takenOver)
			}
		})
	}
}

// FuzzExclusiveBody: whatever a client posts without a session while the
// slot is taken, the answer is the 409 with a well-formed JSON-RPC error
// whose id is the request's (a string or a number) or null.
func FuzzExclusiveBody(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
		`{"jsonrpc":"2.0","id":"x","method":"ping"}`,
		`{"id":-0.5e-3}`, `{"id":"\u2028\"<"}`, `{"id":[1]}`, `[{"id":1}]`, `{"id":1,"id":2}`, `nul`, ``, `{"id":1e700}`,
	} {
		f.Add([]byte(seed))
	}
	s := &Slot{alive: func(string) bool { return true }, identify: func(*http.Request) (string, bool) { return "someone else", false },
		message: "busy", holder: "live", owner: "its rollout", confirmed: true}
	h := s.Wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		panic("a request without a session reached the go-sdk while the slot was taken")
	}))
	f.Fuzz(func(t *testing.T, body []byte) {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("POST", "/mcp", bytes.NewReader(body)))
		var got struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   wire.Error      `json:"error"`
		}
		if w.Code != http.StatusConflict || json.Unmarshal(w.Body.Bytes(), &got) != nil || got.JSONRPC != "2.0" ||
			got.Error != (wire.Error{Code: ExclusiveCode, Message: "busy"}) {
			t.Fatalf("%d %s", w.Code, w.Body)
		}
		var sent struct {
			ID json.RawMessage `json:"id"`
		}
		if string(got.ID) != "null" {
			if json.Unmarshal(body, &sent) != nil || !bytes.Equal(sent.ID, got.ID) {
				t.Fatalf("id %s is not the request's (%q)", got.ID, body)
			}
			// A number past float64's range (1e700) is a number all the
			// same: read it as the JSON text it is.
			var v any
			dec := json.NewDecoder(bytes.NewReader(got.ID))
			dec.UseNumber()
			dec.Decode(&v)
			switch v.(type) {
			case string, json.Number:
			default:
				t.Fatalf("id %s is not a string or number", got.ID)
			}
		}
	})
}

// TestSlotEarlyHints: a seed or /verify handler that sends 103 Early Hints
// before its 2xx answers 2xx: the seed keeps the slot for its session, and
// the /verify frees it and ends the rollout's MCP session, as without the
// hints. An informational status is no answer.
func TestSlotEarlyHints(t *testing.T) {
	hinted := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", "</style.css>; rel=preload")
		w.WriteHeader(http.StatusEarlyHints)
		w.Header().Del("Link")
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: "s1"})
		w.WriteHeader(http.StatusOK)
	}
	var ended []string
	s := &Slot{
		end:        func(id string) { ended = append(ended, id) },
		reserve:    time.Minute,
		cookieSID:  func(h http.Header) string { return strings.TrimPrefix(h.Get("Set-Cookie"), "sid=") },
		requestSID: func(*http.Request) string { return "s1" },
		forget:     func(http.ResponseWriter, *http.Request) {},
	}
	body := func(w http.ResponseWriter, r *http.Request) (*http.Request, []byte, func(), http.HandlerFunc) {
		return r, nil, func() {}, nil
	}
	s.wrapSeed(body, http.HandlerFunc(hinted)).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/seed_session", nil))
	if s.reserved != "s1" {
		t.Errorf("after a seed answered 103 then 200, the slot is reserved for %q, want s1", s.reserved)
	}
	s.holder, s.owner = "mcp-1", "s1"
	s.wrapVerify(http.HandlerFunc(hinted)).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/verify", nil))
	if s.holder != "" || len(ended) != 1 || ended[0] != "mcp-1" {
		t.Errorf("after a /verify answered 103 then 200, the slot is held by %q and the sessions ended are %v, want free and [mcp-1]", s.holder, ended)
	}
}
