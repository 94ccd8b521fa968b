package sessions

import (
	"fmt"
	"testing"

	"github.com/mcpdoor/mcpdoor/internal/keyring"
)

// TestCookieCache: the signed value of an id is reused, stays valid, and the
// cache is bounded.
func TestCookieCache(t *testing.T) {
	m := New(keyring.Random(), nil)
	a, _ := m.Cookie("s1")
	b, _ := m.Cookie("s1")
	if a.Value != b.Value {
		t.Errorf("signed twice: %q, %q", a.Value, b.Value)
	}
	for i := range maxSigned + 10 {
		m.Cookie(fmt.Sprint("id-", i))
	}
	if n := len(m.signed); n > maxSigned {
		t.Errorf("cache holds %d values, more than %d", n, maxSigned)
	}
	c, _ := m.Cookie("s1") // signed again after the cache started over
	for _, v := range []string{a.Value, c.Value} {
		if id, err := m.Decode(v); err != nil || id != "s1" {
			t.Errorf("Decode(%q) = %q, %v", v, id, err)
		}
	}
}
