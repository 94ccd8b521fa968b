package rollout

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"

	"github.com/mcpdoor/mcpdoor/replay"
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
}

// Seed wraps a /seed_session handler. It runs the handler in the request's
// session (made, with its cookie set, when the request names none), then
// adds the Metadata, with a session token for that session and the tools
// Config.AllowedTools allows, to a 2xx JSON object response that has no
// MetadataKey yet. Any other response goes out as the handler wrote it, and
// the log says why it carries no token. Every response sets the session's
// cookie, beside any cookie the handler sets.
func (c *Contract) Seed(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log := c.logger(r.Context())
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, c.maxSeed))
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				http.Error(w, fmt.Sprintf("request body exceeds %d bytes", mbe.Limit), http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "reading request body: "+err.Error(), http.StatusBadRequest)
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
		sid, r := c.sessions.Ensure(w, r)
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))

		resp := replay.Capture(next, r, c.maxSeed)
		if resp.Panic != nil {
			log.Error("mcpdoor: /seed_session handler panicked", "panic", resp.Panic, "stack", string(resp.Stack))
		}
		out := resp.Body
		if why := noToken(resp); why != "" {
			log.Warn("mcpdoor: /seed_session's response carries no MCP session token: "+why, "status", resp.Status)
		} else {
			tok, err := c.codec.Mint(token.Payload{SID: sid, Tools: tools})
			if err != nil {
				log.Error("mcpdoor: minting a session token", "err", err)
				http.Error(w, "seed_session: cannot mint a session token", http.StatusInternalServerError)
				return
			}
			out = withMember(out, MetadataKey, Metadata{
				ServerName: c.server,
				URLPath:    c.path,
				Transport:  "http",
				Headers:    map[string]string{c.header: tok},
			})
		}
		h := w.Header()
		for k, v := range resp.Header {
			if k != "Set-Cookie" {
				h[k] = v
			}
		}
		c.addCookies(h, resp.Header.Values("Set-Cookie"))
		if h.Get("Content-Length") != "" {
			h.Set("Content-Length", strconv.Itoa(len(out)))
		}
		w.WriteHeader(resp.Status)
		w.Write(out)
	})
}

// noToken says why a seed response gets no token, or "" when it gets one:
// only a 2xx JSON object without MetadataKey has room for the metadata.
func noToken(resp *replay.Response) string {
	switch {
	case resp.Status < 200 || resp.Status > 299:
		return "the handler answered a status other than 2xx"
	case resp.Truncated:
		return "the handler's response is too large to rewrite"
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(resp.Body, &members); err != nil || members == nil {
		return `the handler's body is not a JSON object; answer at least {} so that the "mcp" metadata can be added`
	}
	if _, has := members[MetadataKey]; has {
		return `the handler's JSON already has an "mcp" key, which is kept as it is`
	}
	return ""
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
