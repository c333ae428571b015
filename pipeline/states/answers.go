package states

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/pbuckets/pbuckets/pipeline/backend"
)

// The answers of a cached state. A state's queries are deterministic
// functions of its bits, and the cache key names everything that fixes
// the bits (Service.Key), so what a state answered once it answers again:
// a state's answers are cached beside it (<key>.answers), as transcripts of
// the calls made on it in one Get (each call, its argument and what it
// returned, in order). A later Get of the state returns a memoState that
// replays a transcript for as long as the calls asked follow it, without
// decoding the state (decoding a 100,000-bucket state and answering an
// eps(delta) query from it cost about 0.1 s of CPU, nine tenths of a
// cached one-line command). At the first call that leaves every
// transcript, the state is decoded (or, if it cannot be, composed again),
// the calls made so far are replayed on it (a query may add notes, which
// depend on the queries before it) and it answers from then on; its new
// transcript is cached with the others. So every answer is the one the
// state itself gives to the same sequence of calls.

// maxTranscripts is the number of transcripts kept per state (the most
// recent ones): each is a question asked of the state (a one-line
// command, a round of an accuracy target, a comparison method's
// single-round samples).
const maxTranscripts = 8

// Ops of a call.
const (
	opDelta   = 'd' // DeltaBounds(eps)
	opEps     = 'e' // EpsBounds(delta)
	opRenyi   = 'r' // RenyiBounds(alpha)
	opTPR     = 't' // TPRBounds(fpr)
	opSummary = 's' // Summary()
	opNotes   = 'n' // Notes()
)

// call is one call on a state: its op, argument (0 for none) and results
// (Summary: buckets, factor and infinity mass; Notes: Notes).
type call struct {
	Op    byte
	Arg   uint64 // float64 bits
	Out   [3]uint64
	Notes []string
	Path  string // Summary: StateSummary.Path ("" in older transcripts)
}

// same reports whether c is a call of op with argument arg.
func (c *call) same(op byte, arg uint64) bool { return c.Op == op && c.Arg == arg }

// answersWire is the encoding of a state's answers.
type answersWire struct {
	Transcripts [][]call
}

// fullState is a state with every query the methods ask (engine states):
// only such states have their answers cached, so that a memoState offers
// no query its state lacks.
type fullState interface {
	backend.State
	Notes() []string
	RenyiBounds(alpha float64) (lower, upper, estimate float64)
	TPRBounds(fpr float64) (lower, upper, mu float64)
}

// decodeAnswers returns the transcripts of data, or nil when data is not
// an encoding of answers.
func decodeAnswers(data []byte) [][]call {
	var w answersWire
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&w); err != nil {
		return nil
	}
	return w.Transcripts
}

// memoState is a state that answers from the transcripts of its earlier
// answers while the calls follow one, else from the state itself (see
// above), and records its own transcript. It is safe for concurrent use.
type memoState struct {
	mu sync.Mutex
	// known are the cached transcripts.
	known [][]call
	// calls is this Get's transcript so far.
	calls []call
	// st answers once a call leaves the transcripts (nil until then);
	// load returns it (the cached state decoded, or composed again), once.
	st      fullState
	load    func() (fullState, error)
	loadErr error
	// stored is set once the transcript is written (Result.Stored).
	stored bool
}

// answer returns the results of the call (op, arg): from a known
// transcript that the calls so far and this one follow, else from the
// state (loaded and brought up to the calls so far on the first such
// call) by live. It records the call.
func (m *memoState) answer(op byte, arg float64, live func(st fullState) call) call {
	bits := math.Float64bits(arg)
	m.mu.Lock()
	defer m.mu.Unlock()
	n := len(m.calls)
	if m.st == nil && m.loadErr == nil {
		for _, t := range m.known {
			if len(t) > n && t[n].same(op, bits) && prefixOf(m.calls, t) {
				c := t[n]
				m.calls = append(m.calls, c)
				return c
			}
		}
		m.goLive()
	}
	var c call
	if m.st != nil {
		c = live(m.st)
	} else {
		c = trivial(op, arg)
	}
	c.Op, c.Arg = op, bits
	m.calls = append(m.calls, c)
	return c
}

// goLive loads the state and replays the calls so far on it, so that it
// carries the notes of the queries it answered (their results are those
// of the transcript: the same calls on the same state).
func (m *memoState) goLive() {
	st, err := m.load()
	if err != nil {
		m.loadErr = err
		return
	}
	for _, c := range m.calls {
		arg := math.Float64frombits(c.Arg)
		switch c.Op {
		case opDelta:
			st.DeltaBounds(arg)
		case opEps:
			st.EpsBounds(arg)
		case opRenyi:
			st.RenyiBounds(arg)
		case opTPR:
			st.TPRBounds(arg)
		}
	}
	m.st = st
}

// trivial returns the sound trivial answer of a call when the state could
// not be loaded (Result.Stored reports why): delta_up 1, eps_up +Inf, no
// Renyi or TPR bound, NaN lower bounds.
func trivial(op byte, arg float64) call {
	nan, inf := math.Float64bits(math.NaN()), math.Float64bits(math.Inf(1))
	switch op {
	case opDelta:
		return call{Out: [3]uint64{math.Float64bits(1), nan}}
	case opEps:
		return call{Out: [3]uint64{inf, nan}}
	case opRenyi:
		return call{Out: [3]uint64{nan, inf, nan}}
	case opTPR:
		return call{Out: [3]uint64{nan, math.Float64bits(1), nan}}
	case opSummary:
		return call{Out: [3]uint64{0, nan, nan}}
	}
	return call{}
}

// prefixOf reports whether calls is a prefix of t (ops, arguments).
func prefixOf(calls, t []call) bool {
	if len(calls) > len(t) {
		return false
	}
	for i := range calls {
		if !t[i].same(calls[i].Op, calls[i].Arg) {
			return false
		}
	}
	return true
}

func f64(b uint64) float64 { return math.Float64frombits(b) }

func bits3(a, b, c float64) [3]uint64 {
	return [3]uint64{math.Float64bits(a), math.Float64bits(b), math.Float64bits(c)}
}

func (m *memoState) DeltaBounds(eps float64) (upper, lower float64) {
	c := m.answer(opDelta, eps, func(st fullState) call {
		up, lo := st.DeltaBounds(eps)
		return call{Out: bits3(up, lo, 0)}
	})
	return f64(c.Out[0]), f64(c.Out[1])
}

func (m *memoState) EpsBounds(delta float64) (upper, lower float64) {
	c := m.answer(opEps, delta, func(st fullState) call {
		up, lo := st.EpsBounds(delta)
		return call{Out: bits3(up, lo, 0)}
	})
	return f64(c.Out[0]), f64(c.Out[1])
}

func (m *memoState) RenyiBounds(alpha float64) (lower, upper, estimate float64) {
	c := m.answer(opRenyi, alpha, func(st fullState) call {
		return call{Out: bits3(st.RenyiBounds(alpha))}
	})
	return f64(c.Out[0]), f64(c.Out[1]), f64(c.Out[2])
}

func (m *memoState) TPRBounds(fpr float64) (lower, upper, mu float64) {
	c := m.answer(opTPR, fpr, func(st fullState) call {
		return call{Out: bits3(st.TPRBounds(fpr))}
	})
	return f64(c.Out[0]), f64(c.Out[1]), f64(c.Out[2])
}

func (m *memoState) Summary() backend.StateSummary {
	c := m.answer(opSummary, 0, func(st fullState) call {
		s := st.Summary()
		return call{Out: bits3(float64(s.Buckets), s.Factor, s.InfinityMass), Path: s.Path}
	})
	return backend.StateSummary{Buckets: int(f64(c.Out[0])), Factor: f64(c.Out[1]), InfinityMass: f64(c.Out[2]), Path: c.Path}
}

// Notes returns the state's notes after the calls so far (the backend's
// noter: the composition's notes and those of the queries).
func (m *memoState) Notes() []string {
	c := m.answer(opNotes, 0, func(st fullState) call {
		return call{Notes: st.Notes()}
	})
	return slices.Clone(c.Notes)
}

// MarshalBinary encodes the state (loaded if it is not).
func (m *memoState) MarshalBinary() ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.st == nil && m.loadErr == nil {
		m.goLive()
	}
	if m.loadErr != nil {
		return nil, m.loadErr
	}
	return m.st.MarshalBinary()
}

// transcripts returns the transcripts to cache after this Get (the
// known ones and this one, the most recent maxTranscripts, none a prefix
// of another), whether they differ from the known ones, and the error of
// loading the state, if any. It is called once (Result.Stored).
func (m *memoState) transcripts() (ts [][]call, changed bool, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stored {
		return nil, false, nil
	}
	m.stored = true
	if m.loadErr != nil {
		return nil, false, m.loadErr
	}
	if len(m.calls) == 0 {
		return nil, false, nil
	}
	for _, t := range m.known {
		if prefixOf(m.calls, t) {
			return nil, false, nil // nothing new
		}
	}
	for _, t := range m.known {
		if !prefixOf(t, m.calls) {
			ts = append(ts, t)
		}
	}
	ts = append(ts, slices.Clone(m.calls))
	if len(ts) > maxTranscripts {
		ts = ts[len(ts)-maxTranscripts:]
	}
	return ts, true, nil
}

// encodeAnswers encodes transcripts for the cache.
func encodeAnswers(ts [][]call) ([]byte, error) {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(answersWire{Transcripts: ts}); err != nil {
		return nil, fmt.Errorf("encoding answers: %w", err)
	}
	return buf.Bytes(), nil
}

// errNotFull says that a decoded state does not answer every query of a
// fullState (only full states have cached answers).
var errNotFull = errors.New("the state does not answer every query")
