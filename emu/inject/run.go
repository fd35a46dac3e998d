package inject

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Options say how to run a campaign, not what it is: none of them changes
// a result.
type Options struct {
	// Shard i of Shards: the injections whose id is i modulo Shards.
	Shard, Shards int
	// Workers run injections in parallel (0: every core).
	Workers int
	// Full runs every injection from the start, without checkpoints or
	// early stops (to measure what checkpoints save).
	Full bool
	// Results is the results file: injections found in it are not run
	// again (resume), new ones are appended as they finish, and at the
	// end it is rewritten sorted by id. "" keeps results in memory.
	Results string
	// Progress, when not nil, gets a line every ProgressEvery.
	Progress      io.Writer
	ProgressEvery time.Duration
	// Only, when not nil, restricts the run to these ids (replay).
	Only []int
	// Trace, with TraceWindow, prints the instructions around each fault.
	Trace       io.Writer
	TraceWindow int
}

// ShardIDs lists the ids of a shard.
func ShardIDs(total, shard, shards int) []int {
	var ids []int
	for id := shard; id < total; id += shards {
		ids = append(ids, id)
	}
	return ids
}

// task is a worker's unit: injections run with checkpoints (sorted; a
// permanent fault forks where it first changes a value), or one
// injection run whole (-full, shaders).
type task struct {
	chunk []*injection
	whole *injection
}

// Run runs a campaign's shard (the golden run g from Profile) and returns
// its records, sorted by id.
func Run(ld *Loaded, g *Golden, opt Options) ([]Record, error) {
	if opt.Shards <= 0 {
		opt.Shards = 1
	}
	if opt.Shard < 0 || opt.Shard >= opt.Shards {
		return nil, fmt.Errorf("shard %d/%d: want 0 <= i < N", opt.Shard, opt.Shards)
	}
	ids := opt.Only
	if ids == nil {
		ids = ShardIDs(ld.Total(), opt.Shard, opt.Shards)
	}
	var done []Record
	if opt.Results != "" {
		prev, err := ReadFile(opt.Results)
		if err != nil {
			return nil, err
		}
		mine := map[int]bool{}
		for _, id := range ids {
			mine[id] = true
		}
		for _, r := range prev {
			if r.Campaign != ld.Hash {
				return nil, fmt.Errorf("%s holds results of campaign %s, not %s (another campaign, or its inputs changed): move it away",
					opt.Results, r.Campaign, ld.Hash)
			}
			if mine[r.ID] {
				done = append(done, r)
			}
		}
	}
	finished := map[int]bool{}
	for _, r := range done {
		finished[r.ID] = true
	}
	var chunkable []*injection
	var tasks []task
	var immediate []Record
	for _, id := range ids {
		if finished[id] {
			continue
		}
		inj := ld.draw(g, id)
		switch {
		case inj.noSite:
			e := inj.e
			immediate = append(immediate, Record{Campaign: ld.Hash, ID: id, Of: ld.Total(), Exp: e.Name, Model: e.Model,
				Group: e.Group, WarpWide: e.Warp, Lane: -1, Bit: -1, Outcome: NoSite,
				Detail: "no dynamic instruction matches the experiment's selection"})
		case opt.Full || ld.shader != nil:
			tasks = append(tasks, task{whole: inj})
		default:
			chunkable = append(chunkable, inj)
		}
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	slices.SortFunc(chunkable, func(a, b *injection) int {
		if before(a, b) {
			return -1
		}
		if before(b, a) {
			return 1
		}
		return 0
	})
	size := min(256, max(16, len(chunkable)/(4*workers)))
	for i := 0; i < len(chunkable); i += size {
		tasks = append(tasks, task{chunk: chunkable[i:min(i+size, len(chunkable))]})
	}
	// the results, appended as they come
	var journal *os.File
	if opt.Results != "" {
		f, err := os.OpenFile(opt.Results, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, err
		}
		journal = f
		defer f.Close()
	}
	pr := newProgress(len(ids), len(done), opt)
	for _, r := range done {
		pr.count(r.Outcome)
	}
	var mu sync.Mutex
	records := append([]Record(nil), done...)
	add := func(r Record) error {
		mu.Lock()
		defer mu.Unlock()
		records = append(records, r)
		pr.count(r.Outcome)
		if journal != nil {
			if _, err := journal.Write(r.line()); err != nil {
				return err
			}
		}
		return nil
	}
	for _, r := range immediate {
		if err := add(r); err != nil {
			return nil, err
		}
	}
	stop := pr.start()
	err := runTasks(ld, g, tasks, workers, opt, add)
	stop()
	if err != nil {
		return nil, err
	}
	slices.SortFunc(records, func(a, b Record) int { return a.ID - b.ID })
	if opt.Results != "" {
		journal.Close()
		if err := writeFileAtomic(opt.Results, records); err != nil {
			return nil, err
		}
	}
	return records, nil
}

// runTasks runs tasks on workers, each with a machine of its own.
func runTasks(ld *Loaded, g *Golden, tasks []task, workers int, opt Options, add func(Record) error) error {
	ch := make(chan task)
	var wg sync.WaitGroup
	var firstErr atomic.Value
	fail := func(err error) { firstErr.CompareAndSwap(nil, err) }
	for range min(workers, max(1, len(tasks))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := newMachine(ld)
			m.use(g)
			m.full = opt.Full
			m.trace, m.traceWindow = opt.Trace, opt.TraceWindow
			for t := range ch {
				if firstErr.Load() != nil {
					continue
				}
				if err := m.runTask(t, add); err != nil {
					fail(err)
				}
			}
		}()
	}
	for _, t := range tasks {
		ch <- t
	}
	close(ch)
	wg.Wait()
	if err, _ := firstErr.Load().(error); err != nil {
		return err
	}
	return nil
}

// runTask runs one task, turning a broken invariant into an error.
func (m *machine) runTask(t task, add func(Record) error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			inv, ok := v.(invariantError)
			if !ok {
				panic(v)
			}
			err = fmt.Errorf("internal error: %v", inv)
		}
	}()
	emit := func(inj *injection) {
		if e := add(inj.rec); e != nil && err == nil {
			err = e
		}
	}
	if t.whole != nil && m.ld.shader != nil {
		_ = m.runShader(t.whole)
		emit(t.whole)
		return err
	}
	if t.whole != nil {
		if err := m.runWhole(t.whole); err != nil {
			return err
		}
		emit(t.whole)
		return err
	}
	if e := m.runChunk(t.chunk, emit); e != nil {
		return e
	}
	return err
}

// progress prints how far a campaign is.
type progress struct {
	mu       sync.Mutex
	total    int
	done     int
	resumed  int
	counts   map[string]int
	began    time.Time
	w        io.Writer
	interval time.Duration
}

func newProgress(total, resumed int, opt Options) *progress {
	every := opt.ProgressEvery
	if every <= 0 {
		every = time.Second
	}
	return &progress{total: total, resumed: resumed, counts: map[string]int{}, w: opt.Progress, interval: every}
}

func (p *progress) count(outcome string) {
	p.mu.Lock()
	p.done++
	p.counts[outcome]++
	p.mu.Unlock()
}

func (p *progress) start() func() {
	p.began = time.Now()
	if p.w == nil {
		return func() {}
	}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(p.interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				p.print()
			case <-quit:
				p.print()
				return
			}
		}
	}()
	return func() { close(quit); wg.Wait() }
}

func (p *progress) print() {
	p.mu.Lock()
	defer p.mu.Unlock()
	el := time.Since(p.began).Seconds()
	ran := p.done - p.resumed
	rate := 0.0
	if el > 0 {
		rate = float64(ran) / el
	}
	eta := "-"
	if rate > 0 {
		eta = (time.Duration(float64(p.total-p.done)/rate) * time.Second).Round(time.Second).String()
	}
	fmt.Fprintf(p.w, "inject: %d/%d (%.1f%%), %.1f/s, ETA %s; Masked %d SDC %d DUE %d Hang %d\n", p.done, p.total,
		100*float64(p.done)/float64(max(1, p.total)), rate, eta, p.counts[Masked], p.counts[SDC], p.counts[DUE], p.counts[Hang])
}
