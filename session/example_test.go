package session_test

import (
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/session"
	"github.com/mcpdoor/mcpdoor/token"
)

func ExampleManager_Middleware() {
	keys, err := token.NewKeys([]byte("an example secret, at least 32 bytes long"))
	if err != nil {
		log.Fatal(err)
	}
	sessions := session.New(keys, nil)

	r := chi.NewRouter()
	r.Use(sessions.Middleware)
	r.Post("/whoami", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, session.ID(r))
	})

	// A client's first request starts a session and sets its cookie.
	first := httptest.NewRecorder()
	r.ServeHTTP(first, httptest.NewRequest(http.MethodPost, "/whoami", nil))
	cookie := first.Result().Cookies()[0]
	fmt.Println("cookie:", cookie.Name)

	// Its next request carries the cookie: same session, and the same cookie
	// again, so a client that keeps only the last response's cookies stays.
	req := httptest.NewRequest(http.MethodPost, "/whoami", nil)
	req.AddCookie(cookie)
	second := httptest.NewRecorder()
	r.ServeHTTP(second, req)
	fmt.Println("same session:", second.Body.String() == first.Body.String())
	again := second.Result().Cookies()
	fmt.Println("same cookie again:", len(again) == 1 && again[0].Value == cookie.Value)

	// Another client gets another session.
	other := httptest.NewRecorder()
	r.ServeHTTP(other, httptest.NewRequest(http.MethodPost, "/whoami", nil))
	fmt.Println("other client, same session:", other.Body.String() == first.Body.String())
	// Output:
	// cookie: mcpdoor_session
	// same session: true
	// same cookie again: true
	// other client, same session: false
}
