// Package doccheck holds the tests of the documentation, README.md and
// docs/*.md, against the code: TestSnippetsCompile checks that every Go
// snippet is code of an example file of the module, which go test
// compiles; TestConfigKeys, that docs/config.md names every YAML key of
// autoexpose.Config and no other; TestTransparentListed, that
// docs/tools.md names every middleware a direct call skips; TestLinks,
// that every relative link leads to a file and heading that exist;
// TestIndex, that docs/README.md links every page; TestREADMESize, that
// the README stays a quick start; and TestREADMEGoVersion, that its
// minimum Go version is go.mod's.
package doccheck
