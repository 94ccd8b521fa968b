// Package orders serves orders, whose bodies the validating middleware
// decodes before the handlers run.
package orders

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"github.com/go-chi/chi/v5"

	"example.com/untuned/form"
	"example.com/untuned/middleware"
	"example.com/untuned/model"
)

// Service keeps the orders.
type Service struct {
	mu     sync.Mutex
	orders map[string]*model.Order
}

// NewService returns a service without orders.
func NewService() *Service { return &Service{orders: map[string]*model.Order{}} }

// Routes registers the order routes.
func (s *Service) Routes(r chi.Router) {
	r.With(middleware.Validate[form.OrderForm]).Post("/", s.Create)
	r.Get("/{id}", s.Get)
	r.With(middleware.Validate[form.LinesForm]).Post("/{id}/lines", s.AddLines)
	r.Patch("/{id}", s.Update)
	r.With(s.addressCtx).Put("/{id}/address", s.SetAddress)
}

// Create places an order.
func (s *Service) Create(w http.ResponseWriter, r *http.Request) {
	in := middleware.Body[form.OrderForm](r)
	s.mu.Lock()
	o := &model.Order{ID: fmt.Sprintf("o%d", len(s.orders)+1), Customer: in.Customer, Lines: in.Lines, Address: in.Address, Note: in.Note}
	s.orders[o.ID] = o
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	json.NewEncoder(w).Encode(o)
}

// Get answers an order.
func (s *Service) Get(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	o, ok := s.orders[chi.URLParam(r, "id")]
	s.mu.Unlock()
	if !ok {
		http.Error(w, "no such order", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(o)
}

// AddLines adds lines to an order.
func (s *Service) AddLines(w http.ResponseWriter, r *http.Request) {
	in := middleware.Body[form.LinesForm](r)
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.orders[chi.URLParam(r, "id")]
	if !ok {
		http.Error(w, "no such order", http.StatusNotFound)
		return
	}
	o.Lines = append(o.Lines, in.Lines...)
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(o)
}

// Update changes an order's note and priority. Staff may clear the note;
// anyone else must give one.
func (s *Service) Update(w http.ResponseWriter, r *http.Request) {
	var in form.OrderPatch
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, "invalid patch: "+err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.orders[chi.URLParam(r, "id")]
	if !ok {
		http.Error(w, "no such order", http.StatusNotFound)
		return
	}
	if middleware.IsStaff(r) {
		o.Note, o.Priority = in.Note, in.Priority
		json.NewEncoder(w).Encode(o)
		return
	}
	if in.Note == "" {
		http.Error(w, "note is required", http.StatusBadRequest)
		return
	}
	o.Note, o.Priority = in.Note, in.Priority
	json.NewEncoder(w).Encode(o)
}

type addressKey struct{}

// addressCtx decodes the new address from the request's body.
func (s *Service) addressCtx(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var a model.Address
		if err := json.NewDecoder(r.Body).Decode(&a); err != nil {
			http.Error(w, "invalid address: "+err.Error(), http.StatusBadRequest)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), addressKey{}, a)))
	})
}

// SetAddress sets where an order goes.
func (s *Service) SetAddress(w http.ResponseWriter, r *http.Request) {
	a := r.Context().Value(addressKey{}).(model.Address)
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.orders[chi.URLParam(r, "id")]
	if !ok {
		http.Error(w, "no such order", http.StatusNotFound)
		return
	}
	o.Address = a
	json.NewEncoder(w).Encode(o)
}
