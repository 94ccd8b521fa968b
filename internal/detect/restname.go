package detect

import (
	"fmt"
	"hash/fnv"
	"net/http"
	"regexp"
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
//     is get_weather in both modes.
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
// A word is plural when it ends in "s" but not "ss", "us" or "is", and has at
// least four letters; it is made singular by a plain English rule ("ies"
// to "y"; "sses", "xes", "ches", "shes" lose "es"; otherwise the "s" goes).
// Where the rule reads wrong, or two routes get the same name, name the
// route in the config.
func RESTName(method, pat string) string {
	return restName(method, pat, true)
}

// restName is RESTName, with or without step 2; without it, the name
// keeps the prefixes (list_v2_notes), which is what a refusal suggests
// when two versions of a route collide.
func restName(method, pat string, dropPrefixes bool) string {
	parts, err := pattern.Parse(pat)
	if err != nil {
		return ""
	}
	segs := pattern.Segments(parts)
	if method == http.MethodPost && len(segs) == 1 && len(segs[0].Params) == 0 && ValidName(segs[0].Literal) == nil {
		return segs[0].Literal
	}
	if dropPrefixes {
		i := 0
		for i < len(segs) && len(segs[i].Params) == 0 && isPrefixWord(segs[i].Literal) {
			i++
		}
		if hasWords(segs[i:]) {
			segs = segs[i:]
		}
	}
	var words []string
	for i, s := range segs {
		if len(s.Params) > 0 {
			continue
		}
		w := snake(s.Literal)
		if w == "" {
			continue
		}
		if i+1 < len(segs) && len(segs[i+1].Params) > 0 {
			w = singular(w)
		}
		words = append(words, w)
	}
	if len(words) == 0 {
		for _, s := range segs {
			for _, p := range s.Params {
				if w := snake(p); w != "" {
					words = append(words, w)
				}
			}
		}
	}
	if len(words) == 0 {
		return ""
	}
	item := len(segs) > 0 && len(segs[len(segs)-1].Params) > 0
	last := words[len(words)-1]
	var verb string
	switch method {
	case http.MethodGet:
		switch {
		case item:
			verb = "get"
		case plural(last):
			verb = "list"
		default:
			verb = "get"
		}
	case http.MethodPost:
		switch {
		case item:
			verb = "post"
		case plural(last):
			verb = "create"
			words[len(words)-1] = singular(last)
		default:
			verb, words = last, words[:len(words)-1]
		}
	case http.MethodPut:
		verb = "replace"
	case http.MethodPatch:
		verb = "update"
	case http.MethodDelete:
		verb = "delete"
	default:
		verb = snake(method)
	}
	name := strings.Join(append([]string{verb}, words...), "_")
	if len(name) > MaxNameLen {
		h := fnv.New32a()
		h.Write([]byte(method + " " + pat))
		name = fmt.Sprintf("%s_%08x", strings.TrimRight(name[:MaxNameLen-9], "_"), h.Sum32())
	}
	return name
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

// plural reports whether w's last part reads as an English plural.
func plural(w string) bool {
	_, last := lastWord(w)
	return len(last) >= 4 && strings.HasSuffix(last, "s") &&
		!strings.HasSuffix(last, "ss") && !strings.HasSuffix(last, "us") && !strings.HasSuffix(last, "is")
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
		strings.HasSuffix(last, "ches"), strings.HasSuffix(last, "shes"):
		last = last[:len(last)-2]
	default:
		last = last[:len(last)-1]
	}
	return head + last
}
