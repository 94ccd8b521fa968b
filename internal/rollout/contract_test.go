package rollout_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpdoor/mcpdoor/internal/rollout"
	"github.com/mcpdoor/mcpdoor/internal/sessions"
	"github.com/mcpdoor/mcpdoor/token"
)

// testSecret signs the tests' sessions and tokens.
const testSecret = "a secret for the rollout tests, 32 bytes or more"

func testKeys(t testing.TB, secret string) token.Keys {
	t.Helper()
	keys, err := token.NewKeys([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// logTo returns a logger writing text lines to buf, without their time.
func logTo(buf *bytes.Buffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))
}

// newContract returns the contract of server "weather", its endpoint at
// /mcp, signing with testSecret, logging to logs (which may be nil).
func newContract(t testing.TB, cfg rollout.Config, logs *bytes.Buffer) (*rollout.Contract, *sessions.Manager) {
	t.Helper()
	mgr := sessions.New(testKeys(t, testSecret), nil)
	p := rollout.Params{Server: "weather", Path: "/mcp", Sessions: mgr, MaxHeldBytes: 1 << 10}
	if logs != nil {
		p.Logger = logTo(logs)
	} else {
		p.Logger = slog.New(slog.DiscardHandler)
	}
	return rollout.New(cfg, p), mgr
}

// mint returns a token of server for session sid listing tools (nil:
// every tool), signed with secret, as another door would mint it.
func mint(t testing.TB, secret, server, sid string, tools []string) string {
	t.Helper()
	tok, err := token.NewCodec(server, testKeys(t, secret), 0).Mint(token.Payload{SID: sid, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// forged returns a token of server "weather" for session sid, signed with
// testSecret the way package token signs, but minted at Unix time iat:
// a token of any age, without waiting, with the plain session id in front
// as package token writes it. TestForged checks it against the real thing.
func forged(sid string, iat int64) string {
	derive := hmac.New(sha256.New, []byte(testSecret))
	derive.Write([]byte("mcpdoor/token"))
	key := derive.Sum(nil)

	js, _ := json.Marshal(map[string]any{"sid": sid, "tools": nil, "iat": iat})
	js = append(js, '\n') // securecookie's JSONEncoder writes with json.Encoder
	name := "mcpdoor-token/weather"
	msg := fmt.Sprintf("%s|%d|%s", name, iat, base64.URLEncoding.EncodeToString(js))
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(msg))
	signed := append([]byte(msg+"|"), mac.Sum(nil)...)[len(name)+1:]
	return sid + "." + base64.URLEncoding.EncodeToString(signed)
}

// TestForged: a forged token minted now is accepted, so that the refusal
// of an old one shows the age check, not a bad forgery.
func TestForged(t *testing.T) {
	c, _ := newContract(t, rollout.Config{TokenTTL: time.Hour}, nil)
	p, err := c.Admit(withToken(forged("s-now", time.Now().Unix())), "get_weather", "")
	if err != nil || p.SID != "s-now" {
		t.Fatalf("Admit(a forged token minted now) = %+v, %v; want s-now: the tests that forge tokens show nothing", p, err)
	}
}

// withToken returns a request header carrying tok in the default header.
func withToken(tok string) http.Header {
	h := http.Header{}
	h.Set(rollout.DefaultTokenHeader, tok)
	return h
}

func TestAdmit(t *testing.T) {
	missing := &rollout.Refusal{Code: rollout.CodeMissingToken, Text: "Missing X-NeMo-Gym-Session-Token for Gym MCP tool call.",
		Message: "no session token", Status: http.StatusUnauthorized}
	invalid := &rollout.Refusal{Code: rollout.CodeInvalidToken, Text: "Invalid Gym MCP session token.",
		Message: "the session token is not valid for this server", Status: http.StatusUnauthorized}
	expired := &rollout.Refusal{Code: rollout.CodeInvalidToken, Text: "Invalid Gym MCP session token.",
		Message: "the session token has expired", Status: http.StatusUnauthorized}
	notAllowed := &rollout.Refusal{Code: rollout.CodeToolNotAllowed, Text: "Tool 'forecast' is not allowed for this session.",
		Message: "the session token does not list this tool", Status: http.StatusForbidden}

	hourAgo := time.Now().Add(-time.Hour - 2*time.Second).Unix()
	for _, tc := range []struct {
		name   string
		cfg    rollout.Config
		header http.Header
		tool   string
		sid    string
		refuse *rollout.Refusal
	}{
		{"valid", rollout.Config{}, withToken(mint(t, testSecret, "weather", "s1", nil)), "forecast", "s1", nil},
		{"valid, listing the tool", rollout.Config{}, withToken(mint(t, testSecret, "weather", "s1", []string{"forecast"})), "forecast", "s1", nil},
		{"missing", rollout.Config{}, http.Header{}, "forecast", "", missing},
		{"empty", rollout.Config{}, withToken(""), "forecast", "", missing},
		{"missing, in a header of the config's", rollout.Config{TokenHeader: "X-Rollout"}, withToken(mint(t, testSecret, "weather", "s1", nil)), "forecast", "",
			&rollout.Refusal{Code: rollout.CodeMissingToken, Text: "Missing X-Rollout for Gym MCP tool call.", Message: "no session token", Status: http.StatusUnauthorized}},
		{"in a header of the config's", rollout.Config{TokenHeader: "x-rollout"},
			http.Header{"X-Rollout": {mint(t, testSecret, "weather", "s1", nil)}}, "forecast", "s1", nil},
		{"garbage", rollout.Config{}, withToken("garbage"), "forecast", "", invalid},
		{"tampered", rollout.Config{}, withToken(strings.ToUpper(mint(t, testSecret, "weather", "s1", nil))), "forecast", "", invalid},
		{"another server's", rollout.Config{}, withToken(mint(t, testSecret, "store", "s1", nil)), "forecast", "", invalid},
		{"another secret's", rollout.Config{}, withToken(mint(t, "another secret, also 32 bytes or more", "weather", "s1", nil)), "forecast", "", invalid},
		{"expired", rollout.Config{TokenTTL: time.Hour}, withToken(forged("s1", hourAgo)), "forecast", "", expired},
		{"as old, untimed", rollout.Config{}, withToken(forged("s1", hourAgo)), "forecast", "s1", nil},
		{"tool not listed", rollout.Config{}, withToken(mint(t, testSecret, "weather", "s1", []string{"get_weather"})), "forecast", "", notAllowed},
		{"an empty list", rollout.Config{}, withToken(mint(t, testSecret, "weather", "s1", []string{})), "forecast", "", notAllowed},
		{"tokenless allowed", rollout.Config{AllowTokenless: true}, http.Header{}, "forecast", "", nil},
		{"tokenless allowed, garbage sent", rollout.Config{AllowTokenless: true}, withToken("garbage"), "forecast", "", invalid},
		{"tokenless allowed, tool not listed", rollout.Config{AllowTokenless: true},
			withToken(mint(t, testSecret, "weather", "s1", []string{"get_weather"})), "forecast", "", notAllowed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newContract(t, tc.cfg, nil)
			p, err := c.Admit(tc.header, tc.tool, "")
			if p.SID != tc.sid {
				t.Errorf("sid %q, want %q", p.SID, tc.sid)
			}
			if tc.refuse == nil {
				if err != nil {
					t.Errorf("refused: %v", err)
				}
				return
			}
			var got *rollout.Refusal
			if !errors.As(err, &got) {
				t.Fatalf("error %v, want %+v", err, tc.refuse)
			}
			if *got != *tc.refuse {
				t.Errorf("refusal\n  %+v\nwant\n  %+v", *got, *tc.refuse)
			}
			if err.Error() != tc.refuse.Text {
				t.Errorf("Error() = %q, want the text", err.Error())
			}
		})
	}
}

// TestVisible: only a valid token with a list narrows tools/list; a token
// that is sent but does not verify gets the invalid-token refusal.
func TestVisible(t *testing.T) {
	c, _ := newContract(t, rollout.Config{}, nil)
	for _, tc := range []struct {
		name   string
		header http.Header
		want   string // the visible tools of "forecast get_weather", or "all" for a nil func
	}{
		{"no token", http.Header{}, "all"},
		{"garbage", withToken("garbage"), "refused: the session token is not valid for this server"},
		{"another server's, with a list", withToken(mint(t, testSecret, "store", "s1", []string{"get_weather"})), "refused: the session token is not valid for this server"},
		{"no list", withToken(mint(t, testSecret, "weather", "s1", nil)), "all"},
		{"a list", withToken(mint(t, testSecret, "weather", "s1", []string{"get_weather", "set_alarm"})), "get_weather"},
		{"an empty list", withToken(mint(t, testSecret, "weather", "s1", []string{})), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			visible, err := c.Visible(tc.header)
			got := "all"
			var r *rollout.Refusal
			switch {
			case errors.As(err, &r) && r.Code == rollout.CodeInvalidToken && visible == nil:
				got = "refused: " + r.Message
			case err != nil:
				t.Fatalf("Visible: %v, %v", visible != nil, err)
			case visible != nil:
				var shown []string
				for _, name := range []string{"forecast", "get_weather"} {
					if visible(name) {
						shown = append(shown, name)
					}
				}
				got = strings.Join(shown, " ")
			}
			if got != tc.want {
				t.Errorf("visible %q, want %q", got, tc.want)
			}
		})
	}
}

func TestSession(t *testing.T) {
	c, _ := newContract(t, rollout.Config{TokenTTL: time.Hour}, nil)
	for _, tc := range []struct {
		name   string
		header http.Header
		sid    string
		ok     bool
	}{
		{"no token", http.Header{}, "", false},
		{"valid", withToken(mint(t, testSecret, "weather", "s1", []string{"get_weather"})), "s1", true},
		{"garbage", withToken("garbage"), "", true},
		{"another server's", withToken(mint(t, testSecret, "store", "s1", nil)), "", true},
		{"expired", withToken(forged("s1", time.Now().Add(-2*time.Hour).Unix())), "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if sid, ok := c.Session(tc.header); sid != tc.sid || ok != tc.ok {
				t.Errorf("Session = %q, %v; want %q, %v", sid, ok, tc.sid, tc.ok)
			}
		})
	}
}

func TestDecide(t *testing.T) {
	const (
		seedOnly = "mcpdoor: the router serves POST /seed_session but not POST /verify, so NeMo Gym's rollout contract is half there " +
			"(POST /verify: its tool-call names are normalized for scoring); fix: add POST /verify, or set mcp.rollout.disable: true to serve POST /seed_session as a plain route"
		verifyOnly = "mcpdoor: the router serves POST /verify but not POST /seed_session, so NeMo Gym's rollout contract is half there " +
			"(POST /seed_session: its response carries the MCP session token to the agent); fix: add POST /seed_session, or set mcp.rollout.disable: true to serve POST /verify as a plain route"
		unused = "mcpdoor: mcp.rollout is configured, but the router serves neither POST /seed_session nor POST /verify, " +
			"the routes of NeMo Gym's rollout contract; fix: add both routes, or remove the mcp.rollout settings"
	)
	hook := func([]byte) ([]string, error) { return nil, nil }
	for _, tc := range []struct {
		name         string
		cfg          rollout.Config
		seed, verify bool
		on           bool
		err          string
	}{
		{"both routes", rollout.Config{}, true, true, true, ""},
		{"both routes, with settings", rollout.Config{TokenTTL: time.Hour, AllowedTools: hook}, true, true, true, ""},
		{"neither", rollout.Config{}, false, false, false, ""},
		{"seed alone", rollout.Config{}, true, false, false, seedOnly},
		{"verify alone", rollout.Config{}, false, true, false, verifyOnly},
		{"seed alone, with settings", rollout.Config{AllowTokenless: true}, true, false, false, seedOnly},
		{"disabled, both routes", rollout.Config{Disable: true}, true, true, false, ""},
		{"disabled, seed alone", rollout.Config{Disable: true}, true, false, false, ""},
		{"disabled, verify alone", rollout.Config{Disable: true}, false, true, false, ""},
		{"disabled, neither", rollout.Config{Disable: true}, false, false, false, ""},
		{"disabled, with settings", rollout.Config{Disable: true, AllowTokenless: true}, true, true, false,
			"mcpdoor: mcp.rollout.disable is true, so the other mcp.rollout settings do nothing; fix: remove them, or remove disable"},
		{"neither, allow_tokenless", rollout.Config{AllowTokenless: true}, false, false, false, unused},
		{"neither, token_header", rollout.Config{TokenHeader: "X-Rollout"}, false, false, false, unused},
		{"neither, token_ttl", rollout.Config{TokenTTL: time.Hour}, false, false, false, unused},
		{"neither, max_verify_bytes", rollout.Config{MaxVerifyBytes: 1 << 20}, false, false, false, unused},
		{"neither, AllowedTools", rollout.Config{AllowedTools: hook}, false, false, false, unused},
	} {
		t.Run(tc.name, func(t *testing.T) {
			on, err := rollout.Decide(tc.cfg, tc.seed, tc.verify)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if on != tc.on || got != tc.err {
				t.Errorf("Decide = %v, %q\nwant %v, %q", on, got, tc.on, tc.err)
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  rollout.Config
		err  string
	}{
		{"zero", rollout.Config{}, ""},
		{"every setting", rollout.Config{Disable: true, AllowTokenless: true, TokenHeader: "X-Rollout", TokenTTL: time.Second, MaxSeedBytes: 1, MaxVerifyBytes: 1}, ""},
		{"token_header", rollout.Config{TokenHeader: "X Rollout"}, `mcpdoor: config: mcp.rollout.token_header: "X Rollout" is not a header name`},
		{"token_ttl negative", rollout.Config{TokenTTL: -time.Second}, "mcpdoor: config: mcp.rollout.token_ttl: -1s is negative"},
		{"token_ttl under a second", rollout.Config{TokenTTL: 500 * time.Millisecond},
			"mcpdoor: config: mcp.rollout.token_ttl: 500ms is under a second, the resolution of token timestamps"},
		{"max_seed_bytes", rollout.Config{MaxSeedBytes: -1}, "mcpdoor: config: mcp.rollout.max_seed_bytes: -1 is negative"},
		{"max_verify_bytes", rollout.Config{MaxVerifyBytes: -1}, "mcpdoor: config: mcp.rollout.max_verify_bytes: -1 is negative"},
		{"all at once", rollout.Config{TokenHeader: "é", TokenTTL: time.Nanosecond, MaxVerifyBytes: -2},
			`mcpdoor: config: mcp.rollout.token_header: "é" is not a header name` + "\n" +
				"mcpdoor: config: mcp.rollout.token_ttl: 1ns is under a second, the resolution of token timestamps\n" +
				"mcpdoor: config: mcp.rollout.max_verify_bytes: -2 is negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			if err := tc.cfg.Validate(); err != nil {
				got = err.Error()
			}
			if got != tc.err {
				t.Errorf("Validate:\n  %s\nwant:\n  %s", got, tc.err)
			}
		})
	}
}

func TestConfigIsZero(t *testing.T) {
	hook := func([]byte) ([]string, error) { return nil, nil }
	for _, tc := range []struct {
		cfg  rollout.Config
		want bool
	}{
		{rollout.Config{}, true},
		{rollout.Config{Disable: true}, false},
		{rollout.Config{AllowTokenless: true}, false},
		{rollout.Config{TokenHeader: "X"}, false},
		{rollout.Config{TokenTTL: time.Second}, false},
		{rollout.Config{MaxSeedBytes: 1}, false},
		{rollout.Config{MaxVerifyBytes: 1}, false},
		{rollout.Config{AllowedTools: hook}, false},
	} {
		if got := tc.cfg.IsZero(); got != tc.want {
			t.Errorf("%+v.IsZero() = %v, want %v", tc.cfg, got, tc.want)
		}
	}
}

// TestNewDefaults: a Contract made with only the Params a gateway has
// (no logger, no seed limit) seeds and logs.
func TestNewDefaults(t *testing.T) {
	var logs bytes.Buffer
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(logTo(&logs))
	c := rollout.New(rollout.Config{}, rollout.Params{Server: "weather", Path: "/mcp", Sessions: sessions.New(testKeys(t, testSecret), nil)})
	if c.TokenHeader() != rollout.DefaultTokenHeader {
		t.Errorf("TokenHeader() = %q", c.TokenHeader())
	}
	_, body := seed(t, c.Seed(answer(http.StatusOK, "[]")), nil, `{"task":1}`)
	if body != "[]" {
		t.Errorf("seed response %q", body)
	}
	if !strings.Contains(logs.String(), `level=WARN msg="mcpdoor: /seed_session's response carries no MCP session token`) {
		t.Errorf("slog.Default got %q", logs.String())
	}
}

func TestNewWithoutSessions(t *testing.T) {
	defer func() {
		if v := recover(); v != "mcpdoor: rollout.New with nil Params.Sessions" {
			t.Errorf("panic %v", v)
		}
	}()
	rollout.New(rollout.Config{}, rollout.Params{Server: "weather"})
}
