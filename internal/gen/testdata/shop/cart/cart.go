// Package cart serves a shopper's cart.
package cart

import (
	"errors"
	"net/http"
	"sync"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/render"
)

// Item is a product in the cart.
type Item struct {
	SKU      string  `json:"sku"`
	Quantity int     `json:"quantity"`
	Price    float64 `json:"price"`
}

// Cart is a shopper's cart.
type Cart struct {
	Items []Item  `json:"items"`
	Total float64 `json:"total"`
}

// Render computes the cart's total.
func (c *Cart) Render(w http.ResponseWriter, r *http.Request) error {
	c.Total = 0
	for _, it := range c.Items {
		c.Total += it.Price * float64(it.Quantity)
	}
	return nil
}

// AddItem is a product to put in the cart.
type AddItem struct {
	SKU      string `json:"sku"`
	Quantity int    `json:"quantity"`
}

// Bind checks an AddItem.
func (a *AddItem) Bind(r *http.Request) error {
	if a.SKU == "" {
		return errors.New("a sku is required")
	}
	if a.Quantity <= 0 {
		a.Quantity = 1
	}
	return nil
}

// Checkout is the payment of a cart.
type Checkout struct {
	PaymentMethod string `json:"payment_method"`
	AddressID     int    `json:"address_id"`
	Gift          bool   `json:"gift,omitempty"`
}

// Bind checks a Checkout.
func (c *Checkout) Bind(r *http.Request) error {
	if c.PaymentMethod == "" {
		return errors.New("a payment method is required")
	}
	return nil
}

// Handler serves carts.
type Handler struct {
	mu   sync.Mutex
	cart Cart
}

type errAnswer struct {
	Error string `json:"error"`
}

func (e *errAnswer) Render(w http.ResponseWriter, r *http.Request) error {
	render.Status(r, http.StatusBadRequest)
	return nil
}

// Get answers the cart.
func (h *Handler) Get(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	c := h.cart
	render.Render(w, r, &c)
}

// Add puts a product in the cart.
func (h *Handler) Add(w http.ResponseWriter, r *http.Request) {
	var in AddItem
	if err := render.Bind(r, &in); err != nil {
		render.Render(w, r, &errAnswer{Error: err.Error()})
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.cart.Items = append(h.cart.Items, Item{SKU: in.SKU, Quantity: in.Quantity, Price: 10})
	c := h.cart
	render.Status(r, http.StatusCreated)
	render.Render(w, r, &c)
}

// Remove takes a product out of the cart.
func (h *Handler) Remove(w http.ResponseWriter, r *http.Request) {
	sku := chi.URLParam(r, "sku")
	h.mu.Lock()
	defer h.mu.Unlock()
	var kept []Item
	for _, it := range h.cart.Items {
		if it.SKU != sku {
			kept = append(kept, it)
		}
	}
	h.cart.Items = kept
	c := h.cart
	render.Render(w, r, &c)
}

// Checkout pays for the cart and empties it.
func (h *Handler) Checkout(w http.ResponseWriter, r *http.Request) {
	var in Checkout
	if err := render.Bind(r, &in); err != nil {
		render.Render(w, r, &errAnswer{Error: err.Error()})
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	total := 0.0
	for _, it := range h.cart.Items {
		total += it.Price * float64(it.Quantity)
	}
	h.cart = Cart{}
	render.JSON(w, r, map[string]any{"paid": total, "method": in.PaymentMethod})
}
