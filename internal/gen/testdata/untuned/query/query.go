// Package query reads typed query parameters, and the list filter every
// report takes.
package query

import (
	"net/http"
	"net/url"
	"strconv"
)

// Values reads typed values from a query.
type Values struct{ url.Values }

// From returns the request's query.
func From(r *http.Request) Values { return Values{r.URL.Query()} }

// Int returns the integer key holds, or def.
func (v Values) Int(key string, def int) int {
	s := v.Get(key)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return def
	}
	return n
}

// Bool reports whether key holds true.
func (v Values) Bool(key string) bool {
	b, _ := strconv.ParseBool(v.Get(key))
	return b
}

// String returns the text key holds, or def.
func (v Values) String(key, def string) string {
	if s := v.Get(key); s != "" {
		return s
	}
	return def
}

// Filter is which rows a report covers.
type Filter struct {
	Status   string
	From, To string
	Limit    int
	Offset   int
	Desc     bool
}

// ParseFilter reads a report's filter from the request's query.
func ParseFilter(r *http.Request) Filter {
	q := From(r)
	return Filter{
		Status: q.String("status", "any"),
		From:   q.String("from", ""),
		To:     q.String("to", ""),
		Limit:  q.Int("limit", 50),
		Offset: q.Int("offset", 0),
		Desc:   q.Bool("desc"),
	}
}
