// Package redisstore keeps a server's sessions and their state in Redis,
// so that every replica of the server holds every session any of them
// made: a round-robin balancer then needs no affinity, and a replica that
// dies loses nothing.
//
//	client := redis.NewClient(&redis.Options{Addr: os.Getenv("MCPDOOR_REDIS_ADDR")})
//	cfg.Store = redisstore.New(client, "weather")
//
// Each session is one Redis hash, at key "<prefix>:session:<sid>": a
// marker that the session is held, and each value session.Save saved, as
// JSON. With mcp.session_idle_ttl set, every use of a session pushes the
// key's expiry out by that much, and Redis drops an idle session by
// itself; without it, a session stays until its rollout ends. The package
// is apart from package session so that a server without Redis does not
// build go-redis in.
package redisstore

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpdoor/mcpdoor/internal/store"
	"github.com/mcpdoor/mcpdoor/session"
)

// New returns a store in Redis, reached through client, its keys under
// prefix (say, the server's name; "" is "mcpdoor"), so that servers can
// share one Redis without sharing sessions. Every replica of a server must
// use the same Redis and prefix. The store does not close client.
func New(client redis.UniversalClient, prefix string) *session.Store {
	if prefix == "" {
		prefix = "mcpdoor"
	}
	return store.New(&backend{client: client, prefix: prefix + ":session:"})
}

// backend is the store.Backend in Redis.
type backend struct {
	client redis.UniversalClient
	prefix string
	idle   atomic.Int64 // the idle TTL, in nanoseconds; 0: none
}

// heldField marks a hash as a held session; values are under valuePrefix,
// so that no key of session.Save can be taken for it.
const (
	heldField   = "held"
	valuePrefix = "v:"
)

func (b *backend) key(sid string) string { return b.prefix + sid }

// SetIdle sets the idle TTL (store.Idler).
func (b *backend) SetIdle(d time.Duration) { b.idle.Store(int64(d)) }

// touch pushes out the expiry of key in pipe, when there is an idle TTL.
func (b *backend) touch(ctx context.Context, pipe redis.Pipeliner, key string) {
	if idle := time.Duration(b.idle.Load()); idle > 0 {
		pipe.PExpire(ctx, key, idle)
	}
}

func (b *backend) Register(ctx context.Context, sid string) error {
	key := b.key(sid)
	_, err := b.client.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
		pipe.HSet(ctx, key, heldField, "1")
		b.touch(ctx, pipe, key)
		return nil
	})
	return err
}

func (b *backend) Holds(ctx context.Context, sid string) (bool, error) {
	key := b.key(sid)
	if idle := time.Duration(b.idle.Load()); idle > 0 {
		// One round trip: PEXPIRE tells whether the key exists, and
		// counts this as a use.
		return b.client.PExpire(ctx, key, idle).Result()
	}
	n, err := b.client.Exists(ctx, key).Result()
	return n == 1, err
}

func (b *backend) Load(ctx context.Context, sid, k string) ([]byte, bool, error) {
	key := b.key(sid)
	var get *redis.StringCmd
	_, err := b.client.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
		get = pipe.HGet(ctx, key, valuePrefix+k)
		b.touch(ctx, pipe, key)
		return nil
	})
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	v, err := get.Bytes()
	return v, err == nil, err
}

func (b *backend) Save(ctx context.Context, sid, k string, value []byte) error {
	key := b.key(sid)
	_, err := b.client.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
		pipe.HSet(ctx, key, heldField, "1", valuePrefix+k, value)
		b.touch(ctx, pipe, key)
		return nil
	})
	return err
}

func (b *backend) Drop(ctx context.Context, sid string) error {
	return b.client.Del(ctx, b.key(sid)).Err()
}
