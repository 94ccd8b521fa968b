// Package notify serves a user's notifications.
package notify

import (
	"encoding/json"
	"net/http"
	"strconv"
	"sync"

	"github.com/go-chi/chi/v5"
)

// Notification is one notice to a user.
type Notification struct {
	ID    int    `json:"id"`
	Text  string `json:"text"`
	Read  bool   `json:"read"`
	Topic string `json:"topic"`
}

// Settings are how a user is notified.
type Settings struct {
	Email  bool   `json:"email"`
	Push   bool   `json:"push"`
	Digest string `json:"digest,omitempty"`
}

// Center serves notifications.
type Center struct {
	mu       sync.Mutex
	list     []Notification
	settings Settings
}

// NewCenter returns a center with one unread notification.
func NewCenter() *Center {
	return &Center{list: []Notification{{ID: 1, Text: "Welcome", Topic: "account"}}}
}

func (c *Center) reply(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// List answers the notifications; unread=true keeps the unread ones,
// topic one topic's.
func (c *Center) List(w http.ResponseWriter, r *http.Request) {
	unread, _ := strconv.ParseBool(r.URL.Query().Get("unread"))
	topic := r.URL.Query().Get("topic")
	c.mu.Lock()
	defer c.mu.Unlock()
	out := []Notification{}
	for _, n := range c.list {
		if (!unread || !n.Read) && (topic == "" || n.Topic == topic) {
			out = append(out, n)
		}
	}
	c.reply(w, out)
}

// MarkRead marks a notification read.
func (c *Center) MarkRead(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.Atoi(chi.URLParam(r, "id"))
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.list {
		if c.list[i].ID == id {
			c.list[i].Read = true
			c.reply(w, c.list[i])
			return
		}
	}
	http.Error(w, "no such notification", http.StatusNotFound)
}

// GetSettings answers how the user is notified.
func (c *Center) GetSettings(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reply(w, c.settings)
}

// PutSettings sets how the user is notified.
func (c *Center) PutSettings(w http.ResponseWriter, r *http.Request) {
	var in Settings
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.settings = in
	c.reply(w, c.settings)
}

// ReadAll marks every notification read and answers how many were unread.
func (c *Center) ReadAll(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for i := range c.list {
		if !c.list[i].Read {
			c.list[i].Read = true
			n++
		}
	}
	c.reply(w, map[string]int{"marked": n})
}
