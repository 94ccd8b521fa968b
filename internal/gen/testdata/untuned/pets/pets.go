// Package pets serves the shelter's pets. Its handlers carry swaggo
// annotations, as an app that publishes a Swagger document writes them.
package pets

import (
	"encoding/json"
	"encoding/xml"
	"net/http"
	"strconv"
	"sync"

	"github.com/go-chi/chi/v5"

	"example.com/untuned/model"
)

// An encoder answers values; the shelter's answers JSON.
type encoder interface {
	Encode(w http.ResponseWriter, status int, v any) error
}

type jsonEncoder struct{}

func (jsonEncoder) Encode(w http.ResponseWriter, status int, v any) error {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	return json.NewEncoder(w).Encode(v)
}

// xmlEncoder answers the shelter's partners, who read XML.
type xmlEncoder struct{}

func (xmlEncoder) Encode(w http.ResponseWriter, status int, v any) error {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	return xml.NewEncoder(w).Encode(v)
}

// A binder reads a request's body.
type binder interface {
	Bind(r *http.Request, dst any) error
}

type jsonBinder struct{}

func (jsonBinder) Bind(r *http.Request, dst any) error { return json.NewDecoder(r.Body).Decode(dst) }

// xmlBinder reads the partners' XML.
type xmlBinder struct{}

func (xmlBinder) Bind(r *http.Request, dst any) error { return xml.NewDecoder(r.Body).Decode(dst) }

// Shelter serves the pets.
type Shelter struct {
	mu   sync.Mutex
	pets []model.Pet
	out  encoder
	in   binder
}

// NewShelter returns a shelter with a cat, that speaks JSON, or XML to
// partners.
func NewShelter(partners bool) *Shelter {
	s := &Shelter{pets: []model.Pet{{ID: 1, Name: "Tom", Species: "cat", Age: 3}}, out: jsonEncoder{}, in: jsonBinder{}}
	if partners {
		s.out, s.in = xmlEncoder{}, xmlBinder{}
	}
	return s
}

// ListPets godoc
//
//	@Summary		List pets
//	@Description	Answers the shelter's pets, a page at a time, of one species when asked.
//	@Tags			pets
//	@Produce		json
//	@Param			species	query		string	false	"only pets of this species"
//	@Param			limit	query		int		false	"at most this many pets"
//	@Success		200		{object}	model.PetPage
//	@Router			/pets [get]
func (s *Shelter) ListPets(w http.ResponseWriter, r *http.Request) {
	species := r.URL.Query().Get("species")
	limit, err := strconv.Atoi(r.URL.Query().Get("limit"))
	if err != nil {
		limit = 20
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	page := model.PetPage{Pets: []model.Pet{}}
	for _, p := range s.pets {
		if (species == "" || p.Species == species) && len(page.Pets) < limit {
			page.Pets = append(page.Pets, p)
		}
	}
	page.Total = len(page.Pets)
	s.out.Encode(w, http.StatusOK, page)
}

// CreatePet godoc
//
//	@Summary		Add a pet
//	@Description	Records a pet the shelter takes in.
//	@Tags			pets
//	@Accept			json
//	@Produce		json
//	@Param			pet	body		model.NewPet	true	"the pet"
//	@Success		201	{object}	model.Pet
//	@Failure		400	{object}	map[string]string
//	@Router			/pets [post]
func (s *Shelter) CreatePet(w http.ResponseWriter, r *http.Request) {
	var in model.NewPet
	if err := s.in.Bind(r, &in); err != nil {
		s.out.Encode(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	s.mu.Lock()
	p := model.Pet{ID: len(s.pets) + 1, Name: in.Name, Species: in.Species, Age: in.Age}
	s.pets = append(s.pets, p)
	s.mu.Unlock()
	s.out.Encode(w, http.StatusCreated, p)
}

// GetPet godoc
//
//	@Summary	Show a pet
//	@Tags		pets
//	@Produce	json
//	@Param		id	path		int	true	"the pet's id"
//	@Success	200	{object}	model.Pet
//	@Router		/pets/{id} [get]
func (s *Shelter) GetPet(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.Atoi(chi.URLParam(r, "id"))
	s.mu.Lock()
	defer s.mu.Unlock()
	if id < 1 || id > len(s.pets) {
		http.Error(w, "no such pet", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(s.pets[id-1])
}

// AdoptPet godoc
//
//	@Summary		Adopt a pet
//	@Description	Records the pet's adoption.
//	@Tags			pets
//	@Param			id		path		int		true	"the pet's id"
//	@Param			adopter	query		string	true	"who adopts it"
//	@Success		200		{object}	model.Pet
//	@Router			/pets/{id}/adopt [post]
func (s *Shelter) AdoptPet(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.Atoi(chi.URLParam(r, "id"))
	adopter := r.URL.Query().Get("adopter")
	if adopter == "" {
		http.Error(w, "adopter is required", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(model.Adoption{PetID: id, Adopter: adopter, When: "2026-01-02"})
}

// Confirm confirms an adoption from the link mailed to the adopter, whose
// form posts it.
func (s *Shelter) Confirm(w http.ResponseWriter, r *http.Request) {
	tkn := r.URL.Query().Get("tkn")
	if tkn == "" {
		http.Error(w, "the link has no token", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(confirmation{Confirmed: true, Token: tkn})
}

type confirmation struct {
	Confirmed bool   `json:"confirmed"`
	Token     string `json:"token"`
}
