package keyring

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/securecookie"
)

var (
	secret1 = []byte("the first secret, 32 bytes or more")
	secret2 = []byte("the second secret, 32 bytes or more")
)

func newKeys(t *testing.T, secrets ...[]byte) Keys {
	t.Helper()
	k, err := New(secrets...)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// encode signs value under name with the first of k's codecs for purpose.
func encode(t *testing.T, k Keys, purpose, name string, value any) string {
	t.Helper()
	v, err := securecookie.EncodeMulti(name, value, Codecs(k, purpose, 0)...)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// decodes reports whether k's codecs for purpose and maxAge verify v, signed
// under name, as the string want.
func decodes(k Keys, purpose string, maxAge time.Duration, name, v, want string) bool {
	var got string
	err := securecookie.DecodeMulti(name, v, &got, Codecs(k, purpose, maxAge)...)
	return err == nil && got == want
}

func TestNewNoSecret(t *testing.T) {
	k, err := New()
	if err == nil || err.Error() != "no secret given" || !IsZero(k) {
		t.Errorf("New() = %v, %v; want zero Keys, \"no secret given\"", k, err)
	}
}

func TestNewLength(t *testing.T) {
	short := bytes.Repeat([]byte("s"), MinSecretLen-1)
	enough := bytes.Repeat([]byte("e"), MinSecretLen)
	for _, tc := range []struct {
		name    string
		secrets [][]byte
		wantErr string // "" for none
	}{
		{"32 bytes", [][]byte{enough}, ""},
		{"64 bytes", [][]byte{bytes.Repeat(enough, 2)}, ""},
		{"two secrets", [][]byte{enough, secret1}, ""},
		{"31 bytes", [][]byte{short}, "secret 1 of 1: secret is shorter than 32 bytes (it has 31)"},
		{"empty", [][]byte{{}}, "secret 1 of 1: secret is shorter than 32 bytes (it has 0)"},
		{"second of two short", [][]byte{enough, short}, "secret 2 of 2: secret is shorter than 32 bytes (it has 31)"},
		{"first of two short", [][]byte{short, enough}, "secret 1 of 2: secret is shorter than 32 bytes (it has 31)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, err := New(tc.secrets...)
			if tc.wantErr == "" {
				if err != nil || IsZero(k) {
					t.Fatalf("New = %v, %v; want keys", k, err)
				}
				if v := encode(t, k, "session", "n", "x"); !decodes(k, "session", 0, "n", v, "x") {
					t.Error("the keys do not verify what they sign")
				}
				return
			}
			if !errors.Is(err, ErrShortSecret) || err.Error() != tc.wantErr || !IsZero(k) {
				t.Errorf("New = %v, %q; want zero Keys, %q wrapping ErrShortSecret", k, err, tc.wantErr)
			}
		})
	}
}

// TestNewKeysCopies: changing the caller's secrets after New does not
// change the keys.
func TestNewCopies(t *testing.T) {
	secret := bytes.Clone(secret1)
	secrets := [][]byte{secret}
	k := newKeys(t, secrets...)
	v := encode(t, k, "session", "n", "x")

	secret[0] ^= 0xff
	secrets[0] = secret2
	if !decodes(k, "session", 0, "n", v, "x") {
		t.Error("the keys changed with the caller's secret")
	}
	if decodes(newKeys(t, secret), "session", 0, "n", v, "x") {
		t.Fatal("the changed secret still verifies: this test shows nothing")
	}
	if w := encode(t, k, "session", "n", "y"); !decodes(newKeys(t, secret1), "session", 0, "n", w, "y") {
		t.Error("the keys no longer sign with the original secret")
	}
}

func TestRandom(t *testing.T) {
	a, b := Random(), Random()
	if IsZero(a) || IsZero(b) {
		t.Fatal("Random is zero")
	}
	va, vb := encode(t, a, "session", "n", "x"), encode(t, b, "session", "n", "x")
	if !decodes(a, "session", 0, "n", va, "x") || !decodes(b, "session", 0, "n", vb, "x") {
		t.Error("random keys do not verify what they sign")
	}
	if decodes(b, "session", 0, "n", va, "x") || decodes(a, "session", 0, "n", vb, "x") {
		t.Error("two Random key rings verify each other's values")
	}
}

func TestZeroKeys(t *testing.T) {
	var k Keys
	if !IsZero(k) || len(Codecs(k, "session", 0)) != 0 {
		t.Fatalf("zero Keys: IsZero %v, %d codecs", IsZero(k), len(Codecs(k, "session", 0)))
	}
	if _, err := securecookie.EncodeMulti("n", "x", Codecs(k, "session", 0)...); err == nil {
		t.Error("zero Keys signed a value")
	}
}

// TestCodecsPurpose: a value signed for one purpose does not verify for
// another, under the same secret and name.
func TestCodecsPurpose(t *testing.T) {
	k := newKeys(t, secret1)
	asToken := encode(t, k, "token", "mcpdoor_session", "s1")
	asSession := encode(t, k, "session", "mcpdoor_session", "s1")
	if !decodes(k, "token", 0, "mcpdoor_session", asToken, "s1") || !decodes(k, "session", 0, "mcpdoor_session", asSession, "s1") {
		t.Fatal("a purpose does not verify its own values")
	}
	if decodes(k, "session", 0, "mcpdoor_session", asToken, "s1") {
		t.Error("a value signed for \"token\" verifies as \"session\"")
	}
	if decodes(k, "token", 0, "mcpdoor_session", asSession, "s1") {
		t.Error("a value signed for \"session\" verifies as \"token\"")
	}
}

// TestCodecsRotation: the first secret signs, every secret verifies.
func TestCodecsRotation(t *testing.T) {
	old := newKeys(t, secret1)
	rotated := newKeys(t, secret2, secret1)
	if n := len(Codecs(rotated, "session", 0)); n != 2 {
		t.Fatalf("%d codecs for two secrets, want 2", n)
	}
	signedOld := encode(t, old, "session", "n", "before")
	if !decodes(rotated, "session", 0, "n", signedOld, "before") {
		t.Error("a value signed before the rotation no longer verifies")
	}
	signedNew := encode(t, rotated, "session", "n", "after")
	if !decodes(newKeys(t, secret2), "session", 0, "n", signedNew, "after") {
		t.Error("the new secret did not sign")
	}
	if decodes(old, "session", 0, "n", signedNew, "after") {
		t.Error("the old secret signed after the rotation")
	}
}

// signedAt signs value under name for purpose, with secret, as Codecs would
// have at Unix time ts: HMAC-SHA256 under a key derived from the secret and
// the purpose, in securecookie's format. TestSignedAt checks it against the
// real thing, so that tests can make values of any age without waiting.
func signedAt(secret []byte, purpose, name string, value any, ts int64) string {
	derive := hmac.New(sha256.New, secret)
	derive.Write([]byte("mcpdoor/" + purpose))
	key := derive.Sum(nil)

	js, _ := json.Marshal(value)
	js = append(js, '\n') // securecookie.JSONEncoder writes with json.Encoder
	msg := fmt.Sprintf("%s|%d|%s", name, ts, base64.URLEncoding.EncodeToString(js))
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(msg))
	signed := append([]byte(msg+"|"), mac.Sum(nil)...)[len(name)+1:]
	return base64.URLEncoding.EncodeToString(signed)
}

func TestSignedAt(t *testing.T) {
	k := newKeys(t, secret1)
	v := signedAt(secret1, "session", "n", "x", time.Now().Unix())
	if !decodes(k, "session", time.Hour, "n", v, "x") {
		t.Fatal("Codecs refuses what signedAt signs: the tests that use it show nothing")
	}
}

// TestCodecsMaxAge: values older than maxAge are refused; maxAge 0 means no
// limit (not securecookie's default of 30 days).
func TestCodecsMaxAge(t *testing.T) {
	k := newKeys(t, secret1)
	for _, tc := range []struct {
		name   string
		maxAge time.Duration
		age    time.Duration
		want   bool
	}{
		{"fresh, 1s", time.Second, 0, true},
		{"2s old, 1s", time.Second, 2 * time.Second, false},
		{"1m old, 1s", time.Second, time.Minute, false},
		{"59m old, 1h", time.Hour, 59 * time.Minute, true},
		{"61m old, 1h", time.Hour, 61 * time.Minute, false},
		{"a year old, no limit", 0, 365 * 24 * time.Hour, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := signedAt(secret1, "token", "n", "x", time.Now().Add(-tc.age).Unix())
			if got := decodes(k, "token", tc.maxAge, "n", v, "x"); got != tc.want {
				t.Errorf("a value %v old under maxAge %v: verified %v, want %v", tc.age, tc.maxAge, got, tc.want)
			}
		})
	}
}

// TestCodecsMaxLength: encoded values up to 64 KiB are signed and verified,
// longer ones refused both ways.
func TestCodecsMaxLength(t *testing.T) {
	k := newKeys(t, secret1)
	// Over securecookie's default limit of 4 KiB: an allow-list of a few
	// hundred tool names.
	long := strings.Repeat("get_weather,", 1000)
	if v := encode(t, k, "token", "n", long); !decodes(k, "token", 0, "n", v, long) {
		t.Errorf("a %d-byte value does not round-trip", len(long))
	}

	huge := strings.Repeat("x", 50<<10) // about 67 KiB once encoded
	if v, err := securecookie.EncodeMulti("n", huge, Codecs(k, "token", 0)...); err == nil {
		t.Errorf("signed a %d-byte encoded value", len(v))
	}
	hugeSigned := signedAt(secret1, "token", "n", huge, time.Now().Unix())
	var got string
	err := securecookie.DecodeMulti("n", hugeSigned, &got, Codecs(k, "token", 0)...)
	if err == nil || !strings.Contains(err.Error(), "too long") {
		t.Errorf("decoding a validly signed %d-byte value: %v; want it refused as too long", len(hugeSigned), err)
	}
}
