// Package orders serves the shop's orders, reading bodies with
// io.ReadAll and json.Unmarshal.
package orders

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"

	"example.com/shop/httpx"
)

// Address is where an order goes.
type Address struct {
	Name    string `json:"name"`
	Street  string `json:"street"`
	City    string `json:"city"`
	Zip     string `json:"zip"`
	Country string `json:"country"`
}

// Line is one product of an order.
type Line struct {
	SKU      string `json:"sku"`
	Quantity int    `json:"quantity"`
}

// Order is an order as answered.
type Order struct {
	ID       int       `json:"id"`
	Status   string    `json:"status"`
	Lines    []Line    `json:"lines"`
	Shipping Address   `json:"shipping"`
	Total    float64   `json:"total"`
	PlacedAt time.Time `json:"placed_at"`
	Reason   string    `json:"reason,omitempty"`
}

// Service serves the orders.
type Service struct {
	mu     sync.Mutex
	orders []*Order
}

func readJSON(r *http.Request, v any) error {
	b, err := io.ReadAll(io.LimitReader(r.Body, httpx.MaxBody))
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

func (s *Service) order(r *http.Request) *Order {
	id, _ := strconv.Atoi(chi.URLParam(r, "orderID"))
	for _, o := range s.orders {
		if o.ID == id {
			return o
		}
	}
	return nil
}

// PlaceOrder is a new order.
type PlaceOrder struct {
	Lines    []Line  `json:"lines"`
	Shipping Address `json:"shipping"`
	Coupon   string  `json:"coupon,omitempty"`
	Note     string  `json:"note,omitempty"`
}

// Place places an order: lines and a shipping city are required.
func (s *Service) Place(w http.ResponseWriter, r *http.Request) {
	var in PlaceOrder
	if err := readJSON(r, &in); err != nil {
		httpx.BadRequest(w, err)
		return
	}
	if len(in.Lines) == 0 || in.Shipping.City == "" {
		httpx.Fail(w, http.StatusUnprocessableEntity, "invalid", "an order needs lines and a shipping city")
		return
	}
	s.mu.Lock()
	o := &Order{ID: len(s.orders) + 1, Status: "placed", Lines: in.Lines, Shipping: in.Shipping, PlacedAt: time.Unix(0, 0).UTC()}
	s.orders = append(s.orders, o)
	s.mu.Unlock()
	httpx.JSON(w, http.StatusCreated, o)
}

// List answers the orders: status keeps one status's, since (RFC 3339)
// the newer ones, limit caps the count.
func (s *Service) List(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	status := q.Get("status")
	var since time.Time
	if v := q.Get("since"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			httpx.BadRequest(w, err)
			return
		}
		since = t
	}
	limit, err := strconv.Atoi(q.Get("limit"))
	if err != nil {
		limit = 100
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []*Order{}
	for _, o := range s.orders {
		if (status == "" || o.Status == status) && !o.PlacedAt.Before(since) && len(out) < limit {
			out = append(out, o)
		}
	}
	httpx.JSON(w, http.StatusOK, out)
}

// Get answers one order.
func (s *Service) Get(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.order(r)
	if o == nil {
		httpx.NotFound(w)
		return
	}
	httpx.JSON(w, http.StatusOK, o)
}

// Cancel cancels an order, for a reason.
func (s *Service) Cancel(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Reason string `json:"reason"`
	}
	if err := readJSON(r, &in); err != nil {
		httpx.BadRequest(w, err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.order(r)
	if o == nil {
		httpx.NotFound(w)
		return
	}
	o.Status, o.Reason = "cancelled", in.Reason
	httpx.JSON(w, http.StatusOK, o)
}

// Refund is a refund of part of an order.
type Refund struct {
	Amount float64 `json:"amount"`
	Reason string  `json:"reason"`
	Notify bool    `json:"notify"`
}

// RefundOrder refunds an amount of an order.
func (s *Service) RefundOrder(w http.ResponseWriter, r *http.Request) {
	var in Refund
	if err := readJSON(r, &in); err != nil {
		httpx.BadRequest(w, err)
		return
	}
	if in.Amount <= 0 {
		httpx.Fail(w, http.StatusBadRequest, "invalid", "the amount must be positive")
		return
	}
	httpx.JSON(w, http.StatusOK, map[string]any{"refunded": in.Amount, "order": chi.URLParam(r, "orderID")})
}

// Invoice answers an order's invoice as plain text.
func (s *Service) Invoice(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.order(r)
	if o == nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/plain")
	fmt.Fprintf(w, "Order %d: %d lines\n", o.ID, len(o.Lines))
}

// Pay pays an order with a method and its token.
func (s *Service) Pay(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Method string `json:"method"`
		Token  string `json:"token"`
	}
	if err := readJSON(r, &in); err != nil {
		httpx.BadRequest(w, err)
		return
	}
	if in.Method == "" {
		httpx.Fail(w, http.StatusBadRequest, "invalid", "a method is required")
		return
	}
	type receipt struct {
		Order  string `json:"order"`
		Method string `json:"method"`
		Paid   bool   `json:"paid"`
	}
	httpx.JSON(w, http.StatusOK, receipt{Order: chi.URLParam(r, "orderID"), Method: in.Method, Paid: true})
}
