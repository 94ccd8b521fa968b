// Package stock serves stock levels, reading and writing JSON with
// encoding/json/v2 (GOEXPERIMENT=jsonv2).
package stock

import (
	"encoding/json/v2"
	"io"
	"net/http"
	"sync"

	"github.com/go-chi/chi/v5"

	"example.com/untuned/model"
)

// Store holds the stock levels by SKU.
type Store struct {
	mu     sync.Mutex
	levels map[string]*model.Level
}

// NewStore returns a store with a few items in stock.
func NewStore() *Store {
	return &Store{levels: map[string]*model.Level{"mug": {SKU: "mug", OnHand: 12}, "cap": {SKU: "cap", OnHand: 3}}}
}

type levels struct {
	Levels []model.Level `json:"levels"`
	Low    []string      `json:"low,omitempty"`
}

// List answers every stock level, and the SKUs running low.
func (s *Store) List(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out levels
	for _, sku := range []string{"cap", "mug"} {
		if l, ok := s.levels[sku]; ok {
			out.Levels = append(out.Levels, *l)
			if l.OnHand < 5 {
				out.Low = append(out.Low, sku)
			}
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.MarshalWrite(w, out)
}

type restock struct {
	Quantity int    `json:"quantity"`
	Supplier string `json:"supplier"`
}

// Restock adds to an item's stock.
func (s *Store) Restock(w http.ResponseWriter, r *http.Request) {
	var in restock
	if err := json.UnmarshalRead(r.Body, &in); err != nil {
		http.Error(w, "invalid restock: "+err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.levels[chi.URLParam(r, "sku")]
	if !ok {
		http.Error(w, "no such item", http.StatusNotFound)
		return
	}
	l.OnHand += in.Quantity
	w.Header().Set("Content-Type", "application/json")
	json.MarshalWrite(w, l)
}

type reservation struct {
	SKU      string `json:"sku"`
	Quantity int    `json:"quantity"`
	Order    string `json:"order"`
}

// Reserve holds stock for an order.
func (s *Store) Reserve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "unreadable body", http.StatusBadRequest)
		return
	}
	var in reservation
	if err := json.Unmarshal(body, &in); err != nil {
		http.Error(w, "invalid reservation: "+err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.levels[in.SKU]
	if !ok || l.OnHand-l.Reserved < in.Quantity {
		http.Error(w, "not enough stock", http.StatusConflict)
		return
	}
	l.Reserved += in.Quantity
	b, err := json.Marshal(l)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}
