// Package opaque imports records in whichever format a request names,
// with the decoder that format's codec registered: which function decodes
// a body is known only at run time.
package opaque

import (
	"encoding/json"
	"io"
	"net/http"
	"sync"
)

// A Decoder reads a batch of one format.
type Decoder func(r io.Reader, v any) error

var codecs struct {
	sync.Mutex
	byType map[string]Decoder
}

// Register makes dec the decoder of the media type mediaType.
func Register(mediaType string, dec Decoder) {
	codecs.Lock()
	defer codecs.Unlock()
	if codecs.byType == nil {
		codecs.byType = map[string]Decoder{}
	}
	codecs.byType[mediaType] = dec
}

func decoderOf(mediaType string) (Decoder, bool) {
	codecs.Lock()
	defer codecs.Unlock()
	dec, ok := codecs.byType[mediaType]
	return dec, ok
}

// A Batch is records to import.
type Batch struct {
	Source  string   `json:"source"`
	Records []string `json:"records"`
}

// Importer imports batches.
type Importer struct {
	reply func(w http.ResponseWriter, v any)
}

// NewImporter returns an importer that answers JSON.
func NewImporter() *Importer {
	return &Importer{reply: func(w http.ResponseWriter, v any) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(v)
	}}
}

type imported struct {
	Count int `json:"count"`
}

// Import takes a batch of records, in the format its Content-Type names.
func (im *Importer) Import(w http.ResponseWriter, r *http.Request) {
	dec, ok := decoderOf(r.Header.Get("Content-Type"))
	if !ok {
		http.Error(w, "unsupported format", http.StatusUnsupportedMediaType)
		return
	}
	var b Batch
	if err := dec(r.Body, &b); err != nil {
		http.Error(w, "invalid batch: "+err.Error(), http.StatusBadRequest)
		return
	}
	im.reply(w, imported{Count: len(b.Records)})
}
