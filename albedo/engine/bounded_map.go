package engine

// boundedMap is a map that holds at most limit entries: adding one past
// that forgets the entry added longest ago. It is not safe for concurrent
// use; its owner locks.
type boundedMap[K comparable, V any] struct {
	limit   int
	entries map[K]V
	// order lists the keys of entries, oldest first.
	order []K
}

// newBoundedMap returns an empty map of at most limit entries.
func newBoundedMap[K comparable, V any](limit int) *boundedMap[K, V] {
	return &boundedMap[K, V]{limit: limit, entries: make(map[K]V)}
}

// get returns the value kept for k.
func (b *boundedMap[K, V]) get(k K) (V, bool) {
	v, ok := b.entries[k]
	return v, ok
}

// put adds or replaces the value of k; a new key past the limit forgets
// the oldest.
func (b *boundedMap[K, V]) put(k K, v V) {
	if _, ok := b.entries[k]; !ok {
		b.order = append(b.order, k)
	}
	b.entries[k] = v
	for len(b.order) > b.limit {
		delete(b.entries, b.order[0])
		b.order = b.order[1:]
	}
}

// remove forgets k, if it is kept.
func (b *boundedMap[K, V]) remove(k K) { b.removeIf(func(x K) bool { return x == k }) }

// removeIf forgets every key for which drop is true.
func (b *boundedMap[K, V]) removeIf(drop func(K) bool) {
	kept := b.order[:0]
	for _, k := range b.order {
		if drop(k) {
			delete(b.entries, k)
			continue
		}
		kept = append(kept, k)
	}
	b.order = kept
}
