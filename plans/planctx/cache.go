package planctx

import (
	"encoding/json"
	"sync"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/plans"
)

// maxCached is how many contexts of one HEAD a Cache keeps: each intent is a key of its own, so an
// agent asking many things would otherwise grow it without end (a full cache starts again).
const maxCached = 64

// Cache keeps planning contexts' JSON for one HEAD, by options and policy: the same request asked
// again (an agent's second context call, a scope checked at validate and again at submit) is
// answered without reading the model, until HEAD moves (a new HEAD empties it). One Cache serves
// every caller of a long-running process; its zero value is ready.
type Cache struct {
	mu       sync.Mutex
	head     string            // the HEAD the contexts are of
	contexts map[string][]byte // options and policy -> the context's JSON
}

// JSON is the context's JSON of the model at head for these options and policy, built from the
// model load returns when not cached. load says which commit it read: a context is kept only when
// that is head (HEAD may move between reading it and reading the model). An empty head caches
// nothing.
func (c *Cache) JSON(head string, o ContextOptions, policy plans.Policy, load func() (*archixml.Model, string, error)) ([]byte, error) {
	key := ""
	if head != "" {
		k, _ := json.Marshal(struct {
			Options ContextOptions
			Policy  plans.Policy
		}{o, policy})
		key = string(k)
		c.mu.Lock()
		if c.head != head || c.contexts == nil {
			c.head, c.contexts = head, map[string][]byte{}
		}
		data, ok := c.contexts[key]
		c.mu.Unlock()
		if ok {
			return data, nil
		}
	}
	m, commit, err := load()
	if err != nil {
		return nil, err
	}
	built, err := BuildContext(m, o, policy)
	if err != nil {
		return nil, err
	}
	data := built.JSON()
	c.mu.Lock()
	if key != "" && c.head == commit {
		if len(c.contexts) >= maxCached {
			c.contexts = map[string][]byte{}
		}
		c.contexts[key] = data
	}
	c.mu.Unlock()
	return data, nil
}
