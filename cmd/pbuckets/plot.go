package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/pbuckets/pbuckets/plots"
)

func cmdPlot(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("plot", "[--out DIR] [--figure ID] [--partial] [--quiet] MANIFEST...", stderr)
	out := fs.String("out", "results", "results folder (--out of pbuckets run): images go to DIR/<name>/<figure id>.{png,svg,pdf}")
	only := fs.String("figure", "", "draw only the figure with this id")
	quiet := fs.Bool("quiet", false, "do not list the files written")
	partial := fs.Bool("partial", false, "draw from an incomplete set too (missing or interrupted parts, failed tasks: curves lack those rows); a mixed set is always refused")
	paths, status, ok := parsePaths(fs, args)
	if !ok {
		return status
	}
	manifests, ok := loadManifests(paths, stderr)
	if !ok {
		return exitUsage
	}
	status = exitOK
	for _, m := range manifests {
		if len(m.Figures) == 0 {
			fmt.Fprintf(stderr, "warning: manifest %s declares no [[figure]]\n", m.File)
			continue
		}
		dir := filepath.Join(*out, m.Name)
		load := plots.Load
		if *partial {
			load = plots.LoadPartial
		}
		res, err := load(dir)
		if err != nil {
			fmt.Fprintf(stderr, "error: manifest %s: %v (run `pbuckets run --out %s %s` first; `pbuckets parts` tells what a set lacks)\n", m.File, err, *out, m.File)
			status = exitFailed
			continue
		}
		for _, n := range res.Notes {
			fmt.Fprintf(stderr, "note: manifest %s: %s\n", m.File, n)
		}
		if res.ManifestHash != m.Hash {
			fmt.Fprintf(stderr, "note: manifest %s: the results in %s were computed from another version of the manifest (the figures follow its current [[figure]] tables)\n", m.File, dir)
		}
		drawn := 0
		for _, f := range m.Figures {
			if *only != "" && f.ID != *only {
				continue
			}
			drawn++
			files, notes, err := plots.Draw(m, f, res, dir)
			for _, n := range notes {
				fmt.Fprintf(stderr, "note: manifest %s: %s\n", m.File, n)
			}
			if err != nil {
				fmt.Fprintf(stderr, "error: manifest %s: figure %q: %v\n", m.File, f.ID, err)
				status = exitFailed
				continue
			}
			if !*quiet {
				for _, file := range files {
					fmt.Fprintf(stdout, "wrote %s\n", file)
				}
			}
		}
		if *only != "" && drawn == 0 {
			fmt.Fprintf(stderr, "error: manifest %s: no figure with id %q\n", m.File, *only)
			status = exitUsage
		}
	}
	return status
}
