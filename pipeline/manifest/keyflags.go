package manifest

import (
	"strings"
)

// KeyFlag is a key of [[mechanism]] tables as the one-line commands (eps,
// delta, calibrate and search without a manifest) set it: by the flag
// --Flag, with the help text Help.
type KeyFlag struct {
	// Flag is the flag's name without dashes ("dataset-size").
	Flag string
	// Key is the manifest key it sets ("dataset_size").
	Key string
	// Help says what the key means, for which kinds, and its range.
	Help string
	// Numeric is true for the numeric parameters (MechanismSpec.Params),
	// false for the string keys (noise, file, sampling, relation).
	Numeric bool
}

// keyFlags are the flags of every key of the table of kinds but id and
// kind (--name and --kind). The single-round guarantee (eps, delta) of
// kind eps_delta is set with --eps0 and --delta0, because --eps and
// --delta are the queries' targets.
var keyFlags = []KeyFlag{
	{"sigma", "sigma", "noise standard deviation of gauss; noise multiplier of sgd (standard deviation / sensitivity), > 0", true},
	{"q", "q", "sampling rate of sgd and subsampled laplace, in (0, 1]: the probability that a record joins a batch (poisson), or batch/dataset size (fixed_size)", true},
	{"scale", "scale", "noise scale of laplace (b of Lap(b)) and of the Vuvuzela kinds, > 0", true},
	{"mu", "mu", "mean number of noise messages of the Vuvuzela kinds, >= 0", true},
	{"p", "p", "probability of the true answer of randomized_response, in (0, 1)", true},
	{"sensitivity", "sensitivity", "sensitivity of laplace, gauss and sgd, > 0 (default 1)", true},
	{"truncate", "truncate", "truncation of the laplace or gauss noise to [-t, t] (default 0: none)", true},
	{"batch", "batch", "batch size of sgd and laplace with --sampling fixed_size (with --dataset-size, instead of --q)", true},
	{"dataset-size", "dataset_size", "number of records of sgd and laplace with --sampling fixed_size (with --batch, instead of --q)", true},
	{"eps0", "eps", "eps of kind eps_delta: its single-round guarantee (--eps is the query's)", true},
	{"delta0", "delta", "delta of kind eps_delta: its single-round guarantee (--delta is the query's)", true},
	{"steps-per-epoch", "steps_per_epoch", "steps of an epoch of kind random_allocation (each record joins one of them at random; one observation r is one epoch)", true},
	{"participations", "participations", "steps of an epoch each record joins, kind random_allocation (default 1; k > 1 is bounded above by Feldman and Shenfeld's reduction to blocks of 1-out-of-t/k allocation, a looser bracket)", true},
	{"noise", "noise", `noise of the Vuvuzela kinds: "laplace" or "gauss"`, false},
	{"file", "file", "histogram file (kind histogram): CSV or Parquet with columns a and b", false},
	{"sampling", "sampling", `sampling of kinds sgd and laplace (with --q): "poisson" (default) or "fixed_size"`, false},
	{"relation", "relation", `neighbouring relation of kinds sgd and laplace (with --q): "add_remove" (default) or "replace_one"; random_allocation: "add_remove" only (replace_one is refused with the reason)`, false},
}

// KeyFlags returns the flags of the mechanism keys (all but id and kind).
func KeyFlags() []KeyFlag { return append([]KeyFlag(nil), keyFlags...) }

// KindHelp is the help text of the flag --kind.
func KindHelp() string { return "mechanism kind: " + strings.Join(Kinds(), ", ") }

// FlagOfKey returns the flag that sets the mechanism key key ("eps" ->
// "eps0", "dataset_size" -> "dataset-size"), or "" when none does.
func FlagOfKey(key string) string {
	for _, f := range keyFlags {
		if f.Key == key {
			return f.Flag
		}
	}
	return ""
}
