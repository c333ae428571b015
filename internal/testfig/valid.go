package testfig

// Valid is a valid manifest with a sweep (three instances of
// two mechanisms), two methods and four numbers of compositions.
const Valid = `name = "t1"
title = "test"
[engine]
buckets = 2000
factor = 0
error_correction = true

[[mechanism]]
id = "g"
kind = "gauss"
sigma = 2.0

[[mechanism]]
id = "rr"
kind = "randomized_response"
p = 0.51
[mechanism.engine]
buckets = 1000

[query]
compositions = [1, { from = 2, to = 8, scale = "log2" }]
e_eps = [1.0, 1.5]
delta = [1e-3]
methods = ["buckets", "exact"]

[sweep]
"g.sigma" = [2.0, 4.0]
`

// Sequence is a valid manifest with two sequences of Gauss mechanisms
// (closed forms exist for every method it names): "sched", a warm-up of
// 3 observations with sigma 4 followed by 5 with sigma 2, and "const", 8
// observations with sigma 2. Its [[mechanism]] tables start on lines 4
// and 8, its [[sequence]] tables on lines 12 and 18; the parts of "sched"
// are on lines 15 and 16, [query] on line 21.
const Sequence = `name = "schedule"
[engine]
buckets = 4000
[[mechanism]]
id = "warmup"
kind = "gauss"
sigma = 4.0
[[mechanism]]
id = "main"
kind = "gauss"
sigma = 2.0
[[sequence]]
id = "sched"
parts = [
  { mechanism = "warmup", count = 3 },
  { mechanism = "main", count = 5 },
]
[[sequence]]
id = "const"
parts = [{ mechanism = "main", count = 8 }]
[query]
compositions = [1, 2]
eps = [0.5, 1.0]
delta = [1e-3]
methods = ["buckets", "rdp", "exact"]
`
