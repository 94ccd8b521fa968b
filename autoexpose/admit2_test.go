package autoexpose

import (
	"net/http"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/token"
)

// gateDoor installs a door over one tool and returns it with a valid token.
func gateDoor(tb testing.TB, requireToken bool) (*Door, *tool, string) {
	tb.Helper()
	r := rolloutRouter(func(r chi.Router) { r.Method("POST", "/get_weather", Handler(getWeather)) })
	cfg := enabled(MCPConfig{SessionSecret: Secrets{"a benchmark secret of at least 32 bytes"}, RequireToken: Bool(requireToken)})
	d, err := Install(r, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tok, err := d.codec.Mint(token.Payload{SID: "s1", Tools: []string{"get_weather"}})
	if err != nil {
		tb.Fatal(err)
	}
	return d, d.tools["get_weather"], tok
}

func TestAdmit(t *testing.T) {
	d, tl, tok := gateDoor(t, true)
	withToken := http.Header{}
	withToken.Set(DefaultTokenHeader, tok)
	if sid, tokenless, refused := d.admit(tl, withToken); refused != nil || tokenless || sid != "s1" {
		t.Errorf("valid token: %q %v %v", sid, tokenless, refused)
	}
	if _, _, refused := d.admit(tl, http.Header{}); refused == nil {
		t.Error("tokenless call admitted with require_token")
	}
	d2, tl2, _ := gateDoor(t, false)
	if sid, tokenless, refused := d2.admit(tl2, http.Header{}); refused != nil || !tokenless || sid != "" {
		t.Errorf("tokenless local call: %q %v %v", sid, tokenless, refused)
	}
}

// BenchmarkAdmit measures what the token check adds to every tools/call: the
// token is verified each time (HMAC and JSON), with no cache. "none" is a
// tokenless call under require_token: false, the check's floor.
func BenchmarkAdmit(b *testing.B) {
	d, tl, tok := gateDoor(b, true)
	withToken := http.Header{}
	withToken.Set(DefaultTokenHeader, tok)
	b.Run("token", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, refused := d.admit(tl, withToken); refused != nil {
				b.Fatal(refused)
			}
		}
	})
	d2, tl2, _ := gateDoor(b, false)
	b.Run("none", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, refused := d2.admit(tl2, http.Header{}); refused != nil {
				b.Fatal(refused)
			}
		}
	})
}
