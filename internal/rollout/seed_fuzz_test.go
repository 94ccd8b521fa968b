package rollout_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpdoor/mcpdoor/internal/rollout"
	"github.com/mcpdoor/mcpdoor/internal/sessions"
)

// FuzzSeed: whatever a /seed_session handler answers, the wrap either adds
// the metadata to a JSON object that has no "mcp" key, keeping every byte
// of it around the insertion, with a token that names the response's
// session; or passes the response through, byte for byte, when it is no
// such object.
func FuzzSeed(f *testing.F) {
	for _, body := range []string{
		`{}`, `{"task":"paris"}`, " {\n\"a\": [1, {\"b\": \"}\"}]\n}\n", `{"mcp":1}`, `{"\u006dcp":1}`,
		`[]`, `null`, `"{}"`, `{} {}`, `{"a":1}}`, ``, "\xef\xbb\xbf{}", `{"a":"\xff"}`, `{"a":1,"a":2}`, `{"n":1e999}`,
	} {
		f.Add(body)
	}
	c, mgr := newContract(f, rollout.Config{}, nil)
	f.Fuzz(func(t *testing.T, body string) {
		seed := c.Seed(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, body)
		}))
		rec := httptest.NewRecorder()
		seed.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/seed_session", strings.NewReader(`{}`)))
		out := rec.Body.String()
		// Each input's session ends with it, so that the inputs of a long
		// run do not fill the store (mcp.max_stored_sessions).
		defer endSeeded(t, mgr, rec.Result())

		members, isObject := object(body)
		_, hasMCP := members["mcp"]
		if !isObject || hasMCP {
			if out != body {
				t.Fatalf("%q came out as %q; want it unchanged", body, out)
			}
			return
		}

		// body[:end] + [","] + "mcp":{...} + body[end:]
		end := strings.LastIndexByte(body, '}')
		if !strings.HasPrefix(out, body[:end]) || !strings.HasSuffix(out, body[end:]) {
			t.Fatalf("%q came out as %q; want the metadata inserted before its last }", body, out)
		}
		inserted := strings.TrimPrefix(out[end:len(out)-len(body)+end], ",")
		var meta map[string]rollout.Metadata
		if err := json.Unmarshal([]byte("{"+inserted+"}"), &meta); err != nil || len(meta) != 1 {
			t.Fatalf("%q came out as %q: the insertion %q is not one member (%v)", body, out, inserted, err)
		}
		if after, ok := object(out); !ok || len(after) != len(members)+1 {
			t.Fatalf("%q came out as %q, not an object with one member more", body, out)
		}
		tok := meta["mcp"].Headers[rollout.DefaultTokenHeader]
		resp := rec.Result()
		sid, err := mgr.Decode(resp.Cookies()[0].Value)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := c.Admit(withToken(tok), "forecast", ""); err != nil || got.SID != sid {
			t.Fatalf("the token names session %q (%v), the cookie %q", got.SID, err, sid)
		}
	})
}

// endSeeded ends the session a seed's response names by its cookie.
func endSeeded(t *testing.T, mgr *sessions.Manager, resp *http.Response) {
	for _, c := range resp.Cookies() {
		if sid, err := mgr.Decode(c.Value); err == nil {
			if err := mgr.End(context.Background(), sid); err != nil {
				t.Errorf("ending the seeded session %s: %v", sid, err)
			}
		}
	}
}

// object decodes s when it is one JSON object, numbers of any size
// included.
func object(s string) (map[string]any, bool) {
	if !json.Valid([]byte(s)) || !strings.HasPrefix(strings.TrimLeft(s, " \t\r\n"), "{") {
		return nil, false
	}
	var members map[string]any
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	return members, dec.Decode(&members) == nil
}
