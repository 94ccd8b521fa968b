package main

// A contender is one server under one protocol version.
type contender struct {
	server
	protocol string // "" for the raw floor
	url      string // "" when the server is not built yet
}

func (c contender) built() bool { return c.url != "" }

// contenders lists every server under every protocol version it is
// measured with, in the order of servers. A server the process does not
// run (not built yet) is listed once, to be printed as such.
func contenders(eps endpoints) []contender {
	var cs []contender
	for _, s := range servers {
		url := eps.Servers[s.key]
		switch {
		case url == "" || !s.mcp:
			cs = append(cs, contender{server: s, url: url})
		default:
			for _, v := range protocols {
				cs = append(cs, contender{server: s, protocol: v, url: url})
			}
		}
	}
	return cs
}

// find returns the index of the contender of server key under protocol v,
// or -1.
func find(cs []contender, key, v string) int {
	for i, c := range cs {
		if c.key == key && c.protocol == v && c.built() {
			return i
		}
	}
	return -1
}

// label names a contender in an error.
func (c contender) label() string {
	if c.protocol == "" {
		return c.title
	}
	return c.title + " " + c.protocol
}
