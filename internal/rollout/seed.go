package rollout

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"

	"github.com/mcpdoor/mcpdoor/internal/bodies"
	"github.com/mcpdoor/mcpdoor/internal/sessionkey"
	"github.com/mcpdoor/mcpdoor/internal/sessions"
	"github.com/mcpdoor/mcpdoor/token"
)

// MetadataKey is the key /seed_session's response gains: where an agent
// (NeMo Gym's claude_code_agent) finds how to reach the server over MCP.
const MetadataKey = "mcp"

// Metadata is the value of MetadataKey in a /seed_session response.
type Metadata struct {
	ServerName string            `json:"server_name"`
	URLPath    string            `json:"url_path"`
	Transport  string            `json:"transport"`
	Headers    map[string]string `json:"headers"`
	// ToolNames are the tools the token may call, sorted, as NeMo Gym's
	// RolloutMCPServer carries them: the Hermes agent checks that each
	// registered, and builds its provenance sidecar from them.
	ToolNames []string `json:"tool_names,omitempty"`
}

// Seed wraps a /seed_session handler. It runs the handler in the request's
// session (made, with its cookie set, when the request names none), then
// adds the Metadata, with a session token for that session, the tools
// Config.AllowedTools allows and the request's rollout id (see ID), to a
// 2xx JSON object response that has no MetadataKey yet. Any other response
// goes out as the handler wrote it, and the log says why it carries no
// token; so does a response over
// Params.MaxHeldBytes, which is not held back to be rewritten. A request
// body over Config.MaxSeedBytes gets 413 naming mcp.rollout.max_seed_bytes,
// and the handler never runs. Every
// response sets the session's cookie, beside any cookie the handler sets.
func (c *Contract) Seed(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log := c.logger(r.Context())
		// The session first, so that every response names it, a refusal
		// included: in its cookie, and in plain in sessionkey.Header for a
		// proxy's stick table. The store holds it only once the body has
		// passed, below.
		s, r, err := c.sessions.Ensure(w, r.WithContext(sessions.WithFreshStart(r.Context())))
		if err != nil {
			c.sessions.RefuseSeed(w, r, err)
			return
		}
		w.Header().Set(sessionkey.Header, s.ID)
		r, body, release, refuse := c.SeedBody(w, r)
		defer release()
		if refuse != nil {
			refuse(w, r)
			return
		}
		var tools []string
		if c.allowedTools != nil {
			if tools, err = c.allowedTools(body); err != nil {
				log.Error("mcpdoor: the AllowedTools hook failed; no session token minted", "err", err)
				http.Error(w, "seed_session: cannot decide this rollout's tools", http.StatusInternalServerError)
				return
			}
		}
		// The seed holds its session, whoever made it (an outer middleware
		// may have).
		s, r, created, err := c.sessions.Seed(w, r, s)
		if err != nil {
			c.sessions.RefuseSeed(w, r, err)
			return
		}
		w.Header().Set(sessionkey.Header, s.ID)
		sid := s.ID

		resp := &held{w: w, limit: c.maxHeld, send: func(h http.Header) { c.setHeader(w.Header(), h) }}
		resp.serve(next, r, log)
		if created && (resp.status < 200 || resp.status > 299) {
			// A refused seed leaves nothing behind.
			if err := s.Discard(context.WithoutCancel(r.Context())); err != nil {
				log.Error("mcpdoor: session store: discarding the session of a refused seed", "err", err)
			}
		}
		if resp.spilled {
			log.Warn(fmt.Sprintf("mcpdoor: /seed_session's response carries no MCP session token: the handler's response is over %d bytes (mcp.max_body_bytes), "+
				"more than is held to add the metadata; it goes out as the handler wrote it", c.maxHeld), "status", resp.status)
			return
		}
		out := resp.body
		if why := noToken(resp.status, resp.body); why != "" {
			log.Warn("mcpdoor: /seed_session's response carries no MCP session token: "+why, "status", resp.status)
		} else {
			tok, err := c.codec.Mint(token.Payload{SID: sid, Tools: tools, Rollout: FromContext(r.Context())})
			if err != nil {
				log.Error("mcpdoor: minting a session token", "err", err)
				http.Error(w, "seed_session: cannot mint a session token", http.StatusInternalServerError)
				return
			}
			out = withMember(out, MetadataKey, Metadata{
				ServerName: c.server,
				URLPath:    mcpPath(c.path, FromContext(r.Context())),
				Transport:  "http",
				Headers:    map[string]string{c.header: tok},
				ToolNames:  c.toolNames(tools),
			})
		}
		c.setHeader(w.Header(), resp.sent)
		if w.Header().Get("Content-Length") != "" {
			w.Header().Set("Content-Length", strconv.Itoa(len(out)))
		}
		w.WriteHeader(resp.status)
		w.Write(out)
	})
}

// SeedBody reads the body of a /seed_session request whole, as Seed does
// (bodies.Read, within Config.MaxSeedBytes and Params.Bodies): it returns
// a copy of r whose Body reads it from memory, the body, and the func that
// gives its memory back once the request is served (never nil); or the
// refusal to answer r with instead, nil when there is none: 413 naming
// mcp.rollout.max_seed_bytes (a body that declares more is refused unread),
// 503 or 408 (see bodies.Refuse), 400. A request whose body is read already
// is handed on as it is.
func (c *Contract) SeedBody(w http.ResponseWriter, r *http.Request) (_ *http.Request, body []byte, release func(), refuse http.HandlerFunc) {
	tooLarge := func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, fmt.Sprintf("request body exceeds the %d-byte limit (mcp.rollout.max_seed_bytes)", c.maxSeed), http.StatusRequestEntityTooLarge)
	}
	if r.ContentLength > c.maxSeed { // refused unread: none of it would be used
		return r, nil, func() {}, tooLarge
	}
	body, release, err := bodies.Read(w, r, c.maxSeed, c.bodies)
	if err != nil {
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &mbe):
			return r, nil, release, tooLarge
		case errors.Is(err, bodies.ErrBusy), errors.Is(err, bodies.ErrTimeout):
			return r, nil, release, func(w http.ResponseWriter, _ *http.Request) { bodies.Refuse(w, err, c.bodies) }
		case errors.Is(err, bodies.ErrShort):
			err = io.ErrUnexpectedEOF // as net/http says it
		}
		return r, nil, release, func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "reading request body: "+err.Error(), http.StatusBadRequest)
		}
	}
	r = r.WithContext(r.Context())
	r.Body, r.ContentLength = bodies.Held(body), int64(len(body))
	return r, body, release, nil
}

// mcpPath is where the door serves MCP (at path) for a request that came
// under the prefix of rollout id ("" for none): the door serves
// /ng-rollout/<id>/<path> as <path>, and an agent that calls it there
// sends its MCP calls down the path its seed took, which a proxy routing by
// path keeps on one replica. An id needs no escaping (idPattern).
func mcpPath(path, id string) string {
	if id == "" {
		return path
	}
	return prefix + id + path
}

// noToken says why a seed response gets no token, or "" when it gets one:
// only a 2xx JSON object without MetadataKey has room for the metadata.
func noToken(status int, body []byte) string {
	if status < 200 || status > 299 {
		return "the handler answered a status other than 2xx"
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return `the handler's body is empty; answer a JSON object, at least {}, so that the "mcp" metadata can be added`
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil || members == nil {
		return `the handler's body is not a JSON object; answer a JSON object, at least {}, so that the "mcp" metadata can be added`
	}
	if _, has := members[MetadataKey]; has {
		return `the handler's JSON already has an "mcp" key, which is kept as it is`
	}
	return ""
}

// setHeader sets on h, the response's header, the seed handler's header
// sent: all of it but its Set-Cookie lines, which addCookies adds beside
// the session cookie, and the session header, which names the session the
// cookie and the token name.
func (c *Contract) setHeader(h, sent http.Header) {
	for k, v := range sent {
		if k != "Set-Cookie" && k != sessionkey.Header {
			h[k] = v
		}
	}
	c.addCookies(h, sent.Values("Set-Cookie"))
}

// addCookies adds the seed handler's Set-Cookie lines to h, which already
// sets the session cookie (Ensure, or a session middleware in front, put it
// there): the response keeps naming its session, as every response does. A
// session cookie the handler sets itself replaces it.
func (c *Contract) addCookies(h http.Header, set []string) {
	if len(set) == 0 {
		return
	}
	for _, line := range set {
		if ck, err := http.ParseSetCookie(line); err == nil && ck.Name == c.sessions.CookieName() {
			c.sessions.DropCookie(h)
			break
		}
	}
	h["Set-Cookie"] = append(slices.Clip(h.Values("Set-Cookie")), set...)
}

// withMember returns the JSON object body with "key": value appended as its
// last member, every other byte kept.
func withMember(body []byte, key string, value any) []byte {
	v, _ := json.Marshal(value)
	k, _ := json.Marshal(key)
	end := bytes.LastIndexByte(body, '}')
	inner := bytes.TrimSpace(body[:end])
	var out bytes.Buffer
	out.Grow(len(body) + len(k) + len(v) + 2)
	out.Write(body[:end])
	if inner[len(inner)-1] != '{' {
		out.WriteByte(',')
	}
	out.Write(k)
	out.WriteByte(':')
	out.Write(v)
	out.Write(body[end:])
	return out.Bytes()
}
