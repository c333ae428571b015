package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pbuckets/pbuckets/internal/testfig"
	"github.com/pbuckets/pbuckets/pipeline/pipelinetest"
	"github.com/pbuckets/pbuckets/pipeline/results"
)

// TestMain lets the test binary act as the pbuckets command when
// PBUCKETS_TEST_MAIN is 1, so that tests start pbuckets processes (as a
// job array does) without building the binary. The tests' one-line
// commands cache their states in a temporary user cache folder
// (XDG_CACHE_HOME), not in the user's.
func TestMain(m *testing.M) {
	if os.Getenv("PBUCKETS_TEST_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	cacheHome, err := os.MkdirTemp("", "pbuckets-test-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", cacheHome)
	status := m.Run()
	os.RemoveAll(cacheHome)
	os.Exit(status)
}

// sweepManifest has 5 mechanism instances (a Gauss mechanism and a swept
// DP-SGD), 2 methods, 3 numbers of compositions and Renyi orders: 30
// tasks, a renyi table, and a figure.
var sweepManifest = testfig.Manifest("name = \"sweep\"\n[engine]\nbuckets = 1000", "[1, 4, 16]", "[1e-3]") + `
[[figure]]
id = "d"
kind = "delta-eeps"
r = 4
`

// pbucketsCmd returns a command running pbuckets (this test binary) with
// args in dir.
func pbucketsCmd(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PBUCKETS_TEST_MAIN=1")
	return cmd
}

// startAll starts the commands at once and waits for them all; it fails
// the test if one fails, with its output.
func startAll(t *testing.T, cmds []*exec.Cmd) []string {
	t.Helper()
	outputs := make([]bytes.Buffer, len(cmds))
	for i, c := range cmds {
		c.Stdout, c.Stderr = &outputs[i], &outputs[i]
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	var out []string
	for i, c := range cmds {
		err := c.Wait()
		out = append(out, outputs[i].String())
		if err != nil {
			t.Errorf("%s: %v\n%s", strings.Join(c.Args[1:], " "), err, outputs[i].String())
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	return out
}

// sameNumbers fails unless frames a and b hold the same columns and the
// same values, floats compared bit for bit, except the columns in skip.
func sameNumbers(t *testing.T, what string, a, b *results.Frame, skip ...string) {
	t.Helper()
	if a.Rows() != b.Rows() || len(a.Columns) != len(b.Columns) {
		t.Fatalf("%s: %d rows x %d columns, want %d x %d", what, a.Rows(), len(a.Columns), b.Rows(), len(b.Columns))
	}
	for i, ca := range a.Columns {
		cb := b.Columns[i]
		if ca.Name != cb.Name || ca.Type != cb.Type {
			t.Fatalf("%s: column %d is %s, want %s", what, i, ca.Name, cb.Name)
		}
		if slices.Contains(skip, ca.Name) {
			continue
		}
		for r := 0; r < a.Rows(); r++ {
			va, _ := cell(ca, r)
			vb, _ := cell(cb, r)
			if ca.Type == results.Float64 {
				va, vb = strconv.FormatUint(math.Float64bits(ca.Floats[r]), 16), strconv.FormatUint(math.Float64bits(cb.Floats[r]), 16)
			}
			if va != vb || ca.IsNull(r) != cb.IsNull(r) {
				t.Fatalf("%s: column %s, row %d: %s, want %s", what, ca.Name, r, va, vb)
			}
		}
	}
}

// checkUnion checks that the current dataset of manifest "sweep" in out has
// n parts whose union equals the unsharded run in whole, bit for bit in
// every number.
func checkUnion(t *testing.T, out, whole string, n int) {
	t.Helper()
	st, err := results.Scan(filepath.Join(out, "sweep"))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Usable(); err != nil || st.Current.Shards != n {
		t.Fatalf("dataset after %d shards: %v (%d parts)", n, err, st.Current.Shards)
	}
	for _, table := range results.Tables() {
		if _, err := os.Stat(filepath.Join(whole, "sweep", table+".parquet")); errors.Is(err, fs.ErrNotExist) && len(st.Current.Files[table]) == 0 {
			continue // a table the manifest does not ask for, in neither run
		}
		want := pipelinetest.ReadFrame(t, filepath.Join(whole, "sweep", table+".parquet"))
		got := pipelinetest.ReadParts(t, st.Current.Files[table])
		// seconds and cached depend on timing and on which process
		// composed a state first; shard names the part.
		sameNumbers(t, table, got, want, "job_seconds", "cached", "shard")
	}
}

// TestConcurrentShardsEqualUnsharded starts N shard processes at once on
// one --out, as a job array does, and checks that the union of their parts
// equals an unsharded run, bit for bit in the numbers, that the dataset is
// complete, and that `pbuckets parts` and `pbuckets plot` accept it.
func TestConcurrentShardsEqualUnsharded(t *testing.T) {
	dir := t.TempDir()
	manifest := testfig.WriteFile(t, dir, "sweep.toml", sweepManifest)
	whole := filepath.Join(dir, "whole")
	if code, _, stderr := runCmd(t, "run", "--quiet", "--out", whole, manifest); code != exitOK {
		t.Fatalf("unsharded run: exit %d\n%s", code, stderr)
	}
	out := filepath.Join(dir, "out")
	const n = 4
	var cmds []*exec.Cmd
	for i := 1; i <= n; i++ {
		cmds = append(cmds, pbucketsCmd(dir, "run", "--quiet", "--jobs", "1", "--shard", fmt.Sprintf("%d/%d", i, n), "--out", out, manifest))
	}
	startAll(t, cmds)
	checkUnion(t, out, whole, n)
	if code, stdout, _ := runCmd(t, "parts", "--out", out, "--shards", strconv.Itoa(n), manifest); code != exitOK || !strings.Contains(stdout, "complete: 4 parts") {
		t.Errorf("parts: exit %d\n%s", code, stdout)
	}
	if code, stdout, stderr := runCmd(t, "plot", "--out", out, manifest); code != exitOK || !strings.Contains(stdout, "d.png") {
		t.Errorf("plot: exit %d\n%s%s", code, stdout, stderr)
	}
}

// sweepRoot returns a folder laid out like the repository for the sweep
// scripts: scripts/ and experiments/ of the repository, bin/pbuckets
// running this test binary, and the test manifest sweep.toml.
func sweepRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"scripts", "experiments"} {
		if err := os.Symlink(filepath.Join(repo, d), filepath.Join(root, d)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(root, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	wrapper := fmt.Sprintf("#!/bin/sh\nPBUCKETS_TEST_MAIN=1 exec %q \"$@\"\n", os.Args[0])
	if err := os.WriteFile(filepath.Join(root, "bin", "pbuckets"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	testfig.WriteFile(t, root, "sweep.toml", sweepManifest)
	return root
}

// fakeSbatch is an sbatch for tests: it runs the job script at once, in the
// foreground; an array (--array=A-B) runs all its tasks at the same time,
// each with the variables Slurm sets (SLURM_ARRAY_TASK_ID, _MIN, _MAX,
// _COUNT, SLURM_CPUS_PER_TASK from the script's #SBATCH line), its output
// in logs/; --export=ALL,K=V sets K; --cpus-per-task overrides the
// script's. It prints a job id, as --parsable does, and records its
// arguments in sbatch.log.
const fakeSbatch = `#!/usr/bin/env bash
set -u
echo "$*" >> sbatch.log
array= dep= cpus=
while [ $# -gt 0 ]; do
	case $1 in
	--array=*) array=${1#--array=} ;;
	--cpus-per-task=*) cpus=${1#--cpus-per-task=} ;;
	--dependency=*) dep=${1#--dependency=} ;;
	--export=*)
		IFS=, read -ra kvs <<< "${1#--export=}"
		for kv in "${kvs[@]}"; do case $kv in *=*) export "$kv" ;; esac; done ;;
	--*) ;;
	*) break ;;
	esac
	shift
done
script=$1; shift
[ -n "$cpus" ] || cpus=$(sed -n 's/^#SBATCH --cpus-per-task=//p' "$script")
id=$(( $(wc -l < sbatch.log) * 100 ))
mkdir -p logs
if [ -n "$array" ]; then
	tasks=()
	IFS=, read -ra items <<< "$array"
	for item in "${items[@]}"; do tasks+=($(seq "${item%-*}" "${item#*-}")); done
	for i in "${tasks[@]}"; do
		SLURM_JOB_ID=$id SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_TASK_MIN=${tasks[0]} SLURM_ARRAY_TASK_MAX=${tasks[-1]} \
			SLURM_ARRAY_TASK_COUNT=${#tasks[@]} SLURM_CPUS_PER_TASK=$cpus \
			bash "$script" "$@" > "logs/$id-$i.out" 2>&1 &
	done
	wait
else
	SLURM_JOB_ID=$id SLURM_CPUS_PER_TASK=$cpus bash "$script" "$@" > "logs/$id.out" 2>&1
	echo "exit $?" >> "logs/$id.out"
fi
echo "$id"
`

// fakeSinfo is an sinfo for tests: one partition "small" (the default)
// with nodes of 2 CPUs and 3000 MB.
const fakeSinfo = `#!/usr/bin/env bash
case "$*" in
*%P*) echo 'small*' ;;
*%c*) printf '2 3000\n2 3000\n' ;;
esac
`

// TestSweepSlurm runs scripts/slurm/submit.sh with an sbatch that runs the
// array's tasks at once and then the finish step (as Slurm does with
// --dependency=afterany): every task runs its own shard of the manifest
// with SLURM_CPUS_PER_TASK jobs, the finish step finds the dataset
// complete and draws the figure, and the union of the parts equals an
// unsharded run. A shard whose task failed makes the finish step fail and
// name the missing part.
func TestSweepSlurm(t *testing.T) {
	root := sweepRoot(t)
	if err := os.WriteFile(filepath.Join(root, "sbatch"), []byte(fakeSbatch), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "sinfo"), []byte(fakeSinfo), 0o755); err != nil {
		t.Fatal(err)
	}
	const n = 3
	// The binary is named by PBUCKETS (no bin/pbuckets).
	if err := os.Rename(filepath.Join(root, "bin", "pbuckets"), filepath.Join(root, "pbuckets-static")); err != nil {
		t.Fatal(err)
	}
	pbucketsBin := filepath.Join(root, "pbuckets-static")
	submit := func(out string) (string, error) {
		cmd := exec.Command("bash", "scripts/slurm/submit.sh", "sweep.toml")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "PATH="+root+":"+os.Getenv("PATH"), "SHARDS="+strconv.Itoa(n), "OUT="+out, "PBUCKETS="+pbucketsBin)
		b, err := cmd.CombinedOutput()
		return string(b), err
	}
	msg, err := submit("res")
	if err != nil {
		t.Fatalf("submit.sh: %v\n%s", err, msg)
	}
	// shard.sbatch's 4 CPUs x 2G do not fit the partition's nodes: submit.sh
	// asks for what they have, and says so.
	if !strings.Contains(msg, "at most 2 CPUs and a task asks for 4") || !strings.Contains(msg, "asking for 1500M per CPU") {
		t.Errorf("submit.sh said:\n%s", msg)
	}
	log, _ := os.ReadFile(filepath.Join(root, "sbatch.log"))
	calls := strings.Split(strings.TrimSpace(string(log)), "\n")
	if len(calls) != 2 || !strings.Contains(calls[0], "--cpus-per-task=2 --mem-per-cpu=1500M --array=1-3") || !strings.Contains(calls[0], "scripts/slurm/shard.sbatch sweep.toml") ||
		!strings.Contains(calls[1], "--dependency=afterany:100") || !strings.Contains(calls[1], "scripts/slurm/finish.sbatch sweep.toml") {
		t.Errorf("sbatch calls:\n%s", log)
	}
	for i := 1; i <= n; i++ {
		task, _ := os.ReadFile(filepath.Join(root, "logs", fmt.Sprintf("100-%d.out", i)))
		if want := fmt.Sprintf("+ %s run --quiet --out res --jobs 2 --shard %d/3 sweep.toml", pbucketsBin, i); !strings.Contains(string(task), want) {
			t.Errorf("task %d ran:\n%s\nwant %q (PBUCKETS, jobs from SLURM_CPUS_PER_TASK)", i, task, want)
		}
	}
	finish, _ := os.ReadFile(filepath.Join(root, "logs", "200.out"))
	if !strings.Contains(string(finish), "complete: 3 parts") || !strings.Contains(string(finish), "wrote res/sweep/d.png") || !strings.Contains(string(finish), "exit 0") {
		t.Errorf("finish step (the parts check, then the figures listed):\n%s", finish)
	}
	if _, err := os.Stat(filepath.Join(root, "res", "sweep", "d.png")); err != nil {
		t.Errorf("figure not drawn: %v", err)
	}
	whole := filepath.Join(root, "whole")
	startAll(t, []*exec.Cmd{pbucketsCmd(root, "run", "--quiet", "--out", whole, "sweep.toml")})
	checkUnion(t, filepath.Join(root, "res"), whole, n)

	// A lost part: the finish step fails and says which.
	os.Remove(filepath.Join(root, "sbatch.log"))
	os.RemoveAll(filepath.Join(root, "logs"))
	if err := os.WriteFile(filepath.Join(root, "bad.sbatch"), []byte("#!/bin/bash\n#SBATCH --cpus-per-task=1\n[ \"$SLURM_ARRAY_TASK_ID\" = 2 ] && exit 1\nexec scripts/sweep.sh shard \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-c", "sed 's#scripts/slurm/shard.sbatch#bad.sbatch#' scripts/slurm/submit.sh > submit-bad.sh && bash submit-bad.sh sweep.toml")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "PATH="+root+":"+os.Getenv("PATH"), "SHARDS=3", "OUT=res 2", "PBUCKETS="+pbucketsBin, "SBATCH_OPTIONS=--partition=small --account=dp")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("submit: %v\n%s", err, b)
	}
	finish, _ = os.ReadFile(filepath.Join(root, "logs", "200.out"))
	// The finish log names the part and prints the command that reruns
	// it with this sweep's settings.
	rerun := fmt.Sprintf(`  ARRAY=2 SHARDS=3 OUT=res\ 2 SBATCH_OPTIONS=--partition=small\ --account=dp PBUCKETS=%s scripts/slurm/submit.sh sweep.toml`, pbucketsBin)
	if !strings.Contains(string(finish), "NOT COMPLETE") || !strings.Contains(string(finish), "1 of 3 parts missing (2)") ||
		!strings.Contains(string(finish), rerun+"\n") || !strings.Contains(string(finish), "exit 1") {
		t.Errorf("finish step with part 2 lost:\n%s\nwant the rerun command\n%s", finish, rerun)
	}
	// That command reruns the lost task and the finish step, which finds
	// the dataset complete.
	os.Remove(filepath.Join(root, "sbatch.log"))
	cmd = exec.Command("bash", "-c", rerun)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "PATH="+root+":"+os.Getenv("PATH"))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("rerun: %v\n%s", err, b)
	}
	log, _ = os.ReadFile(filepath.Join(root, "sbatch.log"))
	if calls := strings.Split(strings.TrimSpace(string(log)), "\n"); len(calls) != 2 || !strings.Contains(calls[0], "--partition=small --account=dp") || !strings.Contains(calls[0], "--array=2 ") {
		t.Errorf("rerun sbatch calls:\n%s", log)
	}
	if finish, _ = os.ReadFile(filepath.Join(root, "logs", "200.out")); !strings.Contains(string(finish), "complete: 3 parts") || !strings.Contains(string(finish), "exit 0") {
		t.Errorf("finish step after the rerun:\n%s", finish)
	}
	checkUnion(t, filepath.Join(root, "res 2"), whole, n)
}

// renderJob returns the YAML of scripts/k8s/apply.sh --print job (sweep or
// finish) with the environment env added.
func renderJob(t *testing.T, job string, env ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join("..", "..", "scripts", "k8s", "apply.sh"), "--print", job)
	cmd.Env = append(os.Environ(), env...)
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("apply.sh --print %s: %v", job, err)
	}
	return string(b)
}

// yamlValues returns the values of "key: value" lines of a YAML text (in
// order), unquoted, or of "- name: key" entries' "value:" lines when key
// starts with "env ".
func yamlValues(data, key string) []string {
	var re *regexp.Regexp
	if name, ok := strings.CutPrefix(key, "env "); ok {
		re = regexp.MustCompile(`(?m)^\s*- name: ` + regexp.QuoteMeta(name) + `\s*\n\s*value: "?([^"\n#]*?)"?\s*(#.*)?$`)
	} else {
		re = regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(key) + `: (.*?)\s*(#.*)?$`)
	}
	var out []string
	for _, m := range re.FindAllStringSubmatch(data, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestSweepKubernetes checks the Indexed Job manifests against the sweep
// script and runs what their pods run: the sweep Job's command with
// JOB_COMPLETION_INDEX 0 to completions-1 at once (SHARDS and OUT from
// the manifest, the shared volume a local folder), then the finish Job's
// command. The union of the parts equals an unsharded run.
func TestSweepKubernetes(t *testing.T) {
	root := sweepRoot(t)
	// The number of shards is set in one place (sweep.env, or the
	// environment of apply.sh).
	sweep, finish := renderJob(t, "sweep", "SHARDS=7"), renderJob(t, "finish", "SHARDS=7")
	for _, c := range []struct {
		yaml, key string
		want      []string
	}{
		{sweep, "completionMode", []string{"Indexed"}},
		{sweep, "command", []string{`["scripts/sweep.sh", "shard"]`}},
		{finish, "command", []string{`["scripts/sweep.sh", "finish"]`}},
		{sweep, "env OUT", []string{"/results"}},
		{sweep, "mountPath", []string{"/results"}},
		{finish, "env OUT", []string{"/results"}},
		{finish, "mountPath", []string{"/results"}},
		{sweep, "claimName", []string{"pbuckets-results"}},
		{finish, "claimName", []string{"pbuckets-results"}},
	} {
		if got := yamlValues(c.yaml, c.key); !slices.Equal(got, c.want) {
			t.Errorf("%s = %q, want %q in\n%s", c.key, got, c.want, c.yaml)
		}
	}
	for _, c := range []struct{ yaml, key string }{{sweep, "completions"}, {sweep, "parallelism"}, {sweep, "env SHARDS"}, {finish, "env SHARDS"}} {
		if got := yamlValues(c.yaml, c.key); !slices.Equal(got, []string{"7"}) {
			t.Errorf("%s = %q, want SHARDS 7", c.key, got)
		}
	}
	if strings.Contains(sweep+finish, "${") {
		t.Errorf("placeholders left:\n%s\n%s", sweep, finish)
	}
	// The pods, with a small manifest and SHARDS = 3 (the manifest's 16
	// would be slow here).
	const n = 3
	out := filepath.Join(root, "volume")
	env := append(os.Environ(), "SHARDS="+strconv.Itoa(n), "OUT="+out, "JOBS=1")
	var pods []*exec.Cmd
	for i := 0; i < n; i++ {
		cmd := exec.Command("scripts/sweep.sh", "shard", "sweep.toml")
		cmd.Dir, cmd.Env = root, append(slices.Clip(env), "JOB_COMPLETION_INDEX="+strconv.Itoa(i))
		pods = append(pods, cmd)
	}
	logs := startAll(t, pods)
	for i, l := range logs {
		if want := fmt.Sprintf("--shard %d/3 sweep.toml", i+1); !strings.Contains(l, want) {
			t.Errorf("pod %d ran:\n%s\nwant %q", i, l, want)
		}
	}
	cmd := exec.Command("scripts/sweep.sh", "finish", "sweep.toml")
	cmd.Dir, cmd.Env = root, env
	if b, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(b), "complete: 3 parts") {
		t.Fatalf("finish: %v\n%s", err, b)
	}
	whole := filepath.Join(root, "whole")
	startAll(t, []*exec.Cmd{pbucketsCmd(root, "run", "--quiet", "--out", whole, "sweep.toml")})
	checkUnion(t, out, whole, n)
	// A pod outside the job's range is refused.
	cmd = exec.Command("scripts/sweep.sh", "shard", "sweep.toml")
	cmd.Dir, cmd.Env = root, append(slices.Clip(env), "JOB_COMPLETION_INDEX=3")
	if b, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(b), "shard 4 is not in 1..3") {
		t.Errorf("index 3 of 3: %v\n%s", err, b)
	}
}
