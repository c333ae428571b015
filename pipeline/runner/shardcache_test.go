package runner

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbuckets/pbuckets/pipeline/backend"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/pipelinetest"
)

// shardManifest's chain has a small r (4 <= 1024/64) that gives the
// engine's shared early levels a saddle tilt of its own (a target of
// engine.ComposeMany), so a state's bits depend on whether 4 was in the
// call that composed it.
const shardManifest = `name = "shc"
[engine]
buckets = 2000
[[mechanism]]
id = "sgd"
kind = "sgd"
sigma = 1.1
q = 0.01
[query]
compositions = [4, 64, 1024]
e_eps = [1.5, 3.0]
delta = [1e-5, 1e-8]
`

// TestShardedCacheGivesFreshBits checks issue 20 item 4: states cached by
// a related manifest and by a sharded run (each shard composes its slice
// of the r) must not change the numbers of a later unsharded run in the
// same folder: every number bitwise as a fresh unsharded run elsewhere,
// whoever wrote the cache.
func TestShardedCacheGivesFreshBits(t *testing.T) {
	dir := t.TempDir()
	m := pipelinetest.LoadManifest(t, dir, "shc.toml", shardManifest)
	fresh := filepath.Join(dir, "fresh")
	if _, err := (&Runner{Backend: backend.Engine{}, Out: fresh, Jobs: 1}).Run(context.Background(), []*manifest.Manifest{m}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	// a related manifest (the same mechanism, without r = 4) writes its
	// states into the same cache first
	other := pipelinetest.LoadManifest(t, dir, "shc2.toml", strings.Replace(strings.Replace(shardManifest, "[4, 64, 1024]", "[64, 1024]", 1), `name = "shc"`, `name = "shc2"`, 1))
	if _, err := (&Runner{Backend: backend.Engine{}, Out: out, Jobs: 1}).Run(context.Background(), []*manifest.Manifest{other}); err != nil {
		t.Fatal(err)
	}
	// 3 tasks (one mechanism, one method, three r): shard i of 3 composes r
	// number i (with the largest r for the factor), 2 and 3 without r = 4.
	for i := 3; i >= 2; i-- {
		if _, err := (&Runner{Backend: backend.Engine{}, Out: out, Jobs: 1, Shard: Shard{Index: i, Count: 3}}).Run(context.Background(), []*manifest.Manifest{m}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := (&Runner{Backend: backend.Engine{}, Out: out, Jobs: 1}).Run(context.Background(), []*manifest.Manifest{m}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"delta", "epsilon"} {
		pipelinetest.FramesEqual(t, pipelinetest.ReadFrame(t, filepath.Join(fresh, "shc", name+".parquet")),
			pipelinetest.ReadFrame(t, filepath.Join(out, "shc", name+".parquet")), "seconds", "cached")
	}
}
