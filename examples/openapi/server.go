package main

// The OpenAPI example's server: a bookstore's inventory,
// a plain JSON API of POST routes on chi, with plain http.HandlerFuncs and
// the OpenAPI document that describes them (openapi.yaml, also served at
// GET /openapi.yaml).
//
// Nothing here is written for MCP: mcpdoor reads each tool's input schema,
// description and annotations from the document.

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// document is the API's OpenAPI document.
//
//go:embed openapi.yaml
var document []byte

// Author is a book's author.
type Author struct {
	Name string `json:"name"`
	Born *int   `json:"born"`
}

// Book is one title in the inventory.
type Book struct {
	ISBN   string  `json:"isbn"`
	Title  string  `json:"title"`
	Author Author  `json:"author"`
	Price  float64 `json:"price"`
	Copies int     `json:"copies"`
}

// Store is the inventory. Its methods are the HTTP handlers.
type Store struct {
	mu    sync.Mutex
	books map[string]Book // by ISBN
}

// starting is the inventory a new store, or a reset one, holds.
func starting() map[string]Book {
	born := func(y int) *int { return &y }
	books := []Book{
		{"9780262510875", "Structure and Interpretation of Computer Programs", Author{"Harold Abelson", born(1947)}, 45.5, 3},
		{"9780131103627", "The C Programming Language", Author{"Brian Kernighan", born(1942)}, 52, 2},
		{"9780134190440", "The Go Programming Language", Author{"Alan Donovan", nil}, 39.9, 0},
	}
	m := make(map[string]Book, len(books))
	for _, b := range books {
		m[b.ISBN] = b
	}
	return m
}

// newServer builds the router (routes first, then autoexpose.Install) and
// returns the installed MCP door: what to serve (it serves the router), and
// what to close. The tools' schemas come from document, unless cfg names
// another.
func newServer(cfg autoexpose.Config) (*autoexpose.Door, error) {
	if cfg.OpenAPI == nil {
		cfg.OpenAPI = document
	}
	s := &Store{books: starting()}

	r := chi.NewRouter()
	r.Use(middleware.Recoverer)
	r.Post("/add_book", s.addBook)
	r.Post("/find_books", s.findBooks)
	r.Post("/update_stock", s.updateStock)
	r.Post("/remove_book", s.removeBook)
	r.Post("/inventory_report", s.inventoryReport)
	r.Post("/reset_inventory", s.reset)
	r.Get("/openapi.yaml", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/yaml")
		w.Write(document)
	})

	return autoexpose.Install(r, cfg)
}

func (s *Store) addBook(w http.ResponseWriter, r *http.Request) {
	var b Book
	if !decode(w, r, &b) {
		return
	}
	if b.ISBN == "" || b.Title == "" || b.Author.Name == "" || b.Price <= 0 || b.Copies < 0 {
		fail(w, http.StatusUnprocessableEntity, "isbn, title, author.name, a positive price and copies are required")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.books[b.ISBN]; dup {
		fail(w, http.StatusConflict, fmt.Sprintf("a book with ISBN %s is already in the inventory", b.ISBN))
		return
	}
	s.books[b.ISBN] = b
	reply(w, http.StatusCreated, b)
}

func (s *Store) findBooks(w http.ResponseWriter, r *http.Request) {
	in := struct {
		Query       string `json:"query"`
		InStockOnly bool   `json:"in_stock_only"`
		MaxResults  int    `json:"max_results"`
	}{MaxResults: 5}
	if !decode(w, r, &in) {
		return
	}
	words := strings.Fields(strings.ToLower(in.Query))
	if len(words) == 0 {
		fail(w, http.StatusUnprocessableEntity, "query must have a word")
		return
	}
	s.mu.Lock()
	found := []Book{}
	for _, b := range s.books {
		text := strings.ToLower(b.Title + " " + b.Author.Name)
		if (!in.InStockOnly || b.Copies > 0) && !slices.ContainsFunc(words, func(w string) bool { return !strings.Contains(text, w) }) {
			found = append(found, b)
		}
	}
	s.mu.Unlock()
	slices.SortFunc(found, func(a, b Book) int { return strings.Compare(a.Title, b.Title) })
	reply(w, http.StatusOK, map[string]any{"books": found[:min(len(found), max(in.MaxResults, 1))], "total": len(found)})
}

func (s *Store) updateStock(w http.ResponseWriter, r *http.Request) {
	var in struct {
		ISBN  string  `json:"isbn"`
		Delta int     `json:"delta"`
		Note  *string `json:"note"`
	}
	if !decode(w, r, &in) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.books[in.ISBN]
	switch {
	case !ok:
		fail(w, http.StatusNotFound, fmt.Sprintf("no book with ISBN %q", in.ISBN))
		return
	case b.Copies+in.Delta < 0:
		fail(w, http.StatusConflict, fmt.Sprintf("only %d copies of %q are in stock", b.Copies, b.Title))
		return
	}
	b.Copies += in.Delta
	s.books[in.ISBN] = b
	reply(w, http.StatusOK, map[string]any{"isbn": b.ISBN, "copies": b.Copies})
}

func (s *Store) removeBook(w http.ResponseWriter, r *http.Request) {
	var in struct {
		ISBN string `json:"isbn"`
	}
	if !decode(w, r, &in) {
		return
	}
	s.mu.Lock()
	_, found := s.books[in.ISBN]
	delete(s.books, in.ISBN)
	s.mu.Unlock()
	reply(w, http.StatusOK, map[string]any{"isbn": in.ISBN, "removed": found})
}

func (s *Store) inventoryReport(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	copies, value := 0, 0.0
	for _, b := range s.books {
		copies += b.Copies
		value += b.Price * float64(b.Copies)
	}
	reply(w, http.StatusOK, map[string]any{"titles": len(s.books), "copies": copies, "value": math.Round(value*100) / 100})
}

func (s *Store) reset(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	s.books = starting()
	s.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// decode reads the JSON body into v, or answers 400 and returns false.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(io.LimitReader(r.Body, 1<<20))
	if err := dec.Decode(v); err != nil && !errors.Is(err, io.EOF) {
		fail(w, http.StatusBadRequest, "the body is not the JSON this route takes: "+err.Error())
		return false
	}
	return true
}

func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func fail(w http.ResponseWriter, status int, msg string) {
	reply(w, status, map[string]string{"error": msg})
}
