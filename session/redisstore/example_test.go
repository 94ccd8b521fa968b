package redisstore_test

import (
	"os"

	"github.com/redis/go-redis/v9"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/session/redisstore"
)

// Every replica of a server gives its config the same Redis and prefix:
// then each holds every session any of them made.
func ExampleNew() {
	var cfg autoexpose.Config
	client := redis.NewClient(&redis.Options{Addr: os.Getenv("MCPDOOR_REDIS_ADDR")})
	cfg.Store = redisstore.New(client, "weather")
	_ = cfg
}
