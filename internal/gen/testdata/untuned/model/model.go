// Package model holds the app's types: what its handlers read and answer.
package model

import "time"

// An Item is a thing the shop sells.
type Item struct {
	ID    int      `json:"id"`
	Title string   `json:"title"`
	Price float64  `json:"price"`
	Tags  []string `json:"tags,omitempty"`
}

// A Page is one page of a list.
type Page[T any] struct {
	Items []T  `json:"items"`
	Next  int  `json:"next,omitempty"`
	More  bool `json:"more"`
}

// A Note is a note kept for the team.
type Note struct {
	ID      int       `json:"id"`
	Text    string    `json:"text"`
	Pinned  bool      `json:"pinned"`
	Created time.Time `json:"created"`
}

// NoteInput is what a new note is made of.
type NoteInput struct {
	Text   string `json:"text"`
	Pinned bool   `json:"pinned"`
}

// A Comment is a reader's comment on a post.
type Comment struct {
	ID     int    `json:"id"`
	PostID string `json:"post_id"`
	Author string `json:"author"`
	Text   string `json:"text"`
	Likes  int    `json:"likes"`
}

// A Level is an item's stock level.
type Level struct {
	SKU      string `json:"sku"`
	OnHand   int    `json:"on_hand"`
	Reserved int    `json:"reserved"`
}

// An Order is a customer's order.
type Order struct {
	ID       string  `json:"id"`
	Customer string  `json:"customer"`
	Lines    []Line  `json:"lines"`
	Total    float64 `json:"total"`
	Note     string  `json:"note,omitempty"`
	Priority int     `json:"priority"`
	Address  Address `json:"address"`
}

// A Line is one product of an order.
type Line struct {
	SKU      string `json:"sku"`
	Quantity int    `json:"quantity"`
}

// An Address is where an order goes.
type Address struct {
	Street  string `json:"street"`
	City    string `json:"city"`
	Country string `json:"country"`
}

// A Pet is an animal of the shelter.
type Pet struct {
	ID      int    `json:"id"`
	Name    string `json:"name"`
	Species string `json:"species"`
	Age     int    `json:"age"`
}

// NewPet is what a new pet's record is made of.
type NewPet struct {
	Name    string `json:"name"`
	Species string `json:"species"`
	Age     int    `json:"age"`
}

// PetPage is a page of pets.
type PetPage struct {
	Pets  []Pet `json:"pets"`
	Total int   `json:"total"`
}

// An Adoption is a pet's adoption.
type Adoption struct {
	PetID   int    `json:"pet_id"`
	Adopter string `json:"adopter"`
	When    string `json:"when"`
}

// A Summary is a report's figures.
type Summary struct {
	Orders  int            `json:"orders"`
	Revenue float64        `json:"revenue"`
	ByCity  map[string]int `json:"by_city"`
	// Meta is whatever the report's source adds, as it gives it.
	Meta any `json:"meta"`
}
