package sessions_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/gorilla/securecookie"

	"github.com/mcpdoor/mcpdoor/internal/keyring"
	"github.com/mcpdoor/mcpdoor/internal/sessions"
	"github.com/mcpdoor/mcpdoor/token"
)

const (
	secretOld = "the old session secret, 32 bytes or more"
	secretNew = "the new session secret, 32 bytes or more"
)

func keys(t testing.TB, secrets ...string) token.Keys {
	t.Helper()
	raw := make([][]byte, len(secrets))
	for i, s := range secrets {
		raw[i] = []byte(s)
	}
	k, err := token.NewKeys(raw...)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// visit sends one request with cookies through m's middleware and returns
// the session id the handler saw and the cookies the response set.
func visit(m *sessions.Manager, cookies ...*http.Cookie) (id string, set []*http.Cookie) {
	h := m.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id = sessions.ID(r)
	}))
	req := httptest.NewRequest(http.MethodPost, "/get_weather", strings.NewReader(`{}`))
	for _, c := range cookies {
		req.AddCookie(c)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return id, rec.Result().Cookies()
}

func TestMiddlewareNewSession(t *testing.T) {
	m := sessions.New(keys(t, secretOld), nil)
	id, set := visit(m)
	if id == "" {
		t.Fatal("the handler saw no session id")
	}
	if len(set) != 1 {
		t.Fatalf("%d cookies set, want 1: %v", len(set), set)
	}
	c := set[0]
	if c.Name != "mcpdoor_session" || c.Path != "/" || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Secure {
		t.Errorf("cookie %s Path=%q HttpOnly=%v SameSite=%v Secure=%v; want mcpdoor_session Path=/ HttpOnly SameSite=Lax, not Secure",
			c.Name, c.Path, c.HttpOnly, c.SameSite, c.Secure)
	}
	if got, err := m.Decode(c.Value); err != nil || got != id {
		t.Errorf("the cookie decodes to %q, %v; want the handler's id %q", got, err, id)
	}
	if other, _ := visit(m); other == id {
		t.Errorf("two clients without cookies got the same session %q", id)
	}
}

// TestMiddlewareKeepsSession: a request with the session cookie stays in its
// session, and its response sets the same cookie again, so that a client
// that keeps only the last response's cookies keeps its session.
func TestMiddlewareKeepsSession(t *testing.T) {
	m := sessions.New(keys(t, secretOld), nil)
	id, set := visit(m)
	for i := range 2 {
		again, setAgain := visit(m, set[0])
		if again != id {
			t.Errorf("request %d with the cookie: session %q, want %q", i+2, again, id)
		}
		if len(setAgain) != 1 || setAgain[0].String() != set[0].String() {
			t.Errorf("request %d with the cookie set cookies %v, want the same cookie again: %v", i+2, setAgain, set[0])
		}
	}
}

// TestMiddlewareContextSession: a request whose context already carries a
// session (an outer layer set it, or mcpdoor dispatched a tool call) keeps
// it, whatever cookie it carries, and the middleware sets no cookie: the
// layer that chose the session answers for it.
func TestMiddlewareContextSession(t *testing.T) {
	m := sessions.New(keys(t, secretOld), nil)
	other, _ := m.Cookie("from-the-cookie")
	for _, tc := range []struct {
		name    string
		cookies []*http.Cookie
	}{
		{"no cookie", nil},
		{"another session's cookie", []*http.Cookie{other}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var id string
			h := m.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				id = sessions.ID(r)
			}))
			req := httptest.NewRequest(http.MethodPost, "/t", nil)
			for _, c := range tc.cookies {
				req.AddCookie(c)
			}
			req = req.WithContext(sessions.NewContext(req.Context(), "from-the-context"))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if id != "from-the-context" {
				t.Errorf("the handler saw session %q, want from-the-context", id)
			}
			if h := rec.Header().Values("Set-Cookie"); len(h) != 0 {
				t.Errorf("Set-Cookie %q, want none", h)
			}
		})
	}
}

// TestGymClient: NeMo Gym's simple_agent sends each request with the
// cookies of the previous response, then replaces its cookies with that
// response's Set-Cookie. It stays in one session through a chi router with
// the middleware.
func TestGymClient(t *testing.T) {
	m := sessions.New(keys(t, secretOld), nil)
	r := chi.NewRouter()
	r.Use(m.Middleware)
	r.Post("/whoami", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, sessions.ID(r))
	})
	srv := httptest.NewServer(r)
	defer srv.Close()
	client := &http.Client{Timeout: 30 * time.Second}
	defer client.CloseIdleConnections()

	var cookies []*http.Cookie
	var ids []string
	for range 5 {
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/whoami", nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cookies {
			req.AddCookie(c)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, string(b))
		cookies = resp.Cookies() // resources_server_cookies = api_response.cookies
	}
	for i, id := range ids {
		if id == "" || id != ids[0] {
			t.Fatalf("sessions of the 5 calls: %q; call %d left the first one", ids, i+1)
		}
	}
}

// TestMiddlewareRefusesCookie: a cookie that is not one of m's valid session
// cookies starts a new session.
func TestMiddlewareRefusesCookie(t *testing.T) {
	m := sessions.New(keys(t, secretOld), nil)
	const id = "victim-session"
	good, err := m.Cookie(id)
	if err != nil {
		t.Fatal(err)
	}
	m.Store().Open(t.Context(), id, nil, 0, true)
	if got, _ := visit(m, good); got != id {
		t.Fatalf("the untampered cookie gives session %q, want %q", got, id)
	}
	otherSecret, _ := sessions.New(keys(t, secretNew), nil).Cookie(id)
	otherName, _ := sessions.New(keys(t, secretOld), &sessions.Options{CookieName: "other"}).Cookie(id)
	asToken, err := securecookie.EncodeMulti("mcpdoor_session", id, keyring.Codecs(keys(t, secretOld), "token", 0)...)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		cookie *http.Cookie
	}{
		{"tampered value", &http.Cookie{Name: good.Name, Value: tamper(good.Value)}},
		{"truncated value", &http.Cookie{Name: good.Name, Value: good.Value[:len(good.Value)-4]}},
		{"signed by another secret", otherSecret},
		{"signed for another cookie name", &http.Cookie{Name: "mcpdoor_session", Value: otherName.Value}},
		{"signed for another purpose", &http.Cookie{Name: "mcpdoor_session", Value: asToken}},
		{"a valid value under another name", &http.Cookie{Name: "mcpdoor_session2", Value: good.Value}},
		{"garbage", &http.Cookie{Name: "mcpdoor_session", Value: "garbage"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, set := visit(m, tc.cookie)
			if got == id || got == "" {
				t.Errorf("session %q, want a new one", got)
			}
			if len(set) != 1 || set[0].Name != "mcpdoor_session" {
				t.Fatalf("cookies set: %v, want a new mcpdoor_session", set)
			}
			if fromCookie, err := m.Decode(set[0].Value); fromCookie != got || err != nil {
				t.Errorf("the new cookie decodes to %q, %v; want %q", fromCookie, err, got)
			}
		})
	}
}

// tamper changes one character in the middle of a cookie value, keeping it
// base64.
func tamper(v string) string {
	b := []byte(v)
	i := len(b) / 2
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b)
}

func TestEnsure(t *testing.T) {
	m := sessions.New(keys(t, secretOld), nil)
	m.ServeDoor("/mcp", "/seed_session", true) // a rollout server's
	cookie, _ := m.Cookie("from-the-cookie")
	m.Store().Open(t.Context(), "from-the-cookie", nil, 0, true)

	t.Run("id in the context", func(t *testing.T) {
		req := httptest.NewRequest(http.MethodPost, "/t", nil)
		req.AddCookie(cookie)
		req = req.WithContext(sessions.NewContext(req.Context(), "from-the-context"))
		rec := httptest.NewRecorder()
		s, r, _ := m.Ensure(rec, req)
		if s.ID != "from-the-context" || sessions.ID(r) != "from-the-context" || sessions.SessionOf(r.Context()) != s {
			t.Errorf("Ensure = %q (request's id %q), want the context's id, and its session in the context", s.ID, sessions.ID(r))
		}
		if h := rec.Header().Values("Set-Cookie"); len(h) != 0 {
			t.Errorf("Set-Cookie %q, want none", h)
		}
	})
	t.Run("id in the cookie", func(t *testing.T) {
		req := httptest.NewRequest(http.MethodPost, "/t", nil)
		req.AddCookie(cookie)
		rec := httptest.NewRecorder()
		s, r, _ := m.Ensure(rec, req)
		if s.ID != "from-the-cookie" || sessions.ID(r) != "from-the-cookie" {
			t.Errorf("Ensure = %q (request's id %q), want the cookie's", s.ID, sessions.ID(r))
		}
		if h := rec.Header().Values("Set-Cookie"); len(h) != 1 || h[0] != cookie.String() {
			t.Errorf("Set-Cookie %q, want the same cookie again: %q", h, cookie.String())
		}
	})
	t.Run("no id", func(t *testing.T) {
		rec := httptest.NewRecorder()
		s, r, _ := m.Ensure(rec, httptest.NewRequest(http.MethodPost, "/t", nil))
		set := rec.Result().Cookies()
		if s == nil || sessions.ID(r) != s.ID || len(set) != 1 {
			t.Fatalf("Ensure = %v (request's id %q), cookies %v; want a new id, in the request and a cookie", s, sessions.ID(r), set)
		}
		if got, err := m.Decode(set[0].Value); got != s.ID || err != nil {
			t.Errorf("the cookie decodes to %q, %v; want %q", got, err, s.ID)
		}
		if _, held, err := m.Store().Open(t.Context(), s.ID, nil, 0, false); held || err != nil {
			t.Errorf("the new session is in the store before anything is saved in it: held %v, %v", held, err)
		}
	})
	// A valid cookie a seed set, of a session the store does not hold
	// (another replica's, or from before a restart), is misrouted; a seed,
	// which starts afresh, gets a new session in its place. The cookie of
	// a session no seed made names an empty session.
	other, _ := m.RolloutCookie("another-replicas")
	t.Run("a rollout's session the store does not hold", func(t *testing.T) {
		req := httptest.NewRequest(http.MethodPost, "/t", nil)
		req.AddCookie(other)
		rec := httptest.NewRecorder()
		s, _, err := m.Ensure(rec, req)
		var mis *sessions.Misrouted
		if !errors.As(err, &mis) || mis.SID != "another-replicas" || s != nil || len(rec.Header().Values("Set-Cookie")) != 0 {
			t.Errorf("Ensure = %v, %v, Set-Cookie %q; want a *Misrouted and no cookie", s, err, rec.Header().Values("Set-Cookie"))
		}
		const want = "mcpdoor: session another-replicas is not held by this replica (misrouted, or its state was lost): " +
			"route every request of a session to the replica that seeded it, or give every replica the same session store"
		if err == nil || err.Error() != want {
			t.Errorf("error %v, want %q", err, want)
		}
		rec = httptest.NewRecorder()
		m.Middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { t.Error("the handler ran") })).ServeHTTP(rec, req)
		if rec.Code != http.StatusMisdirectedRequest || rec.Body.String() != want+"\n" {
			t.Errorf("the middleware answered %d %q, want 421 and the text", rec.Code, rec.Body.String())
		}
	})
	t.Run("a seed of a rollout's session the store does not hold", func(t *testing.T) {
		req := httptest.NewRequest(http.MethodPost, "/t", nil)
		req.AddCookie(other)
		req = req.WithContext(sessions.WithFreshStart(req.Context()))
		s, _, err := m.Ensure(httptest.NewRecorder(), req)
		if err != nil || s == nil || s.ID == "another-replicas" {
			t.Errorf("Ensure = %v, %v; want a new session", s, err)
		}
	})
	t.Run("a session no seed made, which the store does not hold", func(t *testing.T) {
		lazy, _ := m.Cookie("never-saved")
		req := httptest.NewRequest(http.MethodPost, "/t", nil)
		req.AddCookie(lazy)
		s, _, err := m.Ensure(httptest.NewRecorder(), req)
		if err != nil || s == nil || s.ID != "never-saved" {
			t.Errorf("Ensure = %v, %v; want the cookie's session, empty", s, err)
		}
	})
	t.Run("a rollout's session the store does not hold, on a plain server", func(t *testing.T) {
		plain := sessions.New(keys(t, secretOld), nil)
		req := httptest.NewRequest(http.MethodPost, "/t", nil)
		req.AddCookie(other)
		rec := httptest.NewRecorder()
		s, _, err := plain.Ensure(rec, req)
		if err != nil || s == nil || s.ID == "another-replicas" || len(rec.Result().Cookies()) != 1 {
			t.Errorf("Ensure = %v, %v, cookies %v; want a new session and its cookie", s, err, rec.Result().Cookies())
		}
	})
}

// TestKeyRotation: with keys {new, old}, cookies signed by old still verify
// and new cookies are signed by new.
func TestKeyRotation(t *testing.T) {
	old := sessions.New(keys(t, secretOld), nil)
	rotated := sessions.New(keys(t, secretNew, secretOld), nil)
	newOnly := sessions.New(keys(t, secretNew), nil)

	oldCookie, _ := old.Cookie("s-old")
	rotated.Store().Open(t.Context(), "s-old", nil, 0, true)
	if id, _ := visit(rotated, oldCookie); id != "s-old" {
		t.Errorf("a cookie signed by the old key gives session %q after rotation, want s-old", id)
	}
	if _, err := newOnly.Decode(oldCookie.Value); err == nil {
		t.Error("a manager without the old key accepted its cookie")
	}

	id, set := visit(rotated)
	if len(set) != 1 {
		t.Fatalf("cookies set: %v", set)
	}
	if got, err := newOnly.Decode(set[0].Value); got != id || err != nil {
		t.Errorf("the new key's manager decodes the new cookie to %q, %v; want %q", got, err, id)
	}
	if _, err := old.Decode(set[0].Value); err == nil {
		t.Error("the new cookie was signed with the old key")
	}
}

func TestDecodeRefuses(t *testing.T) {
	m := sessions.New(keys(t, secretOld), nil)
	emptyID, err := securecookie.EncodeMulti(m.CookieName(), "", keyring.Codecs(keys(t, secretOld), "session", 0)...)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, value string }{
		{"empty", ""},
		{"garbage", "garbage"},
		{"not base64", "%%%%!!!"},
		{"separators only", "fHx8"}, // base64 of "|||"
		{"just over the 64 KiB cap", strings.Repeat("A", 64<<10+1)},
		{"huge", strings.Repeat("A", 1<<20)},
		{"a signed empty id", "x." + emptyID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, err := m.Decode(tc.value)
			if err == nil || id != "" {
				t.Fatalf("Decode = %q, %v; want an error", id, err)
			}
			if !strings.HasPrefix(err.Error(), "mcpdoor: session cookie: ") {
				t.Errorf("error %q does not say it is about the session cookie", err)
			}
		})
	}
}

func TestReadNoCookie(t *testing.T) {
	m := sessions.New(keys(t, secretOld), nil)
	id, err := m.Read(httptest.NewRequest(http.MethodPost, "/t", nil))
	if !errors.Is(err, sessions.ErrNoCookie) || id != "" {
		t.Errorf("Read = %q, %v; want ErrNoCookie", id, err)
	}
}

func TestOptions(t *testing.T) {
	n := 0
	m := sessions.New(keys(t, secretOld), &sessions.Options{
		CookieName: "sid",
		Secure:     true,
		NewID:      func() string { n++; return "id-" + strconv.Itoa(n) },
	})
	if m.CookieName() != "sid" {
		t.Errorf("CookieName() = %q, want sid", m.CookieName())
	}
	id, set := visit(m)
	if id != "id-1" || len(set) != 1 || set[0].Name != "sid" || !set[0].Secure {
		t.Fatalf("session %q, cookies %v; want id-1 in a Secure cookie named sid", id, set)
	}
	if again, _ := visit(m, set[0]); again != "id-1" {
		t.Errorf("with the sid cookie: session %q, want id-1", again)
	}
	// The default name means nothing to this manager.
	def, _ := sessions.New(keys(t, secretOld), nil).Cookie("id-1")
	if again, _ := visit(m, def); again != "id-2" {
		t.Errorf("with a mcpdoor_session cookie: session %q, want the new id-2", again)
	}
}

func TestNewZeroKeysPanics(t *testing.T) {
	defer func() {
		if v := recover(); v != "mcpdoor: session.New with zero token.Keys" {
			t.Errorf("recovered %v, want the zero-Keys panic", v)
		}
	}()
	sessions.New(token.Keys{}, nil)
}

func TestKeys(t *testing.T) {
	k := keys(t, secretOld)
	m := sessions.New(k, nil)
	// Keys returns the ring the manager signs with: codecs from it verify
	// the manager's cookies.
	c, _ := m.Cookie("s1")
	var id string
	if err := securecookie.DecodeMulti(m.CookieName(), strings.TrimPrefix(c.Value, "s1."), &id, keyring.Codecs(m.Keys(), "session", 0)...); err != nil || id != "s1" {
		t.Errorf("decoding with Keys(): %q, %v", id, err)
	}
}

func TestContext(t *testing.T) {
	req := httptest.NewRequest(http.MethodPost, "/t", nil)
	if id := sessions.ID(req); id != "" {
		t.Errorf("ID without a session = %q, want \"\"", id)
	}
	if _, ok := sessions.FromContext(sessions.NewContext(req.Context(), "")); ok {
		t.Error("FromContext reports an empty id")
	}
	if id, ok := sessions.FromContext(sessions.NewContext(req.Context(), "s1")); !ok || id != "s1" {
		t.Errorf("FromContext = %q, %v; want s1, true", id, ok)
	}
}

func TestDropCookie(t *testing.T) {
	m := sessions.New(keys(t, secretNew), nil)
	for _, tc := range []struct {
		name string
		in   []string
		want []string
	}{
		{"none", nil, nil},
		{"only the session's", []string{"mcpdoor_session=v; Path=/"}, nil},
		{"others kept, in order", []string{"a=1", "mcpdoor_session=v; Path=/", "b=2"}, []string{"a=1", "b=2"}},
		{"a prefix is another name", []string{"mcpdoor_session2=v"}, []string{"mcpdoor_session2=v"}},
		{"unparsable kept", []string{"garbage"}, []string{"garbage"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			for _, v := range tc.in {
				h.Add("Set-Cookie", v)
			}
			m.DropCookie(h)
			if diff := cmp.Diff(tc.want, h.Values("Set-Cookie"), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Set-Cookie (-want +got):\n%s", diff)
			}
			if _, ok := h["Set-Cookie"]; ok && len(tc.want) == 0 {
				t.Error("an empty Set-Cookie entry is left")
			}
		})
	}
}
