// Package items serves the catalog's items, through wrapped handlers.
package items

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"sync"

	"github.com/go-chi/chi/v5"

	"example.com/untuned/model"
	"example.com/untuned/wrap"
)

// API serves the items.
type API struct {
	mu    sync.Mutex
	items []model.Item
	log   *slog.Logger
}

// NewAPI returns an API with an empty catalog.
func NewAPI(log *slog.Logger) *API { return &API{log: log} }

// Routes registers the item routes on r.
func (a *API) Routes(r chi.Router) {
	r.Get("/", wrap.NewHandler(a.List, a.log).ServeHTTP)
	r.Post("/", wrap.NewHandler(a.Create, a.log).ServeHTTP)
	r.Get("/{id}", wrap.E(a.Get))
	r.Delete("/{id}", wrap.E(a.Delete))
}

// List answers the items, cheapest first when asked with order=price.
func (a *API) List(w http.ResponseWriter, r *http.Request) {
	byPrice := r.URL.Query().Get("order") == "price"
	a.mu.Lock()
	page := model.Page[model.Item]{Items: append([]model.Item{}, a.items...)}
	a.mu.Unlock()
	if byPrice {
		for i := range page.Items {
			for j := i + 1; j < len(page.Items); j++ {
				if page.Items[j].Price < page.Items[i].Price {
					page.Items[i], page.Items[j] = page.Items[j], page.Items[i]
				}
			}
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(page)
}

type newItem struct {
	Title string   `json:"title"`
	Price float64  `json:"price"`
	Tags  []string `json:"tags"`
}

// Create adds an item to the catalog.
func (a *API) Create(w http.ResponseWriter, r *http.Request) {
	var in newItem
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, "invalid item: "+err.Error(), http.StatusBadRequest)
		return
	}
	a.mu.Lock()
	it := model.Item{ID: len(a.items) + 1, Title: in.Title, Price: in.Price, Tags: in.Tags}
	a.items = append(a.items, it)
	a.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	json.NewEncoder(w).Encode(it)
}

var errNotFound = &wrap.StatusError{Status: http.StatusNotFound, Err: errors.New("no such item")}

// Get answers one item.
func (a *API) Get(w http.ResponseWriter, r *http.Request) error {
	it, err := a.find(chi.URLParam(r, "id"))
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	return json.NewEncoder(w).Encode(it)
}

// Delete removes an item from the catalog.
func (a *API) Delete(w http.ResponseWriter, r *http.Request) error {
	it, err := a.find(chi.URLParam(r, "id"))
	if err != nil {
		return err
	}
	a.mu.Lock()
	a.items[it.ID-1].Title = ""
	a.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (a *API) find(id string) (model.Item, error) {
	i, err := strconv.Atoi(id)
	a.mu.Lock()
	defer a.mu.Unlock()
	if err != nil || i < 1 || i > len(a.items) || a.items[i-1].Title == "" {
		return model.Item{}, errNotFound
	}
	return a.items[i-1], nil
}
