// Package redisstore keeps a server's sessions and their state in Redis,
// so that every replica of the server holds every session any of them
// made: a round-robin balancer then needs no affinity, and a replica that
// dies loses nothing.
//
//	client := redis.NewClient(&redis.Options{Addr: os.Getenv("MCPDOOR_REDIS_ADDR")})
//	cfg.Store = redisstore.New(client, "weather")
//
// Each session is one Redis hash, at key "<prefix>:session:<sid>": a
// marker that the session is held, when its expiry was last pushed out,
// and each value session.Save saved, as JSON. Every key has an expiry:
// a session's is pushed out by mcp.session_idle_ttl as it is used (at
// most once per eighth of it), and Redis drops an idle session by itself.
// An ended session's hash is replaced by a short string key, which no
// write can turn back into a session, for as long as a call that was
// running may still try. Run Redis with a volatile-* eviction policy
// (docs/replicas.md). The package is a module of its own,
// github.com/mcpdoor/mcpdoor/session/redisstore, so that a server
// without Redis has no go-redis in its build.
package redisstore

import (
	"context"
	"crypto/rand"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpdoor/mcpdoor/session"
)

// New returns a store in Redis, reached through client, its keys under
// prefix (say, the server's name; "" is "mcpdoor"), so that servers can
// share one Redis without sharing sessions. Every replica of a server must
// use the same Redis and prefix. The store does not close client.
func New(client redis.UniversalClient, prefix string) session.Store {
	if prefix == "" {
		prefix = "mcpdoor"
	}
	return &backend{client: client, prefix: prefix + ":session:", now: time.Now}
}

// defaultIdle is the idle TTL of a session when a call gives none (0), as
// in the memory store: mcp.session_idle_ttl's default.
const defaultIdle = time.Hour

// backend is the session.Store in Redis. Each method is one round trip
// (an Open that creates, two): one command, or one script where a method
// must read before it writes. In steady state a request's Open is one
// HMGET; the scripts run once per session (a creating Open, End), for a
// Swap, and to push a session's expiry out (at most once per eighth of
// its idle TTL).
type backend struct {
	client redis.UniversalClient
	prefix string
	now    func() time.Time
}

// The fields of a session's hash: values are under valuePrefix, so that no
// key of session.Save can be taken for one of the others.
const (
	heldField    = "held" // "1": the hash is a held session
	touchedField = "t"    // when its expiry was last pushed out, in Unix ms
	valuePrefix  = "v:"
	// A list's records are fields "l:<list>:<seq>" (see seq), and its
	// count the field "l:<list>:#": in the session's own hash, they go
	// with it.
	listPrefix = "l:"
	countField = "#"
	endedValue = "ended" // an ended session's string key
)

func (b *backend) key(sid string) string { return b.prefix + sid }

func ms(d time.Duration) int64 { return max(d.Milliseconds(), 1) }

func idleOf(d time.Duration) time.Duration {
	if d <= 0 {
		return defaultIdle
	}
	return d
}

// wrongType reports whether err is Redis's answer to a command on a key of
// another type: the session's key is an ended session's string.
func wrongType(err error) bool { return err != nil && strings.HasPrefix(err.Error(), "WRONGTYPE") }

func (b *backend) Open(ctx context.Context, sid string, keys []string, idle time.Duration, create bool) (map[string][]byte, bool, error) {
	idle = idleOf(idle)
	key := b.key(sid)
	held := true
	if create {
		n, err := createScript.Run(ctx, b.client, []string{key}, ms(idle), b.now().UnixMilli()).Int()
		switch {
		case err != nil:
			return nil, false, err
		case n < 0:
			return nil, false, session.ErrEnded
		case len(keys) == 0:
			return nil, n == 0, nil
		}
		held = n == 0
	}
	fields := make([]string, 0, 2+len(keys))
	fields = append(fields, heldField, touchedField)
	for _, k := range keys {
		fields = append(fields, valuePrefix+k)
	}
	got, err := b.client.HMGet(ctx, key, fields...).Result()
	switch {
	case wrongType(err):
		return nil, false, session.ErrEnded
	case err != nil:
		return nil, false, err
	case got[0] == nil:
		return nil, false, nil
	}
	var values map[string][]byte
	for i, k := range keys {
		if v, ok := got[2+i].(string); ok {
			if values == nil {
				values = make(map[string][]byte, len(keys))
			}
			values[k] = []byte(v)
		}
	}
	touched, _ := got[1].(string)
	if last, err := strconv.ParseInt(touched, 10, 64); err != nil || b.now().Sub(time.UnixMilli(last)) > idle/8 {
		if err := touchScript.Run(ctx, b.client, []string{key}, ms(idle), b.now().UnixMilli()).Err(); err != nil {
			return nil, false, err
		}
	}
	return values, held, nil
}

func (b *backend) Save(ctx context.Context, sid, k string, value []byte, idle time.Duration, create bool) error {
	key := b.key(sid)
	if create {
		n, err := saveScript.Run(ctx, b.client, []string{key}, valuePrefix+k, value, ms(idleOf(idle)), b.now().UnixMilli()).Int()
		if err == nil && n < 0 {
			err = session.ErrEnded
		}
		return err
	}
	// One HSET of the marker beside the value: when both fields are new,
	// the session had gone (idle, evicted) between the request's Open and
	// this save, and the HSET made a hash without an expiry, which is
	// taken back.
	n, err := b.client.HSet(ctx, key, heldField, "1", valuePrefix+k, value).Result()
	switch {
	case wrongType(err):
		return session.ErrEnded
	case err != nil:
		return err
	case n == 2:
		if err := unmadeScript.Run(ctx, b.client, []string{key}).Err(); err != nil {
			return err
		}
		return session.ErrEnded
	}
	return nil
}

func (b *backend) Swap(ctx context.Context, sid, k string, old, value []byte, idle time.Duration, create bool) (bool, []byte, error) {
	expect := ""
	if old != nil {
		sum := sha1.Sum(old)
		expect = hex.EncodeToString(sum[:])
	}
	mayCreate := "0"
	if create {
		mayCreate = "1"
	}
	res, err := swapScript.Run(ctx, b.client, []string{b.key(sid)}, valuePrefix+k, expect, value, mayCreate, ms(idleOf(idle)), b.now().UnixMilli()).Slice()
	if err != nil {
		return false, nil, err
	}
	n, _ := res[0].(int64)
	switch n {
	case 1:
		return true, nil, nil
	case 0:
		var cur []byte
		if len(res) > 1 {
			if s, ok := res[1].(string); ok {
				cur = []byte(s)
			}
		}
		return false, cur, nil
	case -1, -2:
		return false, nil, session.ErrEnded
	}
	return false, nil, fmt.Errorf("mcpdoor: redisstore: unexpected answer %v to a swap", res)
}

func (b *backend) End(ctx context.Context, sid string, keep time.Duration) (bool, error) {
	var keepMS int64
	if keep > 0 {
		keepMS = ms(keep)
	}
	n, err := endScript.Run(ctx, b.client, []string{b.key(sid)}, keepMS).Int()
	return n == 1, err
}

// Append is one round trip of two commands: an HSET of the record beside
// the held marker (both new: the session had gone, and the hash made by
// mistake is taken back), and an HINCRBY of the list's count. Once the
// count passes max by an eighth, trimScript drops the oldest down to max:
// a list holds at most max + max/8 records.
func (b *backend) Append(ctx context.Context, sid, list string, record []byte, max int) error {
	key, prefix := b.key(sid), listPrefix+list+":"
	max = maxOf(max, 1)
	pipe := b.client.Pipeline()
	set := pipe.HSet(ctx, key, heldField, "1", prefix+b.seq(), record)
	count := pipe.HIncrBy(ctx, key, prefix+countField, 1)
	_, err := pipe.Exec(ctx)
	n, serr := set.Result()
	switch {
	case wrongType(serr):
		return session.ErrEnded
	case serr != nil:
		return serr
	case err != nil:
		return err
	case n == 2:
		if err := unmadeScript.Run(ctx, b.client, []string{key}).Err(); err != nil {
			return err
		}
		return session.ErrEnded
	}
	if c := count.Val(); c > int64(max+max/8) {
		return trimScript.Run(ctx, b.client, []string{key}, prefix, max).Err()
	}
	return nil
}

func maxOf(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// seq names a record of a list: in the order records are appended (the
// time, in ns, in 16 hex digits), then 8 random ones, so that replicas
// appending at the same nanosecond name two records.
func (b *backend) seq() string {
	var r [4]byte
	rand.Read(r[:])
	return fmt.Sprintf("%016x%s", b.now().UnixNano(), hex.EncodeToString(r[:]))
}

func (b *backend) List(ctx context.Context, sid, list string) ([][]byte, error) {
	res, err := listScript.Run(ctx, b.client, []string{b.key(sid)}, listPrefix+list+":").Slice()
	if err != nil {
		return nil, err
	}
	if n, ok := res[0].(int64); ok && n < 0 {
		return nil, session.ErrEnded
	}
	var out [][]byte
	for _, r := range res[1:] {
		if s, ok := r.(string); ok {
			out = append(out, []byte(s))
		}
	}
	return out, nil
}

// The scripts: each runs atomically in Redis, its commands counted one
// each beside the EVALSHA.
var (
	// touchScript pushes out the expiry of a held session, and records
	// when (ARGV: idle ms, now ms).
	touchScript = redis.NewScript(`
local held = redis.pcall('HEXISTS', KEYS[1], 'held')
if type(held) ~= 'number' or held == 0 then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[1], 't', ARGV[2])
return 1`)

	// createScript holds a session: 1 made, 0 held already, -1 ended
	// (ARGV: idle ms, now ms).
	createScript = redis.NewScript(`
local n = redis.pcall('HSET', KEYS[1], 'held', '1', 't', ARGV[2])
if type(n) ~= 'number' then return -1 end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
if n == 2 then return 1 end
return 0`)

	// saveScript saves a value, holding the session first if need be:
	// 1 saved, -1 ended (ARGV: field, value, idle ms, now ms). Both fields
	// new: the HSET made the hash, which then gets its expiry.
	saveScript = redis.NewScript(`
local n = redis.pcall('HSET', KEYS[1], 'held', '1', ARGV[1], ARGV[2])
if type(n) ~= 'number' then return -1 end
if n == 2 then
  redis.call('HSET', KEYS[1], 't', ARGV[4])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
return 1`)

	// unmadeScript deletes a session hash that has no expiry: one a save
	// made by mistake.
	unmadeScript = redis.NewScript(`
if redis.call('PTTL', KEYS[1]) == -1 then redis.call('DEL', KEYS[1]) end
return 1`)

	// swapScript sets a value only over the one whose SHA-1 is given (""
	// for none): {1} swapped, {0, current} not, {-1} ended, {-2} not held
	// (ARGV: field, expected SHA-1, value, create "1"/"0", idle ms, now ms).
	swapScript = redis.NewScript(`
local cur = redis.pcall('HMGET', KEYS[1], 'held', ARGV[1])
if cur.err then return {-1} end
if not cur[1] then
  if ARGV[4] ~= '1' then return {-2} end
  if ARGV[2] ~= '' then return {0, false} end
  redis.call('HSET', KEYS[1], 'held', '1', 't', ARGV[6], ARGV[1], ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  return {1}
end
local have = ''
if cur[2] then have = redis.sha1hex(cur[2]) end
if have ~= ARGV[2] then return {0, cur[2]} end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return {1}`)

	// trimScript drops a list's oldest records down to max, and sets its
	// count (ARGV: the list's field prefix, max).
	trimScript = redis.NewScript(`
local fields = redis.call('HKEYS', KEYS[1])
local records = {}
local count = ARGV[1] .. '#'
for _, f in ipairs(fields) do
  if f ~= count and string.sub(f, 1, #ARGV[1]) == ARGV[1] then records[#records + 1] = f end
end
table.sort(records)
local drop = #records - tonumber(ARGV[2])
for i = 1, drop do redis.call('HDEL', KEYS[1], records[i]) end
redis.call('HSET', KEYS[1], count, math.min(#records, tonumber(ARGV[2])))
return 1`)

	// listScript reads a session's list, oldest first: {1, records...},
	// {0} for a session not held, {-1} for an ended one (ARGV: the list's
	// field prefix).
	listScript = redis.NewScript(`
local all = redis.pcall('HGETALL', KEYS[1])
if all.err then return {-1} end
local count = ARGV[1] .. '#'
local names = {}
local values = {}
for i = 1, #all, 2 do
  local f = all[i]
  if f ~= count and string.sub(f, 1, #ARGV[1]) == ARGV[1] then
    names[#names + 1] = f
    values[f] = all[i + 1]
  end
end
if #all == 0 then return {0} end
table.sort(names)
local out = {1}
for _, f in ipairs(names) do out[#out + 1] = values[f] end
return out`)

	// endScript ends a session: its key becomes a string for keep ms (0:
	// it is deleted). 1 it was held, 0 not: absent, or ended already
	// (ARGV: keep ms).
	endScript = redis.NewScript(`
local t = redis.call('TYPE', KEYS[1]).ok
if t == 'string' then return 0 end
if tonumber(ARGV[1]) > 0 then
  redis.call('SET', KEYS[1], 'ended', 'PX', ARGV[1])
else
  redis.call('DEL', KEYS[1])
end
if t == 'hash' then return 1 end
return 0`)
)
