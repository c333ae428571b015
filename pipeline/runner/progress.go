package runner

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"
)

// Progress draws a one-line status (tasks done/total, elapsed time, the
// task running) on a terminal. A nil *Progress does nothing.
type Progress struct {
	w        io.Writer
	interval time.Duration

	mu      sync.Mutex
	total   int
	done    int
	start   time.Time
	running map[int]*runningJob
	stop    chan struct{}
	stopped chan struct{}
}

type runningJob struct {
	label       string
	since       time.Time
	step, steps int
	// round, size and unit: the round of an accuracy target (0 without
	// one), its size and unit ("buckets" or "points", methods.Job.Round).
	round, size int
	unit        string
}

// NewProgress returns a Progress drawing on w (normally a terminal).
func NewProgress(w io.Writer) *Progress {
	return &Progress{w: w, interval: 250 * time.Millisecond, running: map[int]*runningJob{}}
}

func (p *Progress) begin(total int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.total, p.start = total, time.Now()
	p.stop, p.stopped = make(chan struct{}), make(chan struct{})
	p.mu.Unlock()
	go func() {
		defer close(p.stopped)
		t := time.NewTicker(p.interval)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				p.draw(true)
				return
			case <-t.C:
				p.draw(false)
			}
		}
	}()
}

func (p *Progress) end() {
	if p == nil || p.stop == nil {
		return
	}
	close(p.stop)
	<-p.stopped
}

func (p *Progress) jobStarted(id int, label string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running[id] = &runningJob{label: label, since: time.Now()}
}

func (p *Progress) jobStep(id, step, steps int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if j := p.running[id]; j != nil {
		j.step, j.steps = step, steps
	}
}

// jobRound records that job id started round round of an accuracy target
// with the given size and unit; its steps start again.
func (p *Progress) jobRound(id, round, size int, unit string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if j := p.running[id]; j != nil {
		j.round, j.size, j.unit, j.step, j.steps = round, size, unit, 0, 0
	}
}

func (p *Progress) jobDone(id, tasks int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.running, id)
	p.done += tasks
}

func (p *Progress) draw(final bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	elapsed := time.Since(p.start).Round(time.Second)
	line := fmt.Sprintf("[%d/%d tasks] %s", p.done, p.total, elapsed)
	ids := make([]int, 0, len(p.running))
	for id := range p.running {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	if len(ids) > 0 {
		j := p.running[ids[0]]
		line += "  running: " + j.label
		if j.round > 0 {
			line += fmt.Sprintf(" (round %d, %d %s)", j.round, j.size, j.unit)
		}
		if j.steps > 0 {
			line += fmt.Sprintf(" (step %d/%d)", j.step, j.steps)
		}
		if len(ids) > 1 {
			line += fmt.Sprintf(" +%d more", len(ids)-1)
		}
	}
	if len(line) > 160 {
		line = line[:157] + "..."
	}
	end := ""
	if final {
		end = "\n"
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s%s", strings.TrimSpace(line), end)
}
