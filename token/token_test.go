package token

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"
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
	} {
		tok, err := c.Mint(p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Verify(tok)
		if err != nil {
			t.Fatalf("%+v: %v", p, err)
		}
		if got.SID != p.SID || (got.Tools == nil) != (p.Tools == nil) || len(got.Tools) != len(p.Tools) {
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
	raw, err := base64.URLEncoding.DecodeString(good)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.SplitN(string(raw), "|", 3) // date|value|mac
	payload, _ := base64.URLEncoding.DecodeString(parts[1])
	forged := strings.Replace(string(payload), `"tools":["get_weather"]`, `"tools":null`, 1)
	tamperedPayload := base64.URLEncoding.EncodeToString([]byte(parts[0] + "|" + base64.URLEncoding.EncodeToString([]byte(forged)) + "|" + parts[2]))
	mac := []byte(parts[2])
	mac[0] ^= 1
	tamperedMAC := base64.URLEncoding.EncodeToString([]byte(parts[0] + "|" + parts[1] + "|" + string(mac)))
	other, _ := NewCodec("news", keys, 0).Mint(Payload{SID: "s1"})
	foreignKey, _ := NewCodec("weather", mustKeys(t, secretB), 0).Mint(Payload{SID: "s1"})

	cases := map[string]string{
		"empty":                "",
		"garbage":              "not a token",
		"truncated":            good[:len(good)/2],
		"tampered payload":     tamperedPayload,
		"tampered signature":   tamperedMAC,
		"another server's":     other,
		"another secret's":     foreignKey,
		"extra byte":           good + "A",
		"huge":                 strings.Repeat("A", 1<<20),
		"separator only":       base64.URLEncoding.EncodeToString([]byte("||")),
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

func TestExpiry(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a token to expire")
	}
	c := NewCodec("weather", mustKeys(t, secretA), time.Second)
	tok, _ := c.Mint(Payload{SID: "s1"})
	if _, err := c.Verify(tok); err != nil {
		t.Fatalf("fresh token refused: %v", err)
	}
	time.Sleep(2100 * time.Millisecond) // timestamps have a resolution of one second
	_, err := c.Verify(tok)
	if !errors.Is(err, ErrInvalid) || !errors.Is(err, ErrExpired) {
		t.Fatalf("expired token: %v", err)
	}
	if _, err := NewCodec("weather", mustKeys(t, secretA), 0).Verify(tok); err != nil {
		t.Fatalf("an untimed codec refused an old token: %v", err)
	}
}

func FuzzVerify(f *testing.F) {
	c := NewCodec("weather", mustKeys(f, secretA), 0)
	good, _ := c.Mint(Payload{SID: "s1", Tools: []string{"get_weather"}})
	f.Add(good)
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
