package results

import "math"

// EpochColumns returns the nullable columns epochs and steps of n rows,
// appended last to the frames whose rows have a number of observations r
// (delta, epsilon, runs, renyi, tradeoff, search, search-probes): what
// each row's r is in training epochs and steps, given by at(i) (ok false:
// the row's r was given as itself, and both are null).
func EpochColumns(n int, at func(i int) (epochs float64, steps int, ok bool)) (epochsCol, stepsCol *Column) {
	epochsCol = &Column{Name: "epochs", Type: Float64, Nullable: true, Floats: make([]float64, n)}
	stepsCol = &Column{Name: "steps", Type: Int64, Nullable: true, Ints: make([]int64, n), Null: make([]bool, n)}
	for i := range n {
		e, s, ok := at(i)
		if !ok {
			epochsCol.Floats[i], stepsCol.Null[i] = math.NaN(), true
			continue
		}
		epochsCol.Floats[i], stepsCol.Ints[i] = e, int64(s)
	}
	return epochsCol, stepsCol
}
