package query

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
)

func parse(t *testing.T, mech, methods string) *manifest.Manifest {
	t.Helper()
	doc := "name = \"q\"\n[engine]\nbuckets = 2000\n[[mechanism]]\nid = \"m\"\n" + mech +
		"\n[query]\ncompositions = [4, 8]\ndelta = [1e-5]\nmethods = " + methods + "\n"
	m, err := manifest.Parse("q.toml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestAsk checks the answers of Ask: one outcome per method and r, and
// the methods that do not apply as notes, in order.
func TestAsk(t *testing.T) {
	cases := []struct {
		name, mech, methods string
		outcomes            int
		notes               []string
	}{
		{"gauss", "kind = \"gauss\"\nsigma = 2", `["buckets", "rdp"]`, 4, nil},
		{"sgd exact", "kind = \"sgd\"\nsigma = 1\nq = 0.1", `["buckets", "exact"]`, 2, []string{"exact"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := Ask(context.Background(), parse(t, c.mech, c.methods), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Outcomes) != c.outcomes {
				t.Fatalf("%d outcomes, want %d: %+v", len(a.Outcomes), c.outcomes, a.Outcomes)
			}
			for _, o := range a.Outcomes {
				if e := o.Eps[0]; !(e.Upper > 0) || math.IsInf(e.Upper, 0) || e.Lower > e.Upper {
					t.Errorf("%s r=%d: eps in [%v, %v]", o.Method, o.R, e.Lower, e.Upper)
				}
			}
			var notes []string
			for _, p := range a.Problems {
				if p.Failed {
					t.Errorf("%s r=%d failed: %v", p.Method, p.R, p.Err)
				}
				notes = append(notes, p.Method)
			}
			if len(notes) != len(c.notes) || len(notes) > 0 && notes[0] != c.notes[0] {
				t.Errorf("notes %v, want %v", notes, c.notes)
			}
		})
	}
}

// TestAskUsesParsedMechanism checks that Ask hands the methods the
// mechanism manifest.Parse built (one build per question).
func TestAskUsesParsedMechanism(t *testing.T) {
	m := parse(t, "kind = \"gauss\"\nsigma = 2", `["buckets"]`)
	built, ok := m.Built(m.Instances()[0])
	if !ok {
		t.Fatal("Parse kept no mechanism")
	}
	a, err := Ask(context.Background(), m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a.Job.Mechanism != backend.Mechanism(built) {
		t.Errorf("the job's mechanism %v is not the one Parse built", a.Job.Mechanism)
	}
}

// TestAskRefuses checks the refusals before any work, each naming its
// setting.
func TestAskRefuses(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		opt  Options
		key  string
	}{
		{"cache not a folder", Options{CacheDir: filepath.Join(file, "cache")}, "cache"},
		{"memory", Options{Budget: 1024}, "memory"},
	}
	m := parse(t, "kind = \"gauss\"\nsigma = 2", `["buckets"]`)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Ask(context.Background(), m, c.opt)
			var qe *Error
			if !errors.As(err, &qe) || qe.Key != c.key {
				t.Fatalf("error %v, want an *Error for %s", err, c.key)
			}
		})
	}
}

// TestRoundedValue checks the rounding of a calibration's noise: up for
// the answer, down for the insufficient noise, never on the wrong side.
func TestRoundedValue(t *testing.T) {
	cases := []struct {
		v      float64
		digits int
		up     bool
		want   float64
	}{
		{1.52301, 3, true, 1.53},
		{1.52301, 3, false, 1.52},
		{1.5, 3, true, 1.5},
		{4123.4, 3, true, 4130},
	}
	for _, c := range cases {
		if got := roundedValue(c.v, c.digits, c.up); got != c.want {
			t.Errorf("roundedValue(%v, %d, %v) = %v, want %v", c.v, c.digits, c.up, got, c.want)
		}
	}
}

// TestAskCallsBeforeComposeToCompose checks that Options.BeforeCompose is
// called once for a question that composes, and not for one answered
// from the cache or by a closed form.
func TestAskCallsBeforeComposeToCompose(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, methods string
		want          int
	}{
		{"composed", `["buckets", "rdp"]`, 1},
		{"cached", `["buckets"]`, 0},
		{"closed form", `["rdp"]`, 0},
	} {
		calls := 0
		opt := Options{CacheDir: dir, BeforeCompose: func() { calls++ }}
		if _, err := Ask(context.Background(), parse(t, "kind = \"gauss\"\nsigma = 2", c.methods), opt); err != nil {
			t.Fatal(err)
		}
		if calls != c.want {
			t.Errorf("%s: BeforeCompose called %d times, want %d", c.name, calls, c.want)
		}
	}
}
