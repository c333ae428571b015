package manifest_test

import (
	"fmt"

	"github.com/pbuckets/pbuckets/pipeline/manifest"
)

// A DP-SGD schedule as a [[sequence]]: a warm-up with more noise, then the
// main phase, swept over the main phase's noise. The mechanisms used as
// parts are not instances of their own; each instance of the sequence holds
// its parts' parameters as "<part id>.<parameter>".
func ExampleMechanismSpec_ResolvedParts() {
	m, err := manifest.Parse("schedule.toml", []byte(`
name = "schedule"
[[mechanism]]
id = "warmup"
kind = "sgd"
sigma = 2.0
q = 0.01
[[mechanism]]
id = "main"
kind = "sgd"
sigma = 1.1
q = 0.01
[[sequence]]
id = "run"
parts = [
  { mechanism = "warmup", count = 1000 },
  { mechanism = "main", count = 9000 },
]
[query]
compositions = [1]
delta = [1e-5]
[sweep]
"main.sigma" = [1.0, 1.1]
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, in := range m.Instances() {
		fmt.Printf("%s (%d observations):", in.Label, in.Spec.Observations())
		for _, p := range in.Spec.ResolvedParts() {
			fmt.Printf(" %s x %d (sigma %g)", p.Mechanism.ID, p.Count, p.Mechanism.Params["sigma"])
		}
		fmt.Println()
	}
	// Output:
	// run[main.sigma=1] (10000 observations): warmup x 1000 (sigma 2) main x 9000 (sigma 1)
	// run[main.sigma=1.1] (10000 observations): warmup x 1000 (sigma 2) main x 9000 (sigma 1.1)
}
