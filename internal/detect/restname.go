package detect

import (
	"fmt"
	"hash/fnv"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpdoor/mcpdoor/internal/pattern"
)

// RESTName returns the tool name a REST route gets when neither the
// OpenAPI document nor the config names it. It depends on the method and
// pattern alone, so it is the same on every start, whatever other routes
// the router has. The rule:
//
//  1. POST /<name>, one literal segment that is already a valid tool name,
//     keeps that name, as under the tool-route convention: POST /get_weather
//     is get_weather in both modes. A segment that is one plural word is a
//     collection, which a POST adds to: POST /articles is create_article
//     (step 4).
//  2. Leading "api" and version segments (v1, v2beta) are dropped, unless
//     nothing else would be left: /api/v1/notes reads as /notes.
//  3. Each literal segment becomes a word in snake_case ("noteItems" and
//     "note-items" both give note_items); a word right before a parameter
//     names one item and is made singular (notes/{id} gives note).
//     Parameters themselves are not words, unless the path has no literal
//     words at all (GET /{slug} is get_slug).
//  4. A verb from the method and the path's last segment:
//     GET: get for one item (the path ends in a parameter), list for a
//     plural last word, get otherwise; POST: create for a plural last word
//     (made singular: POST /notes is create_note), post for one item, and
//     otherwise the last word is itself the verb (POST
//     /notes/{id}/archive is archive_note, POST /notes/search is
//     search_notes); PUT: replace; PATCH: update; DELETE: delete.
//  5. name = verb_word_word...; a name longer than MaxNameLen is cut to 55
//     characters and given "_" and 8 hexadecimal digits of a hash of
//     "METHOD pattern", so it stays unique.
//
// A word is plural when it ends in "s" but not "ss", "us" or "is", has at
// least four letters, and is neither a singular that ends in "s" (alias,
// canvas, lens: see sWords) nor a word with no singular (stats, news,
// series: see massWords), so that /stats/{range} is the stats of a range,
// not one stat. A plural is made singular by a plain English rule ("ies"
// to "y"; "sses", "xes", "ches", "shes" and the plural of an sWord lose
// "es"; otherwise the "s" goes). Where the rule reads wrong, name the route
// in the config. Routes that get the same name are told apart by the
// rule of collide.go: GET /articles/{articleSlug} is get_article_by_slug
// beside GET /articles/{articleID}, get_article.
func RESTName(method, pat string) string {
	return restName(method, pat, true)
}

// restName is RESTName, with or without step 2; without it, the name
// keeps the prefixes (list_v2_notes).
func restName(method, pat string, dropPrefixes bool) string {
	w, ok := readWords(method, pat)
	switch {
	case !ok:
		return ""
	case w.literal != "":
		return w.literal
	case dropPrefixes:
		return w.name(method, pat, nil, "")
	}
	return w.name(method, pat, w.prefixes, "")
}

// restWords is a REST route's name taken apart, so that two routes that
// get one name can be told apart by what it leaves out (collisions).
type restWords struct {
	literal  string   // step 1's name, when it applies: the rest is unset
	verb     string   // step 4's
	prefixes []string // the api and version words step 2 dropped
	words    []string // step 3's
	// param is the first parameter of the path's last segment, as a word,
	// when the path ends in one, without the words of the item it names
	// ({articleSlug} after articles is "slug"); "" otherwise.
	param string
}

// readWords takes the route method pat's name apart, as RESTName makes it;
// ok is false when the path gives no word to name a tool after.
func readWords(method, pat string) (w restWords, ok bool) {
	parts, err := pattern.Parse(pat)
	if err != nil {
		return w, false
	}
	segs := pattern.Segments(parts)
	if method == http.MethodPost && len(segs) == 1 && len(segs[0].Params) == 0 && ValidName(segs[0].Literal) == nil {
		if w := snake(segs[0].Literal); strings.Contains(w, "_") || !plural(w) {
			return restWords{literal: segs[0].Literal}, true
		}
	}
	segs = w.dropPrefixes(segs)
	w.readPath(segs)
	if len(w.words) == 0 {
		return w, false
	}
	item := len(segs) > 0 && len(segs[len(segs)-1].Params) > 0
	if item {
		w.param = paramWord(segs[len(segs)-1].Params[0], w.words[len(w.words)-1])
	}
	w.readVerb(method, item)
	return w, true
}

// dropPrefixes takes the api and version words off the front of segs, when
// words are left behind them, and returns the segments left.
func (w *restWords) dropPrefixes(segs []pattern.Segment) []pattern.Segment {
	i := 0
	for i < len(segs) && len(segs[i].Params) == 0 && isPrefixWord(segs[i].Literal) {
		i++
	}
	if !hasWords(segs[i:]) {
		return segs
	}
	for _, s := range segs[:i] {
		w.prefixes = append(w.prefixes, snake(s.Literal))
	}
	return segs[i:]
}

// readPath reads the words of the path's literal segments, a collection's
// made singular before its item's parameter; or, when it has none, of its
// parameters.
func (w *restWords) readPath(segs []pattern.Segment) {
	for i, s := range segs {
		if len(s.Params) > 0 {
			continue
		}
		word := snake(s.Literal)
		if word == "" {
			continue
		}
		if i+1 < len(segs) && len(segs[i+1].Params) > 0 {
			word = singular(word)
		}
		w.words = append(w.words, word)
	}
	if len(w.words) > 0 {
		return
	}
	for _, s := range segs {
		for _, p := range s.Params {
			if word := snake(p); word != "" {
				w.words = append(w.words, word)
			}
		}
	}
}

// readVerb names the verb of method, on an item (the path ends in a
// parameter) or not: a GET lists a collection, a POST creates in one.
func (w *restWords) readVerb(method string, item bool) {
	last := w.words[len(w.words)-1]
	switch method {
	case http.MethodGet:
		switch {
		case item:
			w.verb = "get"
		case plural(last):
			w.verb = "list"
		default:
			w.verb = "get"
		}
	case http.MethodPost:
		switch {
		case item:
			w.verb = "post"
		case plural(last):
			w.verb = "create"
			w.words[len(w.words)-1] = singular(last)
		default:
			w.verb, w.words = last, w.words[:len(w.words)-1]
		}
	case http.MethodPut:
		w.verb = "replace"
	case http.MethodPatch:
		w.verb = "update"
	case http.MethodDelete:
		w.verb = "delete"
	default:
		w.verb = snake(method)
	}
}

// name joins the words into a tool name: the verb, the prefixes given, the
// words, and "by_<by>" when by is not "". A name longer than MaxNameLen is
// cut and given a hash of the route method pat (step 5).
func (w restWords) name(method, pat string, prefixes []string, by string) string {
	if w.literal != "" {
		return w.literal
	}
	parts := append(append([]string{w.verb}, prefixes...), w.words...)
	if by != "" {
		parts = append(parts, "by", by)
	}
	return fit(strings.Join(parts, "_"), method, pat)
}

// fit cuts a name longer than MaxNameLen to 55 characters and gives it "_"
// and 8 hexadecimal digits of a hash of the route, so that it stays unique.
func fit(name, method, pat string) string {
	if len(name) <= MaxNameLen {
		return name
	}
	h := fnv.New32a()
	h.Write([]byte(method + " " + pat))
	return fmt.Sprintf("%s_%08x", strings.TrimRight(name[:MaxNameLen-9], "_"), h.Sum32())
}

// idWords are the parameter names that identify an item as such: GET
// /articles/{articleID} is the article, and needs no "by".
var idWords = []string{"id", "uuid", "uid", "guid", "pk"}

// paramWord is the parameter p of an item called item as a word, without
// the item's own words: {articleSlug} of article is "slug", {article_id}
// "id"; "" for an id (see idWords).
func paramWord(p, item string) string {
	w := snake(p)
	if w == item {
		return "" // {user} after users
	}
	for _, iw := range strings.Split(item, "_") {
		if rest, ok := strings.CutPrefix(w, iw+"_"); ok {
			w = rest
		}
	}
	if slices.Contains(idWords, w) {
		return ""
	}
	return w
}

var versionWord = regexp.MustCompile(`^v[0-9]+([a-z]+[0-9]*)?$`)

// isPrefixWord reports whether a literal segment is an "api" or version
// prefix that says nothing of the resource.
func isPrefixWord(s string) bool {
	s = strings.ToLower(s)
	return s == "api" || versionWord.MatchString(s)
}

// hasWords reports whether segs hold a literal segment that gives a word.
func hasWords(segs []pattern.Segment) bool {
	for _, s := range segs {
		if len(s.Params) == 0 && snake(s.Literal) != "" {
			return true
		}
	}
	return false
}

// snake turns a path segment into a snake_case word of [a-z0-9_]:
// "noteItems", "note-items" and "Note.Items" all give note_items. Other
// characters, non-ASCII letters included, separate words.
func snake(s string) string {
	var b strings.Builder
	under := func() {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "_") {
			b.WriteByte('_')
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
			// A capital starts a word after a lower-case letter or digit,
			// and ends an acronym before a lower-case letter: APIKeys is
			// api_keys.
			if i > 0 && (isLowerOrDigit(s[i-1]) || isUpper(s[i-1]) && i+1 < len(s) && isLower(s[i+1])) {
				under()
			}
			b.WriteByte(c + 'a' - 'A')
		case isLowerOrDigit(c):
			b.WriteByte(c)
		default:
			under()
		}
	}
	return strings.Trim(b.String(), "_")
}

func isUpper(c byte) bool        { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool        { return c >= 'a' && c <= 'z' }
func isLowerOrDigit(c byte) bool { return isLower(c) || c >= '0' && c <= '9' }

// lastWord splits a snake_case word before its last part.
func lastWord(w string) (head, last string) {
	i := strings.LastIndexByte(w, '_')
	return w[:i+1], w[i+1:]
}

// sWords are singular words that end in "s" (whose plural adds "es"), as
// API paths use them.
var sWords = []string{"alias", "atlas", "bias", "bonus", "bus", "campus", "canvas", "census", "corpus", "gas", "lens", "status", "virus"}

// massWords end in "s" but have no singular: each names one thing or an
// aggregate.
var massWords = []string{"analytics", "news", "series", "species", "statistics", "stats"}

// plural reports whether w's last part reads as an English plural.
func plural(w string) bool {
	_, last := lastWord(w)
	return len(last) >= 4 && strings.HasSuffix(last, "s") &&
		!strings.HasSuffix(last, "ss") && !strings.HasSuffix(last, "us") && !strings.HasSuffix(last, "is") &&
		!slices.Contains(sWords, last) && !slices.Contains(massWords, last)
}

// singular makes w's last part singular when it reads as a plural.
func singular(w string) string {
	if !plural(w) {
		return w
	}
	head, last := lastWord(w)
	switch {
	case strings.HasSuffix(last, "ies") && len(last) > 4:
		last = last[:len(last)-3] + "y"
	case strings.HasSuffix(last, "sses"), strings.HasSuffix(last, "xes"),
		strings.HasSuffix(last, "ches"), strings.HasSuffix(last, "shes"),
		strings.HasSuffix(last, "es") && slices.Contains(sWords, last[:len(last)-2]):
		last = last[:len(last)-2]
	default:
		last = last[:len(last)-1]
	}
	return head + last
}
