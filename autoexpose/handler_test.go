package autoexpose

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpdoor/mcpdoor/internal/harvest"
)

type bookIn struct {
	Title  string   `json:"title" jsonschema:"the title"`
	Year   int      `json:"year,omitempty" jsonschema:"the year it appeared"`
	Tags   []string `json:"tags,omitempty"`
	Author struct {
		Name string `json:"name"`
	} `json:"author"`
}

type bookOut struct {
	ID string `json:"id"`
}

// TestHandlerHTTP: the typed adapter is an ordinary handler on the HTTP door.
func TestHandlerHTTP(t *testing.T) {
	h := Handler(func(_ context.Context, r *http.Request, in bookIn) (bookOut, error) {
		switch in.Title {
		case "missing":
			return bookOut{}, Error(http.StatusNotFound, "no such book")
		case "broken":
			return bookOut{}, errors.New("disk on fire")
		}
		return bookOut{ID: in.Title + "-" + in.Author.Name}, nil
	})
	cases := []struct {
		name, body string
		status     int
		want       string
	}{
		{"ok", `{"title":"Dune","author":{"name":"Herbert"}}`, 200, `{"id":"Dune-Herbert"}`},
		{"not JSON", `{"title":`, 400, `{"error":"request body is not valid JSON"}`},
		{"empty body", ``, 400, `{"error":"request body is not valid JSON"}`},
		{"missing field", `{"author":{"name":"x"}}`, 422, `{"error":"invalid arguments","fields":["title"],"detail":"missing required field title"}`},
		{"missing nested field", `{"title":"x","author":{}}`, 422, `{"error":"invalid arguments","fields":["author.name"],"detail":"missing required field author.name"}`},
		{"wrong type", `{"title":7,"author":{"name":"x"}}`, 422, `{"error":"invalid arguments","fields":["title"],"detail":"title: want string, got integer"}`},
		{"wrong item type", `{"title":"x","tags":[1],"author":{"name":"x"}}`, 422, `{"error":"invalid arguments","fields":["tags[]"],"detail":"tags[]: want string, got integer"}`},
		{"unknown field", `{"title":"x","isbn":"1","author":{"name":"x"}}`, 422, `{"error":"invalid arguments","fields":["isbn"],"detail":"unknown field isbn"}`},
		{"not an object", `"Dune"`, 422, `{"error":"invalid arguments","fields":[],"detail":"arguments: want object, got string"}`},
		{"HTTPError", `{"title":"missing","author":{"name":"x"}}`, 404, `{"error":"no such book"}`},
		{"unexpected error", `{"title":"broken","author":{"name":"x"}}`, 500, `{"error":"internal server error"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest("POST", "/books", strings.NewReader(c.body)))
			if w.Code != c.status || w.Body.String() != c.want || w.Header().Get("Content-Type") != "application/json" {
				t.Errorf("got %d %s %q, want %d %s", w.Code, w.Header().Get("Content-Type"), w.Body, c.status, c.want)
			}
		})
	}
	t.Run("body over 4 MiB", func(t *testing.T) {
		w := httptest.NewRecorder()
		big := `{"title":"` + strings.Repeat("x", 4<<20) + `"}`
		h.ServeHTTP(w, httptest.NewRequest("POST", "/books", strings.NewReader(big)))
		if w.Code != 413 || w.Body.String() != `{"error":"request body exceeds 4194304 bytes"}` {
			t.Errorf("got %d %s", w.Code, w.Body)
		}
	})
}

func TestHandlerSchemas(t *testing.T) {
	h := Handler(getWeather, Describe("Weather in a city."))
	info := h.(harvest.Typed).TypedInfo()
	if info.Description != "Weather in a city." || info.Input.Properties["city"].Description != "the city" || info.Output == nil {
		t.Errorf("info %+v", info)
	}
	// A non-object output advertises no output schema.
	h2 := Handler(func(context.Context, *http.Request, weatherIn) ([]string, error) { return nil, nil })
	if h2.(harvest.Typed).TypedInfo().Output != nil {
		t.Error("array output advertised an output schema")
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), `input type string has schema type "string"`) {
			t.Errorf("recovered %v", r)
		}
	}()
	Handler(func(context.Context, *http.Request, string) (string, error) { return "", nil })
}
