package methods

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/states"
)

// TestBucketsCacheWrite checks the cache writes that run beside the
// queries: the outcomes come with the states stored (a second run finds
// them), and a cache that cannot be written fails the job with
// "caching state" instead of being lost silently.
func TestBucketsCacheWrite(t *testing.T) {
	spec := manifest.MechanismSpec{Kind: manifest.KindGauss, Params: map[string]float64{"sigma": 5, "sensitivity": 1},
		Engine: manifest.EngineOptions{Buckets: 2000, ErrorCorrection: true}}
	job := Job{Instance: &manifest.Instance{Label: "g", Spec: spec}, Compositions: []int{1, 8}, Eps: []float64{0.1}, Delta: []float64{1e-4}}
	dir := t.TempDir()
	bm := &Buckets{States: &states.Service{Backend: backend.Engine{}, Dir: dir, Memory: states.NewBudget(1 << 40)}}
	first, err := bm.Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	second, err := bm.Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	for i := range first {
		if first[i].Cached || !second[i].Cached {
			t.Errorf("r=%d: cached %v then %v, want false then true", first[i].R, first[i].Cached, second[i].Cached)
		}
		if first[i].Eps[0] != second[i].Eps[0] || first[i].Delta[0] != second[i].Delta[0] {
			t.Errorf("r=%d: cached outcome %+v differs from computed %+v", first[i].R, second[i], first[i])
		}
	}

	blocked := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocked, []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	bm.States.Dir = filepath.Join(blocked, "cache")
	if _, err := bm.Run(context.Background(), job); err == nil || !strings.Contains(err.Error(), "caching state") {
		t.Errorf("Run with an unwritable cache: error %v, want one about caching state", err)
	}
}
