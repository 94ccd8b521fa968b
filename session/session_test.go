package session_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/session"
	"github.com/mcpdoor/mcpdoor/token"
)

func testKeys(t testing.TB, secret string) token.Keys {
	t.Helper()
	k, err := token.NewKeys([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// whoami serves m's middleware in front of a handler that answers the
// session id it sees, on a real listener.
func whoami(t *testing.T, m *session.Manager) *httptest.Server {
	r := chi.NewRouter()
	r.Use(m.Middleware)
	r.Post("/whoami", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, session.ID(r)) })
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return srv
}

// ask posts to /whoami with cookies and returns the session id answered
// and the cookies set.
func ask(t *testing.T, srv *httptest.Server, cookies ...*http.Cookie) (string, []*http.Cookie) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/whoami", nil)
	for _, c := range cookies {
		req.AddCookie(c)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b), resp.Cookies()
}

// TestMiddleware: a client without a cookie gets a new session and its
// cookie; with the cookie, the same session and the same cookie again; a
// cookie another secret signed, a new session.
func TestMiddleware(t *testing.T) {
	m := session.New(testKeys(t, "the session tests' secret, 32 bytes or more"), nil)
	srv := whoami(t, m)
	id, set := ask(t, srv)
	if id == "" || len(set) != 1 {
		t.Fatalf("first request: session %q, cookies %v", id, set)
	}
	if c := set[0]; c.Name != "mcpdoor_session" || c.Path != "/" || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Secure {
		t.Errorf("cookie %s Path=%q HttpOnly=%v SameSite=%v Secure=%v; want mcpdoor_session Path=/ HttpOnly SameSite=Lax, not Secure",
			c.Name, c.Path, c.HttpOnly, c.SameSite, c.Secure)
	}
	again, setAgain := ask(t, srv, set[0])
	if again != id || len(setAgain) != 1 || setAgain[0].Value != set[0].Value {
		t.Errorf("with the cookie: session %q, cookies %v; want %q and the same cookie", again, setAgain, id)
	}
	if other, _ := ask(t, srv); other == id {
		t.Errorf("two clients without cookies share session %q", id)
	}
	foreign := session.New(testKeys(t, "another secret of the session tests, 32 bytes"), nil)
	_, foreignSet := ask(t, whoami(t, foreign))
	if got, _ := ask(t, srv, foreignSet[0]); got == "" || got == id {
		t.Errorf("another secret's cookie: session %q, want a new one", got)
	}
}

// TestOptions: the cookie's name, Secure and the ids of new sessions.
func TestOptions(t *testing.T) {
	m := session.New(testKeys(t, "the session tests' secret, 32 bytes or more"), &session.Options{
		CookieName: "sid",
		Secure:     true,
		NewID:      func() string { return "id-1" },
	})
	id, set := ask(t, whoami(t, m))
	if id != "id-1" || len(set) != 1 || set[0].Name != "sid" || !set[0].Secure {
		t.Errorf("session %q, cookies %v; want id-1 in a Secure cookie named sid", id, set)
	}
}

// TestIDWithoutMiddleware: a request no session middleware ran for has
// no session id. (That a request whose context carries a session keeps it
// is internal/sessions' TestMiddlewareContextSession.)
func TestIDWithoutMiddleware(t *testing.T) {
	if id := session.ID(httptest.NewRequest(http.MethodGet, "/", nil)); id != "" {
		t.Errorf("ID without the middleware = %q", id)
	}
}

// TestNewZeroKeys: a Manager without keys is a setup mistake.
func TestNewZeroKeys(t *testing.T) {
	defer func() {
		if v := recover(); v != "mcpdoor: session.New with zero token.Keys" {
			t.Errorf("recovered %v, want the zero-Keys panic", v)
		}
	}()
	session.New(token.Keys{}, nil)
}
