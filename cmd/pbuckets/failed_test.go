package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pbuckets/pbuckets/internal/testfig"
	"github.com/pbuckets/pbuckets/pipeline/manifest"
	"github.com/pbuckets/pbuckets/pipeline/pipelinetest"
	"github.com/pbuckets/pbuckets/pipeline/runner"
)

// A dataset with failed tasks is not complete: parts names them and exits
// 1, show and plot refuse it unless --partial.
func TestFailedTasksNotComplete(t *testing.T) {
	dir := t.TempDir()
	// The fake backend fails every composition of sigma = 13.
	file := testfig.WriteFile(t, dir, "m.toml", plotManifest+"[[mechanism]]\nid = \"bad\"\nkind = \"gauss\"\nsigma = 13.0\n")
	m, err := manifest.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	for i := 1; i <= 2; i++ {
		rn := &runner.Runner{Backend: &pipelinetest.Fake{}, Out: out, Jobs: 1, Shard: runner.Shard{Index: i, Count: 2}}
		if _, err := rn.Run(context.Background(), []*manifest.Manifest{m}); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := runCmd(t, "parts", "--out", out, "--shards", "2", file)
	if code != exitFailed || !strings.Contains(stdout, "NOT COMPLETE") || !strings.Contains(stdout, `2 tasks failed (mechanism "bad": method buckets: r=1, mechanism "bad": method buckets: r=4)`) {
		t.Errorf("parts: exit %d\n%s%s", code, stdout, stderr)
	}
	part2 := filepath.Join(out, "plotted", "shards-of-2", "delta-part-2-of-2.parquet")
	part1 := filepath.Join(out, "plotted", "shards-of-2", "delta-part-1-of-2.parquet")
	if code, _, stderr := runCmd(t, "show", part1, part2); code != exitUsage || !strings.Contains(stderr, "tasks failed") {
		t.Errorf("show: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := runCmd(t, "show", "--partial", part1, part2); code != exitOK {
		t.Errorf("show --partial: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := runCmd(t, "plot", "--quiet", "--out", out, file); code != exitFailed || !strings.Contains(stderr, "2 tasks failed") {
		t.Errorf("plot: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := runCmd(t, "plot", "--quiet", "--partial", "--out", out, file); code != exitOK || !strings.Contains(stderr, "drawn anyway") {
		t.Errorf("plot --partial: exit %d\n%s", code, stderr)
	}
}

// parts --rerun-list prints the parts to run again: missing ones and the
// one whose tasks failed.
func TestPartsRerunList(t *testing.T) {
	dir := t.TempDir()
	file := testfig.WriteFile(t, dir, "m.toml", plotManifest+"[[mechanism]]\nid = \"bad\"\nkind = \"gauss\"\nsigma = 13.0\n")
	m, err := manifest.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	// Parts 2 and 3 of 3 are written (part 3 with the failed tasks of
	// "bad"), part 1 is not.
	for _, i := range []int{2, 3} {
		rn := &runner.Runner{Backend: &pipelinetest.Fake{}, Out: out, Jobs: 1, Shard: runner.Shard{Index: i, Count: 3}}
		if _, err := rn.Run(context.Background(), []*manifest.Manifest{m}); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := runCmd(t, "parts", "--rerun-list", "--out", out, "--shards", "3", file)
	if code != exitFailed || stdout != "1,3\n" {
		t.Errorf("parts --rerun-list: exit %d, stdout %q\n%s", code, stdout, stderr)
	}
	// Against another number of shards, every part.
	if code, stdout, _ := runCmd(t, "parts", "--rerun-list", "--out", out, "--shards", "4", file); code != exitFailed || stdout != "1,2,3,4\n" {
		t.Errorf("parts --rerun-list --shards 4: exit %d, stdout %q", code, stdout)
	}
	if code, _, _ := runCmd(t, "parts", "--rerun-list", "--out", out, file); code != exitUsage {
		t.Errorf("--rerun-list without --shards: exit %d", code)
	}
}
