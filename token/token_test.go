package token

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/securecookie"
)

func mustKeys(t testing.TB, secrets ...string) Keys {
	t.Helper()
	raw := make([][]byte, len(secrets))
	for i, s := range secrets {
		raw[i] = []byte(s)
	}
	k, err := NewKeys(raw...)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

const (
	secretA = "secret A, which is at least 32 bytes long"
	secretB = "secret B, which is at least 32 bytes long"
)

func TestMintVerify(t *testing.T) {
	c := NewCodec("weather", mustKeys(t, secretA), 0)
	for _, p := range []Payload{
		{SID: "s1"},
		{SID: "s2", Tools: []string{"get_weather"}},
		{SID: "s3", Tools: []string{}},
		{SID: "s4", Rollout: "task-3_rollout.7-a1"},
		{SID: "s5", Tools: []string{"get_weather"}, Rollout: "r1"},
	} {
		tok, err := c.Mint(p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Verify(tok)
		if err != nil {
			t.Fatalf("%+v: %v", p, err)
		}
		if got.SID != p.SID || (got.Tools == nil) != (p.Tools == nil) || len(got.Tools) != len(p.Tools) || got.Rollout != p.Rollout {
			t.Errorf("got %+v, want %+v", got, p)
		}
	}
	if _, err := c.Mint(Payload{}); err == nil {
		t.Error("minted a token without a session id")
	}
}

func TestAllows(t *testing.T) {
	cases := []struct {
		tools []string
		tool  string
		want  bool
	}{
		{nil, "any", true},
		{[]string{}, "any", false},
		{[]string{"a", "b"}, "b", true},
		{[]string{"a", "b"}, "c", false},
		{[]string{"ghost"}, "a", false}, // a listed tool that does not exist allows nothing else
	}
	for _, c := range cases {
		if got := (Payload{SID: "s", Tools: c.tools}).Allows(c.tool); got != c.want {
			t.Errorf("%q allows %q = %v", c.tools, c.tool, got)
		}
	}
}

// TestVerifyRefuses: every way a token can be wrong is refused with
// ErrInvalid, and nothing is learned from which.
func TestVerifyRefuses(t *testing.T) {
	keys := mustKeys(t, secretA)
	c := NewCodec("weather", keys, 0)
	good, _ := c.Mint(Payload{SID: "s1", Tools: []string{"get_weather"}})
	raw, err := base64.URLEncoding.DecodeString(strings.TrimPrefix(good, "s1."))
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.SplitN(string(raw), "|", 3) // date|value|mac
	payload, _ := base64.URLEncoding.DecodeString(parts[1])
	forged := strings.Replace(string(payload), `"tools":["get_weather"]`, `"tools":null`, 1)
	tamperedPayload := "s1." + base64.URLEncoding.EncodeToString([]byte(parts[0]+"|"+base64.URLEncoding.EncodeToString([]byte(forged))+"|"+parts[2]))
	mac := []byte(parts[2])
	mac[0] ^= 1
	tamperedMAC := "s1." + base64.URLEncoding.EncodeToString([]byte(parts[0]+"|"+parts[1]+"|"+string(mac)))
	// The same signature over another rollout's id.
	ofRollout, _ := c.Mint(Payload{SID: "s1", Rollout: "rolloutA"})
	raw, _ = base64.URLEncoding.DecodeString(strings.TrimPrefix(ofRollout, "s1."))
	parts = strings.SplitN(string(raw), "|", 3)
	payload, _ = base64.URLEncoding.DecodeString(parts[1])
	otherRollout := strings.Replace(string(payload), `"rid":"rolloutA"`, `"rid":"rolloutB"`, 1)
	if otherRollout == string(payload) {
		t.Fatalf("no rollout id in the payload %s", payload)
	}
	tamperedRollout := "s1." + base64.URLEncoding.EncodeToString([]byte(parts[0]+"|"+base64.URLEncoding.EncodeToString([]byte(otherRollout))+"|"+parts[2]))
	other, _ := NewCodec("news", keys, 0).Mint(Payload{SID: "s1"})
	foreignKey, _ := NewCodec("weather", mustKeys(t, secretB), 0).Mint(Payload{SID: "s1"})
	// Validly signed, in the format of before tokens carried their issue time.
	noIssueTime, err := securecookie.EncodeMulti(c.name, Payload{SID: "s1"}, c.codecs...)
	if err != nil {
		t.Fatal(err)
	}
	noIssueTime = "s1." + noIssueTime

	cases := map[string]string{
		"empty":                "",
		"garbage":              "not a token",
		"truncated":            good[:len(good)/2],
		"tampered payload":     tamperedPayload,
		"tampered rollout id":  tamperedRollout,
		"tampered signature":   tamperedMAC,
		"another server's":     other,
		"another secret's":     foreignKey,
		"no issue time":        noIssueTime,
		"extra byte":           good + "A",
		"huge":                 strings.Repeat("A", 1<<20),
		"separator only":       "s1." + base64.URLEncoding.EncodeToString([]byte("||")),
		"plain id only":        "s1.",
		"dots":                 "...",
		"not base64 after all": "%%%%",
	}
	for name, tok := range cases {
		t.Run(name, func(t *testing.T) {
			p, err := c.Verify(tok)
			if !errors.Is(err, ErrInvalid) || errors.Is(err, ErrExpired) || p.SID != "" {
				t.Fatalf("Verify = %+v, %v", p, err)
			}
		})
	}
}

// TestRotation: new keys sign, old keys verify; a rotated-out key's tokens
// are refused.
func TestRotation(t *testing.T) {
	old := NewCodec("weather", mustKeys(t, secretA), 0)
	tok, _ := old.Mint(Payload{SID: "s1"})
	rotated := NewCodec("weather", mustKeys(t, secretB, secretA), 0)
	if _, err := rotated.Verify(tok); err != nil {
		t.Fatalf("old token refused during rotation: %v", err)
	}
	fresh, _ := rotated.Mint(Payload{SID: "s2"})
	if _, err := NewCodec("weather", mustKeys(t, secretB), 0).Verify(fresh); err != nil {
		t.Fatalf("new key did not sign: %v", err)
	}
	if _, err := NewCodec("weather", mustKeys(t, secretB), 0).Verify(tok); !errors.Is(err, ErrInvalid) {
		t.Fatalf("rotated-out key still verifies: %v", err)
	}
}

// TestReplicas: two servers with the same secret and name (two replicas)
// accept each other's tokens.
func TestReplicas(t *testing.T) {
	a := NewCodec("weather", mustKeys(t, secretA), 0)
	b := NewCodec("weather", mustKeys(t, secretA), 0)
	tok, _ := a.Mint(Payload{SID: "s1", Tools: []string{"x"}})
	if p, err := b.Verify(tok); err != nil || p.SID != "s1" {
		t.Fatalf("replica refused: %+v %v", p, err)
	}
}

// clock returns a clock that reads *at, for a Codec's now.
func clock(at *time.Time) func() time.Time { return func() time.Time { return *at } }

// TestExpiry: a token is refused as expired once more than ttl whole seconds
// separate the second it was minted in from the verifier's clock, by every
// replica with a ttl, and never by an untimed one. The clocks are forged: no
// test waits for a token to age.
func TestExpiry(t *testing.T) {
	minted := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name        string
		ttl         time.Duration
		mintOffset  time.Duration // where in its second the token is minted
		age         time.Duration // verifier's clock minus the minting time
		wantExpired bool
	}{
		{"fresh", time.Second, 0, 0, false},
		{"1s old, ttl 1s", time.Second, 0, time.Second, false},
		{"1.9s old, ttl 1s", time.Second, 0, 1900 * time.Millisecond, false},
		{"2s old, ttl 1s", time.Second, 0, 2 * time.Second, true},
		{"1.1s old across two second boundaries, ttl 1s", time.Second, 900 * time.Millisecond, 1100 * time.Millisecond, true},
		{"a minute old, ttl 1s", time.Second, 0, time.Minute, true},
		{"ttl under a second counts as one: 1s old", 500 * time.Millisecond, 0, time.Second, false},
		{"ttl under a second counts as one: 2s old", 500 * time.Millisecond, 0, 2 * time.Second, true},
		{"ttl 1.5s counts as 1s: 2s old", 1500 * time.Millisecond, 0, 2 * time.Second, true},
		{"59m old, ttl 1h", time.Hour, 0, 59 * time.Minute, false},
		{"1h old, ttl 1h", time.Hour, 0, time.Hour, false},
		{"1h1s old, ttl 1h", time.Hour, 0, time.Hour + time.Second, true},
		{"a year old, untimed", 0, 0, 365 * 24 * time.Hour, false},
		{"minted a minute in the verifier's future", time.Second, 0, -time.Minute, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			at := minted.Add(tc.mintOffset)
			minter := NewCodec("weather", mustKeys(t, secretA), tc.ttl)
			minter.now = clock(&at)
			tok, err := minter.Mint(Payload{SID: "s1", Tools: []string{"get_weather"}})
			if err != nil {
				t.Fatal(err)
			}
			// A replica verifies: the age is carried by the token, not
			// remembered by the Codec that minted it.
			replica := NewCodec("weather", mustKeys(t, secretA), tc.ttl)
			now := at.Add(tc.age)
			replica.now = clock(&now)
			p, err := replica.Verify(tok)
			if tc.wantExpired {
				if !errors.Is(err, ErrInvalid) || !errors.Is(err, ErrExpired) || p.SID != "" {
					t.Fatalf("Verify = %+v, %v; want ErrInvalid wrapping ErrExpired", p, err)
				}
				if err.Error() != "mcpdoor: invalid session token: session token expired" {
					t.Errorf("error text %q", err)
				}
			} else if err != nil || p.SID != "s1" || len(p.Tools) != 1 || p.Tools[0] != "get_weather" {
				t.Fatalf("Verify = %+v, %v; want the payload", p, err)
			}

			untimed := NewCodec("weather", mustKeys(t, secretA), 0)
			untimed.now = clock(&now)
			if _, err := untimed.Verify(tok); err != nil {
				t.Errorf("an untimed codec refused the token: %v", err)
			}
		})
	}
}

// TestExpiryRealClock: a Codec made by NewCodec stamps and ages tokens by
// the wall clock, with no forged clock.
func TestExpiryRealClock(t *testing.T) {
	c := NewCodec("weather", mustKeys(t, secretA), time.Hour)
	tok, err := c.Mint(Payload{SID: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Verify(tok); err != nil {
		t.Fatalf("fresh token refused: %v", err)
	}
	old, err := securecookie.EncodeMulti(c.name, signed{SID: "s1", IssuedAt: time.Now().Add(-2 * time.Hour).Unix()}, c.codecs...)
	if err != nil {
		t.Fatal(err)
	}
	old = "s1." + old
	if _, err := c.Verify(old); !errors.Is(err, ErrExpired) {
		t.Fatalf("a token minted two hours ago, ttl 1h: %v; want ErrExpired", err)
	}
}

func TestNewCodecNegativeTTL(t *testing.T) {
	defer func() {
		if r := recover(); r != "mcpdoor: token.NewCodec with a negative ttl (-1s); 0 means untimed" {
			t.Errorf("panic %v", r)
		}
	}()
	NewCodec("weather", mustKeys(t, secretA), -time.Second)
}

func FuzzVerify(f *testing.F) {
	c := NewCodec("weather", mustKeys(f, secretA), 0)
	good, _ := c.Mint(Payload{SID: "s1", Tools: []string{"get_weather"}})
	f.Add(good)
	ofRollout, _ := c.Mint(Payload{SID: "s1", Rollout: "r1"})
	f.Add(ofRollout)
	f.Fuzz(func(t *testing.T, tok string) {
		p, err := c.Verify(tok)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error does not wrap ErrInvalid: %v", err)
			}
			return
		}
		if p.SID == "" {
			t.Fatal("verified a token without a session id")
		}
		if !strings.HasPrefix(tok, p.SID+".") {
			t.Fatalf("verified token %q does not begin with its session id %q", tok, p.SID)
		}
	})
}

func BenchmarkVerify(b *testing.B) {
	c := NewCodec("weather", mustKeys(b, secretA), 0)
	tok, _ := c.Mint(Payload{SID: "s1", Tools: []string{"get_weather", "list_cities"}})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Verify(tok); err != nil {
			b.Fatal(err)
		}
	}
}
