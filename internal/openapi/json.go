package openapi

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// parseJSON reads a JSON document into the node tree the YAML parser would
// have made, lines included.
func parseJSON(data []byte) (*yaml.Node, error) {
	p := &jsonParser{dec: json.NewDecoder(bytes.NewReader(data)), data: data, line: 1}
	p.dec.UseNumber()
	n, err := p.value()
	if err != nil {
		return nil, err
	}
	if _, err := p.dec.Token(); err != io.EOF {
		return nil, &Error{Line: p.lineAt(p.dec.InputOffset()), Problem: "not valid JSON: data after the document"}
	}
	return n, nil
}

type jsonParser struct {
	dec  *json.Decoder
	data []byte
	off  int64 // how far line counts
	line int   // the line at off
}

// lineAt returns the line of the byte at offset off; offsets must not go
// backwards between calls.
func (p *jsonParser) lineAt(off int64) int {
	off = min(off, int64(len(p.data)))
	if off > p.off {
		p.line += bytes.Count(p.data[p.off:off], []byte{'\n'})
		p.off = off
	}
	return p.line
}

func (p *jsonParser) token() (json.Token, int, error) {
	// The token starts after the whitespace that follows the previous one.
	rest := p.data[min(p.dec.InputOffset(), int64(len(p.data))):]
	start := p.dec.InputOffset() + int64(len(rest)-len(bytes.TrimLeft(rest, " \t\r\n,:")))
	line := p.lineAt(start)
	tok, err := p.dec.Token()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, line, &Error{Line: line, Problem: "not valid JSON: " + err.Error()}
	}
	return tok, line, nil
}

func (p *jsonParser) value() (*yaml.Node, error) {
	tok, line, err := p.token()
	if err != nil {
		return nil, err
	}
	switch tok := tok.(type) {
	case json.Delim:
		n := &yaml.Node{Line: line}
		if tok == '{' {
			n.Kind, n.Tag = yaml.MappingNode, "!!map"
		} else {
			n.Kind, n.Tag = yaml.SequenceNode, "!!seq"
		}
		for p.dec.More() {
			if n.Kind == yaml.MappingNode {
				key, kline, err := p.token()
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key.(string), Line: kline})
			}
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, v)
		}
		if _, _, err := p.token(); err != nil { // the closing delimiter
			return nil, err
		}
		return n, nil
	case string:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: tok, Line: line}, nil
	case json.Number:
		tag := "!!float"
		if !strings.ContainsAny(string(tok), ".eE") {
			tag = "!!int"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: string(tok), Line: line}, nil
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(tok), Line: line}, nil
	default: // nil
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null", Line: line}, nil
	}
}
