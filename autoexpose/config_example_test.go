package autoexpose_test

import (
	"fmt"
	"log"

	"go.yaml.in/yaml/v3"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// ServerConfig is a server's own config, with mcpdoor's block inline.
type ServerConfig struct {
	autoexpose.Config `yaml:",inline"`
	Port              int `yaml:"port"`
}

// Config embeds inline in a server's own config struct, decoded by the
// server's own YAML decoder. Install checks the settings as ParseConfig
// does (Validate).
func ExampleConfig_inline() {
	var sc ServerConfig
	err := yaml.Unmarshal([]byte(`
name: weather
expose_tools_over_mcp: true
port: 8080
mcp:
  idle_timeout: 5m
`), &sc)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(sc.Name, sc.Port, sc.MCP.IdleTimeout, sc.Validate())
	// Output:
	// weather 8080 5m0s <nil>
}
