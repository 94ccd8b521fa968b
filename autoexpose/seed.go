package autoexpose

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
	"github.com/mcpdoor/mcpdoor/session"
	"github.com/mcpdoor/mcpdoor/token"
)

// MetadataKey is the key /seed_session's response gains: where an agent
// (NeMo Gym's claude_code_agent) finds how to reach this server over MCP.
const MetadataKey = "mcp"

// Metadata is the value of MetadataKey in a /seed_session response.
type Metadata struct {
	ServerName string            `json:"server_name"`
	URLPath    string            `json:"url_path"`
	Transport  string            `json:"transport"`
	Headers    map[string]string `json:"headers"`
}

// seed wraps the /seed_session endpoint: it runs the original handler, then
// adds the MCP metadata, with a token for the handler's session, to a 2xx
// JSON object response that has no MetadataKey yet. Any other response goes
// out as the handler wrote it. Every response sets the session's cookie
// (see session.Manager.Ensure), beside any cookie the handler sets.
func (d *Door) seed(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, d.maxBody))
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
		if d.allowedTools != nil {
			if tools, err = d.allowedTools(body); err != nil {
				d.logger(r.Context()).Error("mcpdoor: the AllowedTools hook failed; no session token minted", "err", err)
				http.Error(w, "seed_session: cannot decide this rollout's tools", http.StatusInternalServerError)
				return
			}
		}
		sid, r := d.sessions.Ensure(w, r)
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))

		resp := replay.Capture(next, r, d.maxBody)
		if resp.Panic != nil {
			d.logger(r.Context()).Error("mcpdoor: /seed_session handler panicked", "panic", resp.Panic, "stack", string(resp.Stack))
		}
		out := resp.Body
		if resp.Status >= 200 && resp.Status < 300 && !resp.Truncated && isJSONObjectWithout(out, MetadataKey) {
			tok, err := d.codec.Mint(token.Payload{SID: sid, Tools: tools})
			if err != nil {
				d.logger(r.Context()).Error("mcpdoor: minting a session token", "err", err)
				http.Error(w, "seed_session: cannot mint a session token", http.StatusInternalServerError)
				return
			}
			out = withMember(out, MetadataKey, Metadata{
				ServerName: d.name,
				URLPath:    d.path,
				Transport:  "http",
				Headers:    map[string]string{d.tokenHeader: tok},
			})
		}
		h := w.Header()
		for k, v := range resp.Header {
			if k != "Set-Cookie" {
				h[k] = v
			}
		}
		d.addCookies(h, resp.Header.Values("Set-Cookie"))
		if h.Get("Content-Length") != "" {
			h.Set("Content-Length", strconv.Itoa(len(out)))
		}
		w.WriteHeader(resp.Status)
		w.Write(out)
	})
}

// addCookies adds the seed handler's Set-Cookie lines to h, which already
// sets the session cookie (Ensure, or a session middleware in front, put it
// there): the response keeps naming its session, as every response does. A
// session cookie the handler sets itself replaces it.
func (d *Door) addCookies(h http.Header, set []string) {
	if len(set) == 0 {
		return
	}
	for _, line := range set {
		if c, err := http.ParseSetCookie(line); err == nil && c.Name == d.sessions.CookieName() {
			dropCookie(h, c.Name)
			break
		}
	}
	h["Set-Cookie"] = append(slices.Clip(h.Values("Set-Cookie")), set...)
}

// isJSONObjectWithout reports whether body is a JSON object with no member
// called key.
func isJSONObjectWithout(body []byte, key string) bool {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil || members == nil {
		return false
	}
	_, has := members[key]
	return !has
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

// sessionManager is the Door's session manager: the config's, or one of its
// own for a server without sessions, so that tokens still name a session.
func sessionManager(cfg *Config) (*session.Manager, error) {
	if cfg.Sessions != nil {
		return cfg.Sessions, nil
	}
	c := *cfg
	return c.UseSessions()
}
