package engine

import "testing"

// BenchmarkGridListsPeers runs BenchmarkPeers' rows (not Vuvuzela) with
// the grid lists alone (Options.Lists = ListsGrid) at the bucket counts
// PB_BUCKETS (default 100,000): ROW/BUCKETS reports cpu-s and relw as
// BenchmarkPeers. Run with -benchtime 1x -count 5 and take medians.
func BenchmarkGridListsPeers(b *testing.B) {
	for _, row := range peersRows {
		if row.name == "vuvuzela" {
			continue
		}
		b.Run(row.name, func(b *testing.B) {
			for _, n := range envInts("PB_BUCKETS", []int{100000}) {
				b.Run(itoa(n), func(b *testing.B) {
					var a peersAnswer
					for i := 0; i < b.N; i++ {
						a = row.answerWith(b, Options{Buckets: n, Lists: ListsGrid})
					}
					a.report(b, row)
				})
			}
		})
	}
}
