package autoexpose

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// LoadConfig reads a YAML config file; see ParseConfig.
func LoadConfig(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("mcpdoor: %w", err)
	}
	cfg, err := ParseConfig(data)
	if err != nil {
		return Config{}, &fileError{path: path, err: err}
	}
	return cfg, nil
}

// A fileError is an error of the config file at path: its text names the
// file after the prefix every error of mcpdoor starts with, "mcpdoor:
// server.yaml: config: line 3: ...".
type fileError struct {
	path string
	err  error
}

func (e *fileError) Error() string {
	return "mcpdoor: " + e.path + ": " + strings.TrimPrefix(e.err.Error(), "mcpdoor: ")
}

func (e *fileError) Unwrap() error { return e.err }

// ParseConfig reads a YAML config: the keys of Config and MCPConfig, by
// their yaml tags (name, expose_tools_over_mcp, mcp.path, mcp.rollout.*,
// ...). An unknown key, or a value of the wrong type, is an error that names
// the key; so is an invalid setting (see Validate). A duration needs a unit
// (600s, 1m), and mcp.session_secret takes one string or a list.
func ParseConfig(data []byte) (Config, error) {
	var cfg Config
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return cfg, nil // an empty file is the zero config
		}
		return cfg, fmt.Errorf("mcpdoor: config: %w", err)
	}
	if err := decodeStrict(doc.Content[0], reflect.ValueOf(&cfg).Elem(), ""); err != nil {
		return Config{}, fmt.Errorf("mcpdoor: config: %w", err)
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
		if f.Kind() == reflect.Pointer && f.Type().Elem().Kind() == reflect.Struct {
			// An optional block (mcp.rest): present, even empty, is on.
			if f.IsNil() {
				f.Set(reflect.New(f.Type().Elem()))
			}
			f = f.Elem()
		}
		if f.Kind() == reflect.Struct {
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
		if key.Value == "session_secret" && f.Type() == stringsType {
			// One secret, or a list of them (rotation).
			switch {
			case val.Kind == yaml.ScalarNode && val.Tag == "!!str":
				f.Set(reflect.ValueOf([]string{val.Value}))
				continue
			case val.Kind != yaml.SequenceNode:
				return fmt.Errorf("line %d: %s: want a string or a list of strings", val.Line, name)
			}
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
	stringsType  = reflect.TypeFor[[]string]()
	durationType = reflect.TypeFor[time.Duration]()
	lineRef      = regexp.MustCompile(`^line \d+: `)
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
