package maxwell

import "sync"

// safeGroup is a sync.WaitGroup whose goroutines' panics are not lost: the
// first is caught and raised again by Wait, on the waiting goroutine, so
// that a caller's recover (gpuisa's last line of defence) sees it instead of
// the process dying with a stack trace.
type safeGroup struct {
	wg    sync.WaitGroup
	mu    sync.Mutex
	panic any
}

// Go runs f in a goroutine of the group.
func (g *safeGroup) Go(f func()) {
	g.wg.Go(func() {
		defer func() {
			if v := recover(); v != nil {
				g.mu.Lock()
				if g.panic == nil {
					g.panic = v
				}
				g.mu.Unlock()
			}
		}()
		f()
	})
}

// Wait waits for the group and panics with the first panic of its
// goroutines.
func (g *safeGroup) Wait() {
	g.wg.Wait()
	if g.panic != nil {
		panic(g.panic)
	}
}
