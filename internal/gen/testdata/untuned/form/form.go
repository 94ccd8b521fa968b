// Package form holds the forms the app's validator checks.
package form

import (
	"errors"

	"example.com/untuned/model"
)

// OrderForm is a new order.
type OrderForm struct {
	Customer string        `json:"customer"`
	Lines    []model.Line  `json:"lines"`
	Address  model.Address `json:"address"`
	Note     string        `json:"note,omitempty"`
}

// Validate refuses an order without a customer or lines.
func (f *OrderForm) Validate() error {
	if f.Customer == "" {
		return errors.New("customer is required")
	}
	if len(f.Lines) == 0 {
		return errors.New("an order needs lines")
	}
	return nil
}

// LinesForm adds lines to an order.
type LinesForm struct {
	Lines []model.Line `json:"lines"`
}

// Validate refuses no lines.
func (f *LinesForm) Validate() error {
	if len(f.Lines) == 0 {
		return errors.New("no lines")
	}
	return nil
}

// OrderPatch changes an order.
type OrderPatch struct {
	Note     string `json:"note"`
	Priority int    `json:"priority"`
}
