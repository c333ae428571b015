// Command regress re-runs the golden manifests of results/golden/ and fails
// (exit status 1) when a bound moved by more than the tolerance, a row
// appeared or disappeared, or a bound crossed an exact value. See package
// regress. `make regress` runs it; `make golden` (-update) rewrites the
// golden files, which must then be reviewed before they are committed.
//
// Usage:
//
//	go run ./scripts/regress [-golden results/golden] [-tol 1e-6] [-jobs 2] [-update]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"

	"github.com/pbuckets/pbuckets/regress"
)

func main() {
	golden := flag.String("golden", "results/golden", "golden folder")
	tol := flag.Float64("tol", regress.DefaultTolerance, "accepted relative change of a bound")
	jobs := flag.Int("jobs", 2, "parallel jobs")
	update := flag.Bool("update", false, "rewrite the golden CSV files from a fresh run (review them before committing)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	if *update {
		files, err := regress.Update(ctx, *golden, *jobs)
		if err != nil {
			fmt.Fprintln(os.Stderr, "regress:", err)
			os.Exit(2)
		}
		for _, f := range files {
			fmt.Println("wrote", f)
		}
		return
	}
	vs, err := regress.Check(ctx, regress.Options{Golden: *golden, Tolerance: *tol, Jobs: *jobs})
	if err != nil {
		fmt.Fprintln(os.Stderr, "regress:", err)
		os.Exit(2)
	}
	for _, v := range vs {
		fmt.Fprintln(os.Stderr, "REGRESSION", v)
	}
	if len(vs) > 0 {
		fmt.Fprintf(os.Stderr, "regress: %d violations (tolerance %g relative) in %.1f s\n", len(vs), *tol, time.Since(start).Seconds())
		os.Exit(1)
	}
	fmt.Printf("regress: golden bounds reproduced within %g (relative), no bound crosses an exact value (%.1f s)\n", *tol, time.Since(start).Seconds())
}
