package harvest

import "mime"

// IsHTML reports whether a Content-Type is a page's: a route that answers
// one is for a browser, not a model.
func IsHTML(contentType string) bool {
	mt, _, _ := mime.ParseMediaType(contentType)
	return mt == "text/html" || mt == "application/xhtml+xml"
}
