package api

import (
	"slices"
	"strings"
	"sync"
)

// Store holds the blog's data in memory.
type Store struct {
	mu       sync.Mutex
	articles []*Article
	users    []*User
	comments map[string][]Comment
}

// NewStore returns a store holding one user and one article.
func NewStore() *Store {
	s := &Store{comments: map[string][]Comment{}}
	s.users = append(s.users, &User{ID: 1, Name: "Ada", Email: "ada@example.com"})
	s.articles = append(s.articles, &Article{ID: "1", UserID: 1, Title: "Hello", Slug: "hello", Text: "First post.", Tags: []string{"intro"}})
	return s
}

func (s *Store) article(id string) (*Article, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.IndexFunc(s.articles, func(a *Article) bool { return a.ID == id })
	if i < 0 {
		return nil, false
	}
	return s.articles[i], true
}

// addArticle stores a new article, keyed by its slug (made from its title
// when it has none), so that the same article gets the same ID.
func (s *Store) addArticle(a *Article) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a.Slug == "" {
		a.Slug = strings.ToLower(strings.Join(strings.Fields(a.Title), "-"))
	}
	a.ID = a.Slug
	s.articles = append(s.articles, a)
}

func (s *Store) listArticles(tag string, limit int) []*Article {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*Article
	for _, a := range s.articles {
		if tag == "" || slices.Contains(a.Tags, tag) {
			out = append(out, a)
		}
		if len(out) == limit {
			break
		}
	}
	return out
}

func (s *Store) removeArticle(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.articles = slices.DeleteFunc(s.articles, func(a *Article) bool { return a.ID == id })
}

func (s *Store) user(id int64) (*User, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.IndexFunc(s.users, func(u *User) bool { return u.ID == id })
	if i < 0 {
		return nil, false
	}
	return s.users[i], true
}
