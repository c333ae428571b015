// Package pipeline holds no code: its sub-packages turn experiment
// manifests into result files, one concern each, and data flows one way
// through them:
//
//	manifest -> runner (tasks)     -> methods -> states -> backend -> engine
//	manifest -> query (one-liners) -> methods
//	manifest -> search (noise)     -> states
//	runner   -> results (Parquet)  -> plots
//
// The packages:
//
//   - manifest: parsing and validating manifests (TOML), with file:line:key
//     errors; the table of mechanism kinds (keys, flags, checks, engine
//     constructors); the sweep's expansion into mechanism instances; the
//     [search] and [[figure]] tables; histogram data files.
//   - runner: the tasks of manifests (Expand, Shard), run concurrently
//     within a memory budget, and the result files they write.
//   - methods: the bounding methods a manifest names: buckets and the
//     comparison methods of package compare, behind one contract (Job,
//     Outcome, Func); the refinement of an accuracy target (growing
//     bucket counts until the brackets meet it).
//   - backend: the Backend interface through which states are composed,
//     and Engine, its implementation with package engine.
//   - states: the one service for composed states (Service.Get): from
//     the cache folder, keyed by everything that fixes their bits, or
//     composed through the backend within the memory budget and cached;
//     used by the buckets method, the comparison methods and the search.
//   - memory: the memory budget jobs share and the Go soft memory limit.
//   - results: Frame, the Parquet result files and the layout of a
//     manifest's results folder (shards-of-N/, the current dataset, stale
//     sets).
//   - query: the questions of the one-line commands asked of a parsed
//     manifest (Ask: eps or delta brackets by the named methods;
//     Calibrate: a search's answer rounded and checked again).
//   - search: noise searches (the least noise meeting a target), a driver
//     of its own beside runner.
//   - pipelinetest: fakes and helpers for the tests of the packages above.
//
// Each package's documentation says what it may import; TestLayout checks
// it. The engine knows nothing of manifests, files or Parquet; the
// pipeline knows nothing of buckets beyond the Backend interface and the
// engine constructors the table of kinds names.
package pipeline
