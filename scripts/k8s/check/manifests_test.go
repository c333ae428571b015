package check

import (
	"os"
	"os/exec"
	"strconv"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// render returns the YAML that scripts/k8s/apply.sh --print writes for
// job (sweep or finish) with SHARDS set.
func render(t *testing.T, job string, shards int) []byte {
	t.Helper()
	cmd := exec.Command("../apply.sh", "--print", job)
	cmd.Env = append(os.Environ(), "SHARDS="+strconv.Itoa(shards))
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("apply.sh --print %s: %v", job, err)
	}
	return b
}

func decode(t *testing.T, name string, data []byte, into any) {
	t.Helper()
	if err := yaml.UnmarshalStrict(data, into); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// env returns the value of the container's environment variable name.
func env(c corev1.Container, name string) string {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value
		}
	}
	return ""
}

func TestManifestsDecodeStrictly(t *testing.T) {
	const shards = 5
	var sweep, finish batchv1.Job
	decode(t, "sweep-job.yaml", render(t, "sweep", shards), &sweep)
	decode(t, "finish-job.yaml", render(t, "finish", shards), &finish)
	var pvc corev1.PersistentVolumeClaim
	decode(t, "results-pvc.yaml", read(t, "../results-pvc.yaml"), &pvc)
	var reader corev1.Pod
	decode(t, "reader-pod.yaml", read(t, "../reader-pod.yaml"), &reader)

	s := sweep.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("sweep: completionMode %v, want Indexed", s.CompletionMode)
	}
	if s.Completions == nil || *s.Completions != shards || s.Parallelism == nil || *s.Parallelism != shards {
		t.Errorf("sweep: completions %v, parallelism %v, want %d", s.Completions, s.Parallelism, shards)
	}
	for name, job := range map[string]batchv1.Job{"sweep": sweep, "finish": finish} {
		pod := job.Spec.Template.Spec
		if pod.RestartPolicy != corev1.RestartPolicyNever || len(pod.Containers) != 1 {
			t.Fatalf("%s: restartPolicy %q, %d containers", name, pod.RestartPolicy, len(pod.Containers))
		}
		c := pod.Containers[0]
		if got := env(c, "SHARDS"); got != strconv.Itoa(shards) {
			t.Errorf("%s: SHARDS %q, want %d", name, got, shards)
		}
		if env(c, "OUT") != "/results" || len(c.VolumeMounts) != 1 || c.VolumeMounts[0].MountPath != "/results" {
			t.Errorf("%s: OUT %q, mounts %v", name, env(c, "OUT"), c.VolumeMounts)
		}
		if len(pod.Volumes) != 1 || pod.Volumes[0].PersistentVolumeClaim == nil || pod.Volumes[0].PersistentVolumeClaim.ClaimName != pvc.Name {
			t.Errorf("%s: volumes %v, want the claim %q", name, pod.Volumes, pvc.Name)
		}
		if step := map[string]string{"sweep": "shard", "finish": "finish"}[name]; len(c.Command) != 2 || c.Command[0] != "scripts/sweep.sh" || c.Command[1] != step {
			t.Errorf("%s: command %q", name, c.Command)
		}
	}
	if len(pvc.Spec.AccessModes) != 1 || pvc.Spec.AccessModes[0] != corev1.ReadWriteMany {
		t.Errorf("results-pvc: access modes %v, want ReadWriteMany", pvc.Spec.AccessModes)
	}
}

// A misspelled field fails the strict decode (as the API server refuses
// it), so the test above checks the field names too.
func TestStrictDecodeRefusesUnknownFields(t *testing.T) {
	var job batchv1.Job
	bad := []byte("apiVersion: batch/v1\nkind: Job\nspec:\n  completion: 5\n")
	if err := yaml.UnmarshalStrict(bad, &job); err == nil {
		t.Error("spec.completion (for completions) decoded without error")
	}
}
