package results

import (
	"fmt"
	"strconv"
	"strings"
)

// FailedMeta returns the metadata that records the failed tasks of a run
// (MetaFailed, MetaFailedTasks): their number and the first MaxFailedNames
// of names.
func FailedMeta(names []string) map[string]string {
	shown := names[:min(len(names), MaxFailedNames)]
	return map[string]string{
		MetaFailed:      strconv.Itoa(len(names)),
		MetaFailedTasks: strings.Join(shown, "\n"),
	}
}

// failedTasks is what a file's metadata says of the failed tasks of its
// run.
type failedTasks struct {
	count int
	names []string
	// runs is the runs table that holds every failed task and its error.
	runs string
}

// readFailed reads MetaFailed and MetaFailedTasks; a file without them
// (an older pbuckets) or with an unreadable count counts none.
func readFailed(meta map[string]string) failedTasks {
	n, err := strconv.Atoi(meta[MetaFailed])
	if err != nil || n <= 0 {
		return failedTasks{}
	}
	f := failedTasks{count: n}
	if v := meta[MetaFailedTasks]; v != "" {
		f.names = strings.Split(v, "\n")
	}
	return f
}

// describe says which tasks of who (the run, part 3) failed.
func (f failedTasks) describe(who string) string {
	msg := fmt.Sprintf("%s: %d %s failed", who, f.count, plural(f.count, "task", "tasks"))
	if len(f.names) > 0 {
		list := strings.Join(f.names, ", ")
		if f.count > len(f.names) {
			list += fmt.Sprintf(" and %d more", f.count-len(f.names))
		}
		msg += " (" + list + ")"
	}
	if f.runs != "" {
		msg += "; the errors are in " + f.runs + " (status failed)"
	}
	return msg
}
