package token

import (
	"errors"
	"strings"
	"testing"

	"github.com/gorilla/securecookie"
)

// TestWireSessionPrefix: a token's wire form begins with its session id in
// plain, then a dot, so that a proxy can route on it with no decoding; the
// plain id must be the signed one.
func TestWireSessionPrefix(t *testing.T) {
	c := NewCodec("weather", mustKeys(t, secretA), 0)
	tok, err := c.Mint(Payload{SID: "K7ZQ2M4PXA3RD5TBNW6YC2HJQE", Tools: []string{"get_weather"}})
	if err != nil {
		t.Fatal(err)
	}
	sid, signedPart, ok := strings.Cut(tok, ".")
	if !ok || sid != "K7ZQ2M4PXA3RD5TBNW6YC2HJQE" {
		t.Fatalf("token %q does not begin with its session id and a dot", tok)
	}
	other, _ := c.Mint(Payload{SID: "OTHERSESSION"})
	_, otherSigned, _ := strings.Cut(other, ".")
	// Validly signed, in the format of before tokens carried the plain id.
	unprefixed, err := securecookie.EncodeMulti(c.name, signed{SID: "s1", IssuedAt: 1}, c.codecs...)
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct{ tok, want string }{
		"another session's id in plain":    {"OTHERSESSION." + signedPart, "mcpdoor: invalid session token: its plain session id is not the signed one"},
		"the signed part of another token": {sid + "." + otherSigned, "mcpdoor: invalid session token: its plain session id is not the signed one"},
		"no plain id":                      {"." + signedPart, "mcpdoor: invalid session token: no plain session id before the signed part"},
		"the format of before":             {unprefixed, "mcpdoor: invalid session token: no plain session id before the signed part"},
		"the signed part alone":            {signedPart, "mcpdoor: invalid session token: no plain session id before the signed part"},
	} {
		t.Run(name, func(t *testing.T) {
			p, err := c.Verify(tc.tok)
			if !errors.Is(err, ErrInvalid) || err.Error() != tc.want || p.SID != "" {
				t.Errorf("Verify = %+v, %v; want %q", p, err, tc.want)
			}
		})
	}
	for _, bad := range []string{"a.b", "s 1", "s/1", strings.Repeat("s", 65)} {
		if _, err := c.Mint(Payload{SID: bad}); err == nil {
			t.Errorf("minted a token for session id %q, which cannot stand in plain before a dot", bad)
		}
	}
}
