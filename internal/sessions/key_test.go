package sessions_test

import (
	"strings"
	"testing"

	"github.com/gorilla/securecookie"

	"github.com/mcpdoor/mcpdoor/internal/keyring"
	"github.com/mcpdoor/mcpdoor/internal/sessions"
)

// TestCookieSessionPrefix: a session cookie's value begins with its session
// id in plain, then a dot, so that a proxy can route on it with no
// decoding; the plain id must be the signed one.
func TestCookieSessionPrefix(t *testing.T) {
	k := keys(t, secretOld)
	m := sessions.New(k, nil)
	c, err := m.Cookie("K7ZQ2M4PXA3RD5TBNW6YC2HJQE")
	if err != nil {
		t.Fatal(err)
	}
	sid, signedPart, ok := strings.Cut(c.Value, ".")
	if !ok || sid != "K7ZQ2M4PXA3RD5TBNW6YC2HJQE" {
		t.Fatalf("cookie value %q does not begin with its session id and a dot", c.Value)
	}
	other, _ := m.Cookie("OTHERSESSION")
	_, otherSigned, _ := strings.Cut(other.Value, ".")
	// Validly signed, in the format of before cookies carried the plain id.
	unprefixed, err := securecookie.EncodeMulti(m.CookieName(), "s1", keyring.Codecs(k, "session", 0)...)
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct{ value, want string }{
		"another session's id in plain":    {"OTHERSESSION." + signedPart, "mcpdoor: session cookie: its plain session id is not the signed one"},
		"the signed part of another value": {sid + "." + otherSigned, "mcpdoor: session cookie: its plain session id is not the signed one"},
		"no plain id":                      {"." + signedPart, "mcpdoor: session cookie: no plain session id before the signed part"},
		"the format of before":             {unprefixed, "mcpdoor: session cookie: no plain session id before the signed part"},
	} {
		t.Run(name, func(t *testing.T) {
			id, err := m.Decode(tc.value)
			if err == nil || err.Error() != tc.want || id != "" {
				t.Errorf("Decode = %q, %v; want %q", id, err, tc.want)
			}
		})
	}
	if _, err := m.Cookie("a.b"); err == nil {
		t.Error("signed a cookie for session id \"a.b\", which cannot stand in plain before a dot")
	}
}
