package mcpconn

import "sync"

// ResultBudget: see composition.ResultBudget, which documents it for users.
type ResultBudget struct {
	capacity int64

	mu      sync.Mutex
	used    int64
	peak    int64
	waiting int
	grants  int
	changed chan struct{} // closed and replaced at each release
}

// NewResultBudget: see composition.NewResultBudget.
func NewResultBudget(bytes int64) *ResultBudget {
	if bytes <= 0 {
		bytes = DefaultMaxResponseBytes
	}
	return &ResultBudget{capacity: bytes, changed: make(chan struct{})}
}

// Capacity is the budget's size in bytes.
func (b *ResultBudget) Capacity() int64 { return b.capacity }

// Peak is the most bytes that were reserved at once.
func (b *ResultBudget) Peak() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.peak
}

// Waiting is how many reservations wait for room now.
func (b *ResultBudget) Waiting() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.waiting
}

// Reserve reserves n bytes of b (at most its capacity, so one larger
// value passes alone), waiting for room until done is closed, and returns
// the bytes reserved: 0 when done closed first (or n <= 0). It is acquire
// for composition's held HTTP results (composition.WithHeldBudget); give
// the bytes back with Release.
func Reserve(b *ResultBudget, n int64, done <-chan struct{}) int64 {
	if n <= 0 {
		return 0
	}
	return b.acquire(n, done)
}

// Release gives back n bytes reserved with Reserve; a nil b does nothing.
func Release(b *ResultBudget, n int64) { b.release(n) }

// budgetState is a snapshot of a budget's accounting, for tests.
type budgetState struct {
	used, peak      int64
	waiting, grants int
}

// state returns the budget's accounting.
func (b *ResultBudget) state() budgetState {
	b.mu.Lock()
	defer b.mu.Unlock()
	return budgetState{used: b.used, peak: b.peak, waiting: b.waiting, grants: b.grants}
}

// acquire reserves n bytes (at most the capacity), waiting for room until
// done is closed; it returns the bytes reserved, 0 when done closed first.
func (b *ResultBudget) acquire(n int64, done <-chan struct{}) int64 {
	n = min(n, b.capacity)
	b.mu.Lock()
	for b.used+n > b.capacity {
		ch := b.changed
		b.waiting++
		b.mu.Unlock()
		select {
		case <-ch:
		case <-done:
			b.mu.Lock()
			b.waiting--
			b.mu.Unlock()
			return 0
		}
		b.mu.Lock()
		b.waiting--
	}
	b.used += n
	b.peak = max(b.peak, b.used)
	b.grants++
	b.mu.Unlock()
	return n
}

// release gives back n reserved bytes; a nil budget does nothing.
func (b *ResultBudget) release(n int64) {
	if b == nil || n <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used -= n
	close(b.changed)
	b.changed = make(chan struct{})
}

// WithResultBudget: see composition.WithResultBudget.
func WithResultBudget(b *ResultBudget) Option {
	return Option{func(c *config) { c.resultBudget = b }}
}
