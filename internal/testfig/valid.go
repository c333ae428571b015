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
