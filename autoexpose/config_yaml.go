package autoexpose

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Secrets is one secret or a list of them, the signing one first.
type Secrets []string

// UnmarshalYAML accepts a string or a list of strings.
func (s *Secrets) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*s = Secrets{n.Value}
		return nil
	}
	var list []string
	if err := n.Decode(&list); err != nil {
		return errors.New("want a string or a list of strings")
	}
	*s = list
	return nil
}

// LoadConfig reads a YAML config file. See ParseConfig. A relative
// mcp.openapi path is made relative to the file's directory.
func LoadConfig(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("autoexpose: %w", err)
	}
	cfg, err := ParseConfig(data)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	if p := cfg.MCP.OpenAPI; p != "" && !filepath.IsAbs(p) {
		cfg.MCP.OpenAPI = filepath.Join(filepath.Dir(path), p)
	}
	return cfg, nil
}

// ParseConfig reads a YAML config. An unknown key, or a value of the wrong
// type, is an error that names the key; so is an invalid setting (see
// Validate).
func ParseConfig(data []byte) (Config, error) {
	var cfg Config
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return cfg, nil // an empty file is the zero config
		}
		return cfg, fmt.Errorf("autoexpose: config: %w", err)
	}
	if err := decodeStrict(doc.Content[0], reflect.ValueOf(&cfg).Elem(), ""); err != nil {
		return Config{}, fmt.Errorf("autoexpose: config: %w", err)
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// decodeStrict decodes node into the struct v key by key, so that an error
// names the key it is about (mcp.idle_timeout) rather than a line alone.
func decodeStrict(node *yaml.Node, v reflect.Value, prefix string) error {
	if node.Kind != yaml.MappingNode {
		if node.Tag == "!!null" {
			return nil
		}
		where := strings.TrimSuffix(prefix, ".")
		if where == "" {
			where = "the document"
		}
		return fmt.Errorf("line %d: %s must be a mapping", node.Line, where)
	}
	fields := yamlFields(v.Type())
	for i := 0; i+1 < len(node.Content); i += 2 {
		key, val := node.Content[i], node.Content[i+1]
		name := prefix + key.Value
		idx, ok := fields[key.Value]
		if !ok {
			return fmt.Errorf("line %d: unknown key %s", key.Line, name)
		}
		f := v.Field(idx)
		if f.Kind() == reflect.Struct && !f.Addr().Type().Implements(unmarshalerType) {
			if err := decodeStrict(val, f, name+"."); err != nil {
				return err
			}
			continue
		}
		if f.Type() == durationType && val.Kind == yaml.ScalarNode && val.Tag == "!!int" {
			if val.Value != "0" {
				return fmt.Errorf("line %d: %s: %s has no unit; write a duration such as %ss", val.Line, name, val.Value, val.Value)
			}
			f.SetInt(0)
			continue
		}
		if err := val.Decode(f.Addr().Interface()); err != nil {
			var te *yaml.TypeError
			if errors.As(err, &te) && len(te.Errors) > 0 {
				msgs := make([]string, len(te.Errors))
				for i, m := range te.Errors {
					msgs[i] = lineRef.ReplaceAllString(m, "")
				}
				err = errors.New(strings.Join(msgs, "; "))
			}
			return fmt.Errorf("line %d: %s: %v", val.Line, name, err)
		}
	}
	return nil
}

var (
	unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()
	durationType    = reflect.TypeFor[time.Duration]()
	lineRef         = regexp.MustCompile(`^line \d+: `)
)

// yamlFields maps the YAML keys of struct type t to field indexes, inlined
// fields included.
func yamlFields(t reflect.Type) map[string]int {
	m := make(map[string]int)
	for i := range t.NumField() {
		tag := t.Field(i).Tag.Get("yaml")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" || name == "" {
			continue
		}
		m[name] = i
	}
	return m
}
