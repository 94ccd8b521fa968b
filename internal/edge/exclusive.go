package edge

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/mcpdoor/mcpdoor/internal/httpwrite"
	"github.com/mcpdoor/mcpdoor/internal/rollout"
	"github.com/mcpdoor/mcpdoor/internal/sessions"
	"github.com/mcpdoor/mcpdoor/internal/wire"
)

// ExclusiveCode is the JSON-RPC error code of the 409 that an exclusive
// server answers to a new session while another one is live.
const ExclusiveCode = -32000

// An exclusive server (mcp.exclusive) admits one live MCP session, the
// slot's holder.
//
// Every POST without Mcp-Session-Id holds the slot while it is served,
// whatever its body says: the go-sdk opens a session for any such POST and
// keeps it when it read an initialize there, which it decides by its own
// reading (case-sensitive keys, the last of duplicate keys, batches under
// the older protocols, what follows the message ignored), so mcpdoor does
// not guess. When the POST ends, the slot is held by the session its
// response names in Mcp-Session-Id, if that session is live, and is free
// otherwise. Requests that carry a session id pass (the go-sdk answers those
// of an unknown session with 404).
//
// A POST without a session that arrives while another one is being served
// waits for it, at most claimWait, and is then judged as below: a ping or an
// initialize is not refused only because another POST is a few
// milliseconds ahead of it.
//
// While a session is live, a POST without a session gets HTTP 409 and a
// JSON-RPC error that says what to do (exclusiveMessage), unless it may take
// the session over, while that session handles no request (an open GET
// stream is not a request): then it closes the holder's session and takes
// the slot. A POST may take over
//
//   - from the holder's own rollout: its identity (SlotConfig.Identify) is the
//     one the holder's session was opened with. So an agent whose client
//     exited without DELETE, or a client that reconnects, is not locked out
//     of its own rollout for idle_timeout;
//   - from a holder that opened its session without a valid token, when it
//     has one: a rollout's client is not locked out by one that proves no
//     rollout.
//
// A call that is running is not cut off. The slot also frees when its
// session ends: its client's DELETE, the idle timeout, or Door.Close.
//
// Where tool calls need a token (the rollout contract is on, and
// mcp.rollout.allow_tokenless is not set), only a POST with a valid token
// may claim the slot: any other POST without a session gets HTTP 403 and a
// JSON-RPC error naming the header to send (needsToken). A client without
// one could call no tool in the session, and would hold it from the
// rollout's own client.

// claimWait bounds how long a POST without a session waits for another one
// that is being served (normally an initialize: milliseconds) before it
// gets the 409.
const claimWait = 5 * time.Second

// needsToken returns the 403's message where claiming the slot needs a
// valid token in header: for a request that sent none (sent is false), or
// one that does not verify.
func needsToken(header string, sent bool) string {
	const exclusive = "mcpdoor: this MCP server is exclusive and serves one rollout at a time; opening a session needs the rollout's session token"
	if !sent {
		return exclusive + ": send it in the " + header + " header, as the mcp.headers of the /seed_session response give it"
	}
	return exclusive + ", and the " + header + " sent is not valid for this server (expired, or minted by another server): " +
		"seed the rollout again with /seed_session"
}

// exclusiveMessage is the 409's message: what happened, and what to do.
// tokenHeader is the rollout contract's token header, "" when it is off.
func exclusiveMessage(idle time.Duration, tokenHeader string) string {
	same := "The same rollout (the same " + tokenHeader + ", or the same session cookie)"
	if tokenHeader == "" {
		same = "The same client (the same session cookie, or none, as this one)"
	}
	return fmt.Sprintf("this MCP server is exclusive and another session is live; retry once that session ends "+
		"(its client sends DELETE with its Mcp-Session-Id) or has been idle for %s (mcp.idle_timeout). "+
		"%s may reconnect at any time: it takes the session over unless one of its calls is running", Seconds(idle), same)
}

// A SlotConfig is what a Slot needs of its Door.
type SlotConfig struct {
	Alive func(id string) bool // whether the MCP session is live
	End   func(id string)      // closes the MCP session, if live
	// Identify tells who a request comes from ("" nobody), and whether it
	// carries a valid token.
	Identify func(*http.Request) (who string, token bool)
	// Sessions is the Door's session manager, whose cookies name the
	// rollouts' sessions.
	Sessions *sessions.Manager
	Idle     time.Duration // mcp.idle_timeout, for the 409's message
	// Reserve is how long a seed keeps the slot for its rollout's client
	// to connect (mcp.unused_session_timeout).
	Reserve time.Duration
	// TokenHeader is the rollout contract's token header, "" while the
	// contract is off; NeedsToken, that claiming the slot needs a valid
	// token in it, as tool calls do (mcp.rollout.allow_tokenless unset).
	TokenHeader string
	NeedsToken  bool
}

// NewSlot returns the Slot of an exclusive Door.
func NewSlot(c SlotConfig) *Slot {
	s := &Slot{
		alive:    c.Alive,
		end:      c.End,
		identify: c.Identify,
		message:  exclusiveMessage(c.Idle, c.TokenHeader),
		wait:     claimWait,
		reserve:  c.Reserve,
		cookieSID: func(h http.Header) string {
			for _, line := range h.Values("Set-Cookie") {
				if ck, err := http.ParseSetCookie(line); err == nil && ck.Name == c.Sessions.CookieName() {
					sid, _ := c.Sessions.Decode(ck.Value)
					return sid
				}
			}
			return ""
		},
		requestSID: func(r *http.Request) string {
			sid, _ := c.Sessions.Read(r)
			return sid
		},
		forget: func(w http.ResponseWriter, r *http.Request) {
			if _, ok := sessions.FromContext(r.Context()); ok {
				c.Sessions.DropCookie(w.Header())
			}
		},
	}
	if c.NeedsToken {
		s.tokenHeader = c.TokenHeader // tool calls need a token, and so does the slot
	}
	return s
}

// A Slot is the one session an exclusive server admits, and who holds it.
// No goroutine watches it: it learns that its session has ended when it
// next asks alive.
type Slot struct {
	alive func(id string) bool // whether the session is live
	end   func(id string)      // closes the session
	// identify tells who a request comes from ("" nobody), and whether it
	// carries a valid token.
	identify func(*http.Request) (who string, token bool)
	message  string // the 409's
	// tokenHeader, when set, is the header of the token that claiming the
	// slot needs (see needsToken).
	tokenHeader string
	wait        time.Duration // how long a POST waits for a pending one
	// reserve is how long a seed keeps the slot for its rollout's client
	// to connect (mcp.unused_session_timeout).
	reserve time.Duration
	// cookieSID returns the session a response's session cookie names, or "".
	cookieSID func(http.Header) string
	// requestSID returns the session a request's session cookie names, or "".
	requestSID func(*http.Request) string
	// forget drops from the response the cookie of the session a
	// middleware in front made for a request that named none (its id is
	// in the request's context; the store holds nothing of it): a refused
	// seed leaves nothing behind.
	forget func(w http.ResponseWriter, r *http.Request)

	mu         sync.Mutex
	holder     string         // the live session's id, or ""
	owner      string         // the identity the holder's session was opened with
	ownerToken bool           // it was opened with a valid token
	heldSince  time.Time      // when the holder's initialize was answered
	confirmed  bool           // the holder's client has sent a request in its session
	called     bool           // the holder has made a tool call
	reserved   string         // the session a seed kept the slot for, or ""
	until      time.Time      // when that reservation lapses
	seeding    bool           // a seed is being served
	pending    bool           // a POST without a session is being served
	claimant   string         // its identity
	claimToken bool           // its token is valid
	settled    chan struct{}  // closed when it ends
	running    map[string]int // MCP requests being handled, by session id
}

// claim takes the slot for a POST without a session from identity who,
// with a valid token or not. It waits, within s.wait and ctx, for a pending
// POST to end. It fails while a session is live, unless who may take it
// over; then it returns that session's id, for the caller to end.
func (s *Slot) claim(ctx context.Context, who string, token bool) (takeover string, ok bool) {
	timeout := time.NewTimer(s.wait)
	defer timeout.Stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.pending {
		settled := s.settled
		s.mu.Unlock()
		select {
		case <-settled:
		case <-ctx.Done():
		case <-timeout.C:
		}
		s.mu.Lock()
		if ctx.Err() != nil || (s.pending && s.settled == settled) {
			return "", false
		}
	}
	lapsed := s.lapse()
	if s.reserved != "" && s.reserved != who {
		return "", false
	}
	if s.holder != "" {
		sameRollout := who != "" && who == s.owner
		provesMore := token && !s.ownerToken
		if !(sameRollout || provesMore) || s.running[s.holder] > 0 {
			return "", false
		}
		takeover = s.holder
		s.free()
	}
	if takeover == "" {
		takeover = lapsed
	}
	s.pending, s.claimant, s.claimToken, s.settled = true, who, token, make(chan struct{})
	return takeover, true
}

// confirmWait is how long a session that has been answered its initialize
// holds the slot before its client sends anything in it (a client sends
// notifications/initialized as soon as it reads the answer). A client that
// hung up before then never learned the session's id, and would hold the
// slot until mcp.unused_session_timeout.
const confirmWait = 2 * time.Second

// lapse frees, under s.mu, a slot that nobody holds any more: a holder
// whose session has ended, a holder whose client never confirmed it within
// confirmWait (whose id it returns, for the caller to end once s.mu is
// released), and a seed's reservation that has lapsed.
func (s *Slot) lapse() (end string) {
	if s.holder != "" && !s.alive(s.holder) {
		s.free()
	}
	if s.holder != "" && !s.confirmed && time.Since(s.heldSince) > confirmWait {
		end = s.holder
		s.free()
	}
	if s.reserved != "" && time.Now().After(s.until) {
		s.reserved = ""
	}
	return end
}

// free drops the holder, under s.mu.
func (s *Slot) free() {
	s.holder, s.owner, s.ownerToken, s.confirmed, s.called = "", "", false, false, false
}

// busy reports, under s.mu, whether the slot serves a rollout other than
// the session who's ("" a new one): a seed of it gets 503.
func (s *Slot) busy(who string) bool {
	return s.seeding || (s.holder != "" && s.owner != who) || (s.reserved != "" && s.reserved != who) ||
		(s.pending && s.claimant != who)
}

// seen notes a request of session id: the holder's client has learned its
// session, so its initialize completed.
func (s *Slot) seen(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id == s.holder {
		s.confirmed = true
	}
}

// ToolCalled notes a tool call of session id (the go-sdk server's
// middleware calls it).
func (s *Slot) ToolCalled(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id == s.holder {
		s.called = true
	}
}

// broke frees the slot when the holder's stream broke (its client hung
// up) before its first tool call: a connect that failed, whose client would
// otherwise hold the slot for mcp.idle_timeout. Its session ends.
func (s *Slot) broke(id string) {
	s.mu.Lock()
	drop := id == s.holder && !s.called
	if drop {
		s.free()
	}
	s.mu.Unlock()
	if drop {
		s.end(id)
	}
}

// seedBusyText is the 503's body of a seed on a busy exclusive server.
const seedBusyText = "mcpdoor: this server is exclusive (mcp.exclusive) and serves another rollout: " +
	"retry /seed_session on another replica, or here once that rollout ends"

// busyRetry is the Retry-After, in seconds, of an exclusive server's 503s:
// a balancer retries on another replica at once; a client that retries
// here polls.
const busyRetry = "1"

// wrapSeed serves /seed_session (next, the contract's wrap) under the
// slot, once its body has come whole (readBody, the contract's SeedBody): a
// seed whose body is still coming holds nothing of the slot, however long
// it takes. Then a seed for a rollout other than the one the slot serves
// gets 503 with Retry-After, which a balancer retries on another replica;
// any other holds the slot while its handler runs (a second seed then
// waits for none: it gets the 503), and one answered 2xx keeps it for its
// session (the one its response's cookie names) while its client
// connects, for s.reserve, from the moment it writes its status.
func (s *Slot) wrapSeed(readBody func(http.ResponseWriter, *http.Request) (*http.Request, []byte, func(), http.HandlerFunc), next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		who := s.requestSID(r)
		r, _, release, refuse := readBody(w, r)
		defer release()
		if refuse != nil {
			if who == "" {
				s.forget(w, r)
			}
			refuse(w, r)
			return
		}
		s.mu.Lock()
		lapsed := s.lapse()
		busy := s.busy(who)
		if !busy {
			s.seeding = true
		}
		s.mu.Unlock()
		if lapsed != "" {
			s.end(lapsed)
		}
		if busy {
			if who == "" {
				s.forget(w, r)
			}
			w.Header().Set("Retry-After", busyRetry)
			http.Error(w, seedBusyText, http.StatusServiceUnavailable)
			return
		}
		sw := &seedWriter{StatusWriter: httpwrite.StatusWriter{ResponseWriter: w}, s: s}
		defer sw.answered() // a handler that wrote nothing (or panicked)
		next.ServeHTTP(sw, r)
	})
}

// A seedWriter is the response of a seed that holds the slot: once its
// status is written, the slot is reserved for the seed's session (a 2xx)
// or free, before any of the body goes out, which a slow client may take
// long to read.
type seedWriter struct {
	httpwrite.StatusWriter
	s    *Slot
	done bool
}

func (w *seedWriter) WriteHeader(code int) {
	if httpwrite.Final(code) {
		w.answer(code)
	}
	w.StatusWriter.WriteHeader(code)
}

func (w *seedWriter) Write(b []byte) (int, error) {
	w.answer(http.StatusOK)
	return w.StatusWriter.Write(b)
}

// answer ends the seed's hold of the slot for the status code it answers.
func (w *seedWriter) answer(code int) {
	if w.done {
		return
	}
	if w.Status != 0 {
		code = w.Status
	}
	w.done = true
	s := w.s
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seeding = false
	if sid := s.cookieSID(w.Header()); code/100 == 2 && sid != "" && s.owner != sid {
		s.reserved, s.until = sid, time.Now().Add(s.reserve)
	}
}

// answered ends the hold of a seed whose handler has returned, if writing
// its status has not.
func (w *seedWriter) answered() {
	if !w.done {
		w.answer(http.StatusInternalServerError)
	}
}

// wrapVerify serves /verify (next) and then, when it answered 2xx, ends
// the rollout whose session the request's cookie names: the slot is free
// for the next rollout's seed, and the rollout's MCP session, if live,
// ends. A /verify answered otherwise ends nothing, as it ends no session
// (the agent may post it again).
func (s *Slot) wrapVerify(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &httpwrite.StatusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		if sw.Status == 0 {
			sw.Status = http.StatusOK
		}
		sid := s.requestSID(r)
		if sid == "" || sw.Status/100 != 2 {
			return
		}
		s.mu.Lock()
		if s.reserved == sid {
			s.reserved = ""
		}
		end := ""
		if s.holder != "" && s.owner == sid {
			end = s.holder
			s.free()
		}
		s.mu.Unlock()
		if end != "" {
			s.end(end)
		}
	})
}

// taken reports whether the slot serves a rollout, for the readiness
// answer (Ready).
func (s *Slot) taken() bool {
	s.mu.Lock()
	lapsed := s.lapse()
	taken := s.busy("")
	s.mu.Unlock()
	if lapsed != "" {
		s.end(lapsed)
	}
	return taken
}

// settle ends a claim: the slot is held by the session id the POST's
// response named, if that session is live, and is free otherwise.
func (s *Slot) settle(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id != "" && s.alive(id) {
		s.free()
		s.holder, s.owner, s.ownerToken, s.heldSince = id, s.claimant, s.claimToken, time.Now()
		if s.reserved == s.owner {
			s.reserved = ""
		}
	}
	s.pending, s.claimant, s.claimToken = false, "", false
	close(s.settled)
}

// Serving counts a request of session id as running until the returned
// func is called: its holder is then not taken over (the go-sdk server's
// middleware calls it).
func (s *Slot) Serving(id string) (done func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running == nil {
		s.running = make(map[string]int)
	}
	s.running[id]++
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.running[id]--; s.running[id] == 0 {
			delete(s.running, id)
		}
	}
}

// Wrap is the step that serves a request under the slot (see the policy
// above): 403 for a POST without a session and a valid token where
// claiming the slot needs one, 409 while another rollout's session is live.
func (s *Slot) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id := r.Header.Get(SessionIDHeader); id != "" {
			s.seen(id)
			next.ServeHTTP(w, r)
			if r.Method == http.MethodGet && r.Context().Err() != nil {
				s.broke(id) // the client hung up on its stream
			}
			return
		}
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		// The body has come whole (ReadBodies, in front): a slow upload
		// does not hold the slot.
		body := HeldBody(r)
		who, token := s.identify(r)
		if s.tokenHeader != "" && !token {
			wire.WriteError(w, http.StatusForbidden, requestID(body), ExclusiveCode, needsToken(s.tokenHeader, r.Header.Get(s.tokenHeader) != ""))
			return
		}
		takeover, ok := s.claim(r.Context(), who, token)
		if !ok {
			writeExclusive(w, requestID(body), s.message)
			return
		}
		defer func() { s.settle(w.Header().Get(SessionIDHeader)) }()
		if takeover != "" {
			s.end(takeover)
		}
		next.ServeHTTP(w, r)
	})
}

// requestID returns the id of the JSON-RPC request body holds, or nil for
// a batch or a body that is not JSON.
func requestID(body []byte) json.RawMessage {
	var msg struct {
		ID json.RawMessage `json:"id"`
	}
	json.Unmarshal(body, &msg)
	return msg.ID
}

// writeExclusive answers 409 with a JSON-RPC error for the request id.
func writeExclusive(w http.ResponseWriter, id json.RawMessage, message string) {
	wire.WriteError(w, http.StatusConflict, id, ExclusiveCode, message)
}

// Seed returns the contract's /seed_session wrap, under the slot where
// there is one (s is not nil).
func (s *Slot) Seed(c *rollout.Contract) func(http.Handler) http.Handler {
	if s == nil {
		return c.Seed
	}
	return func(h http.Handler) http.Handler { return s.wrapSeed(c.SeedBody, c.Seed(h)) }
}

// Verify returns the contract's /verify wrap; where there is a slot (s is
// not nil), the rollout it verifies then leaves the slot.
func (s *Slot) Verify(c *rollout.Contract) func(http.Handler) http.Handler {
	if s == nil {
		return c.Verify
	}
	return func(h http.Handler) http.Handler { return s.wrapVerify(c.Verify(h)) }
}
