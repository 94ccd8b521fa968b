// Package reports serves the shop's reports, each filtered by the query.
package reports

import (
	"encoding/json"
	"net/http"

	"example.com/untuned/model"
	"example.com/untuned/query"
)

type row struct {
	Day    string  `json:"day"`
	Orders int     `json:"orders"`
	Amount float64 `json:"amount"`
}

type sales struct {
	Rows   []row        `json:"rows"`
	Filter query.Filter `json:"filter"`
}

// Sales answers the sales of each day the filter covers.
func Sales(w http.ResponseWriter, r *http.Request) {
	f := query.ParseFilter(r)
	out := sales{Filter: f, Rows: []row{}}
	for i := 0; i < min(f.Limit, 3); i++ {
		out.Rows = append(out.Rows, row{Day: "2026-01-0" + string(rune('1'+i)), Orders: i, Amount: float64(i) * 9.5})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}

// Summary answers the figures of the orders the filter covers, with what
// their source adds.
func Summary(w http.ResponseWriter, r *http.Request) {
	f := query.ParseFilter(r)
	cur := query.From(r).String("currency", "EUR")
	s := model.Summary{Orders: f.Limit, ByCity: map[string]int{"Lyon": 2}, Meta: map[string]any{"currency": cur, "source": "ledger"}}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(s)
}

type topItem struct {
	SKU  string `json:"sku"`
	Sold int    `json:"sold"`
}

type top struct {
	Items []topItem `json:"items"`
}

// Top answers the best sellers, the n of them.
func Top(w http.ResponseWriter, r *http.Request) {
	q := query.From(r)
	n := q.Int("n", 10)
	out := top{Items: []topItem{{SKU: "mug", Sold: n}}}
	if q.Bool("with_returns") {
		out.Items[0].Sold--
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}
