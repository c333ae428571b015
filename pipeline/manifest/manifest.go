package manifest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/pbuckets/pbuckets/engine"
)

// Manifest is a parsed and validated experiment description.
type Manifest struct {
	// File is the path the manifest was read from.
	File string
	// Hash is the SHA-256 of the manifest bytes (hex); of their JSON
	// encoding for a manifest given as values (ParseValues).
	Hash string
	// Name names the result folder <out>/<Name>/.
	Name string
	// Title is an optional caption for plots.
	Title string
	// Engine holds the manifest-wide engine options.
	Engine EngineOptions
	// Mechanisms are the mechanisms in manifest order, before the sweep:
	// the [[mechanism]] tables, then the [[sequence]] tables (kind
	// "sequence").
	Mechanisms []MechanismSpec
	// Query says what to compute for each mechanism.
	Query Query
	// Sweep lists the grid axes over mechanism parameters.
	Sweep []SweepAxis
	// Search is the [search] table (noise searches), nil if absent.
	Search *SearchConfig
	// Figures are the [[figure]] tables: what `pbuckets plot` draws.
	Figures []Figure

	// built holds the engine mechanisms parsing built, by mechanism id
	// (see Built).
	built map[string]builtMechanism
}

// EngineOptions are the bucket-engine settings of a manifest or mechanism.
// Zero values of the float and Tilts fields select the engine's defaults.
type EngineOptions struct {
	Buckets           int     `json:"buckets"`
	Factor            float64 `json:"factor"`
	ErrorCorrection   bool    `json:"error_correction"`
	SquaringThreshold float64 `json:"squaring_threshold"`
	FreeInftyBudget   float64 `json:"free_infty_budget"`
	TailBudget        float64 `json:"tail_budget"`
	Tilts             int     `json:"tilts"`
	// DeltaFloor is engine.Options.DeltaFloor: the smallest delta the
	// question asks, which lets the engine choose a deeper tail budget
	// for the pairs that use one (the Vuvuzela counts). It is not a key
	// of manifests: the pipeline sets it from the question
	// (states.Request.Eps and Delta, engine.DeltaFloorFor).
	DeltaFloor float64 `json:"delta_floor,omitempty"`
	// AlignEps is engine.Options.AlignEps: an eps (nats) of the
	// question's delta(eps) queries on whose grid point a composition in
	// closed form puts its spacing, where its delta is then exact up to
	// rounding. It is not a key of manifests: the pipeline sets it from
	// the question (states.Request.Eps: the largest).
	AlignEps float64 `json:"align_eps,omitempty"`
	// Accuracy is the target relative width of the reported brackets, in
	// (0, 1), or 0 for none (the key accuracy): (eps_up - eps_low)/eps_up
	// for eps(delta) queries, (delta_up - delta_low)/delta_up for
	// delta(eps) queries. With a target, the buckets method computes
	// rounds of growing size until every query of a job meets it or the
	// memory budget ends the refinement (package methods): from Buckets on
	// the squaring chain, or with Buckets = 0 from a cheap first round on
	// the power path (the chain at DefaultBuckets where the mechanism has
	// none). It is not an engine option: it does not enter cache keys
	// (each round's states are cached under their own path and size).
	Accuracy float64 `json:"accuracy,omitempty"`
	// Path is engine.Options.Path: "" (engine.PathDefault, Buckets' own
	// meaning), PathChain or PathPower (Buckets is then the power path's
	// transform length, 2^k or 3·2^k: engine.PowerLength). It is not a key of manifests:
	// the refinement of an accuracy target sets it per round.
	Path string `json:"path,omitempty"`
}

// Composition paths of EngineOptions.Path.
const (
	// PathChain is the squaring chain at Buckets buckets.
	PathChain = "chain"
	// PathPower is the engine's power path on a transform of Buckets
	// points where the mechanism qualifies (the chain at Buckets where
	// it does not).
	PathPower = "power"
)

// DefaultEngineOptions are used where a manifest sets nothing: the paper's
// 100,000 buckets (DefaultBuckets), composed by the squaring chain (the
// one-line commands eps and delta default to an accuracy target instead;
// a manifest asks for one with buckets = 0 and accuracy).
// Buckets = 0 (buckets = 0 in a manifest, --buckets 0) leaves the path to
// the engine instead (engine.Options.Buckets: the chain at 100,000 buckets
// or the power path, whichever its predictor expects cheaper at a bracket
// at least as tight).
func DefaultEngineOptions() EngineOptions {
	return EngineOptions{Buckets: DefaultBuckets, ErrorCorrection: true}
}

// DefaultBuckets is the bucket count of the paper and of the squaring
// chain at the default options.
const DefaultBuckets = 100000

// MechanismSpec is one [[mechanism]] entry (or one point of its sweep).
type MechanismSpec struct {
	ID   string
	Kind string
	// Params holds the numeric parameters with defaults filled in.
	Params map[string]float64
	// Noise is the noise of the Vuvuzela kinds ("laplace" or "gauss").
	Noise string
	// Sampling and Relation are the sampling scheme and neighbouring
	// relation of the subsampled kinds (sgd, laplace with q): "fixed_size"
	// and "replace_one", or "" for the defaults "poisson" and "add_remove"
	// (see EffectiveSampling, EffectiveRelation).
	Sampling, Relation string
	// File is the histogram file (resolved against the manifest's folder);
	// A and B are its two PMFs and DataHash their SHA-256.
	File     string
	A, B     []float64
	DataHash string
	// Engine holds the effective engine options.
	Engine EngineOptions
	// Line is the line of the [[mechanism]] (or [[sequence]]) header.
	Line int
	// Parts are the parts of a sequence (kind "sequence"), in order; nil
	// for other kinds. The numeric parameters of their mechanisms are in
	// Params as "<part id>.<parameter>" (see ResolvedParts).
	Parts []PartSpec
	// InSequences lists the sequences that use the mechanism as a part; such
	// a mechanism is not queried on its own (Instances skips it).
	InSequences []string
}

// SweepAxis is one key of the [sweep] table: the values a parameter of a
// mechanism takes.
type SweepAxis struct {
	Mechanism string
	Param     string
	Values    []float64
	Line      int
}

// Query lists what is computed for every mechanism.
type Query struct {
	// Compositions holds the numbers of compositions r, sorted, unique:
	// the key compositions (each instance's own, with epochs, are
	// Manifest.Compositions).
	Compositions []int
	// Epochs holds the numbers of training epochs (the key epochs),
	// sorted, unique: each instance of a mechanism with epochs is also
	// queried at the r they make (MechanismSpec.Epochs, EpochPoints).
	Epochs []float64
	// Eps holds the eps values of delta(eps) queries (natural log scale,
	// converted from e_eps when the manifest gives e_eps).
	Eps []float64
	// Delta holds the delta values of eps(delta) queries.
	Delta []float64
	// Methods names the bounding methods, in manifest order.
	Methods []string
	// Alpha holds the Renyi orders of D_alpha queries (buckets only),
	// sorted.
	Alpha []float64
	// FPR holds the false-positive rates in (0, 1) at which the buckets
	// method bounds the largest true-positive rate of a membership-
	// inference test (engine.Result.TPR; tradeoff.parquet), sorted.
	FPR []float64
}

// Method names understood in manifests.
const (
	MethodBuckets  = "buckets"
	MethodKOV      = "kov"
	MethodAdvanced = "advanced"
	MethodRDP      = "rdp"
	MethodCDP      = "cdp"
	MethodExact    = "exact"
)

// MethodNames returns the method names a manifest may use.
func MethodNames() []string {
	return []string{MethodBuckets, MethodKOV, MethodAdvanced, MethodRDP, MethodCDP, MethodExact}
}

var (
	namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	idPattern   = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
)

// Load reads and parses a manifest file.
func Load(path string) (*Manifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("manifest %s: %w", path, err)
	}
	return Parse(path, data)
}

// Parse parses and validates a manifest. file names it in errors
// and anchors relative histogram paths. Every problem found is reported,
// each as a *Error with its line; nothing is computed.
func Parse(file string, data []byte) (*Manifest, error) {
	el := &errorList{file: file}
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			el.add(pe.Position.Line, pe.LastKey, "%s", pe.Message)
		} else {
			el.addErr(0, "", err)
		}
		return nil, el.err()
	}
	sum := sha256.Sum256(data)
	p := &parser{el: el, lines: scanKeyLines(string(data)), dir: filepath.Dir(file)}
	m := &Manifest{File: file, Hash: hex.EncodeToString(sum[:])}
	p.parse(raw, m)
	if err := el.err(); err != nil {
		return nil, err
	}
	return m, nil
}

// ParseValues parses and validates a manifest given as values instead of
// TOML text: the one-line commands' flags, checked exactly like a
// manifest file without a serialisation round trip. doc holds what a TOML
// decoder gives (int64, float64, string, bool, []any, map[string]any,
// []map[string]any); Go ints and slices of int64, float64 and string are
// accepted too. name names the manifest in errors, which have no lines;
// relative histogram paths are relative to the working directory.
func ParseValues(name string, doc map[string]any) (*Manifest, error) {
	el := &errorList{file: name}
	enc, err := json.Marshal(doc)
	if err != nil {
		el.addErr(0, "", err)
		return nil, el.err()
	}
	sum := sha256.Sum256(enc)
	p := &parser{el: el, lines: keyLines{lines: map[string]int{}}, dir: "."}
	m := &Manifest{File: name, Hash: hex.EncodeToString(sum[:])}
	p.parse(decodedTable(doc), m)
	if err := el.err(); err != nil {
		return nil, err
	}
	return m, nil
}

type parser struct {
	el    *errorList
	lines keyLines
	dir   string
}

func (p *parser) line(path ...string) int { return p.lines.line(path...) }

func (p *parser) parse(raw map[string]any, m *Manifest) {
	top := []string{"name", "title", "engine", "mechanism", "sequence", "query", "sweep", "figure", "search"}
	p.table(raw, nil, "").unknown(top, "key", false)
	switch v := raw["name"].(type) {
	case nil:
		p.el.add(0, "name", "missing required key (the results go to <out>/<name>/)")
	case string:
		if !namePattern.MatchString(v) || strings.Contains(v, "..") {
			p.el.add(p.line("name"), "name", "%q is not a valid folder name (letters, digits, '.', '_', '-'; not starting with '.')", v)
		}
		m.Name = v
	default:
		p.el.add(p.line("name"), "name", "must be a string, got %s", typeName(v))
	}
	if v, ok := raw["title"]; ok {
		if s, ok := v.(string); ok {
			m.Title = s
		} else {
			p.el.add(p.line("title"), "title", "must be a string, got %s", typeName(v))
		}
	}
	m.Engine = DefaultEngineOptions()
	if v, ok := raw["engine"]; ok {
		m.Engine = p.engine(v, m.Engine, []string{"engine"}, "engine")
	}
	ownEngine := p.mechanisms(raw["mechanism"], m)
	if v, ok := raw["sequence"]; ok {
		p.sequences(v, m, ownEngine)
	}
	if raw["query"] != nil || raw["search"] == nil {
		p.query(raw["query"], m) // a manifest with [search] may have no [query]
	}
	if v, ok := raw["sweep"]; ok {
		p.sweep(v, m)
	}
	p.checkEpochs(m, "query", m.Query.Epochs, len(m.Query.Compositions) > 0, nil)
	if v, ok := raw["figure"]; ok {
		p.figures(v, m)
	}
	if v, ok := raw["search"]; ok {
		p.search(v, m)
	}
	p.checkSequences(m)
	p.checkSize(m)
}

// maxTasks bounds the number of tasks a manifest may expand to.
const maxTasks = 1000000

// checkSize refuses manifests whose sweep and query expand to more than
// maxTasks tasks.
func (p *parser) checkSize(m *Manifest) {
	tasks := m.instanceCount(nil) * float64(len(m.Query.Compositions)+len(m.Query.Epochs)) * float64(max(1, len(m.Query.Methods)))
	if tasks > maxTasks {
		p.el.add(p.line("sweep"), "sweep", "the manifest expands to %.3g tasks, more than %d; split it", tasks, maxTasks)
	}
}

func (p *parser) engine(v any, base EngineOptions, path []string, display string) EngineOptions {
	t, ok := v.(map[string]any)
	if !ok {
		p.el.add(p.line(path...), display, "must be a table, got %s", typeName(v))
		return base
	}
	keys := []string{"buckets", "factor", "error_correction", "squaring_threshold", "free_infty_budget", "tail_budget", "tilts", "accuracy"}
	tb := p.table(t, path, display+".")
	tb.unknown(keys, "engine option", false)
	o := base
	at := tb.at
	num, integer := tb.number, tb.integer
	// The ranges of buckets, factor, squaring_threshold, tail_budget and
	// tilts are the engine's (engine.Options.Check, below).
	anyInt := func(int64) string { return "" }
	anyNum := func(float64) string { return "" }
	if n, ok := integer("buckets", anyInt); ok {
		o.Buckets = n
	}
	if f, ok := num("factor", anyNum); ok {
		o.Factor = f
	}
	if x, present := t["error_correction"]; present {
		if b, ok := x.(bool); ok {
			o.ErrorCorrection = b
		} else {
			l, d := at("error_correction")
			p.el.add(l, d, "must be true or false, got %s", typeName(x))
		}
	}
	if f, ok := num("squaring_threshold", anyNum); ok {
		o.SquaringThreshold = f
	}
	if f, ok := num("free_infty_budget", nonNegative); ok {
		o.FreeInftyBudget = f
		if f == 0 {
			o.FreeInftyBudget = -1 // the engine reads a negative budget as 0
		}
	}
	if f, ok := num("tail_budget", anyNum); ok {
		o.TailBudget = f
	}
	if n, ok := integer("tilts", anyInt); ok {
		o.Tilts = n
	}
	if err := o.Engine().Check(); err != nil {
		var pe *engine.ParamError
		if errors.As(err, &pe) && t[pe.Param] != nil {
			l, d := at(pe.Param)
			p.el.add(l, d, "%s", pe.Reason)
		} else {
			p.el.add(p.line(path...), display, "%s", engineMessage(err))
		}
	}
	if f, ok := num("accuracy", func(f float64) string {
		if f > 0 && f < 1 {
			return ""
		}
		return "must be in (0, 1) (the relative width of the bracket, e.g. 1e-3)"
	}); ok {
		o.Accuracy = f
	}
	if o.Accuracy > 0 && !o.ErrorCorrection {
		// Where the two meet: this table's accuracy key, else its
		// error_correction key (an accuracy inherited from [engine]).
		k := "accuracy"
		if _, set := t[k]; !set {
			k = "error_correction"
		}
		if _, set := t[k]; set {
			l, d := at(k)
			p.el.add(l, d, "accuracy needs lower bounds, and error_correction = false gives none: the width of the bracket cannot be measured (drop one of the two)")
		}
	}
	return o
}

// mechanisms parses the [[mechanism]] tables and returns the ids of those
// with engine options of their own.
func (p *parser) mechanisms(v any, m *Manifest) (ownEngine map[string]bool) {
	ownEngine = map[string]bool{}
	var list []map[string]any
	switch x := v.(type) {
	case nil:
		p.el.add(0, "mechanism", "missing: at least one [[mechanism]] table is required")
		return
	case []map[string]any:
		list = x
	case map[string]any:
		p.el.add(p.line("mechanism"), "mechanism", "must be an array of tables: write [[mechanism]], not [mechanism]")
		return
	default:
		p.el.add(p.line("mechanism"), "mechanism", "must be an array of tables ([[mechanism]]), got %s", typeName(v))
		return
	}
	seen := map[string]int{}
	for i, t := range list {
		idx := strconv.Itoa(i)
		spec := MechanismSpec{Params: map[string]float64{}, Engine: m.Engine, Line: p.line("mechanism", idx)}
		disp := fmt.Sprintf("mechanism[%d]", i)
		at := func(k string) (int, string) { return p.line("mechanism", idx, k), disp + ": " + k }
		switch id := t["id"].(type) {
		case nil:
			p.el.add(spec.Line, disp+": id", "missing required key")
		case string:
			if !idPattern.MatchString(id) {
				l, d := at("id")
				p.el.add(l, d, "%q is not a valid id (letters, digits, '_', '-')", id)
			}
			if j, dup := seen[id]; dup {
				l, d := at("id")
				p.el.add(l, d, "duplicate id %q (also mechanism[%d])", id, j)
			}
			seen[id] = i
			spec.ID = id
			disp = fmt.Sprintf("mechanism %q", id)
		default:
			l, d := at("id")
			p.el.add(l, d, "must be a string, got %s", typeName(id))
		}
		kind, ok := t["kind"].(string)
		if !ok {
			l, d := at("kind")
			if t["kind"] == nil {
				p.el.add(spec.Line, d, "missing required key (one of %s)", quoteList(Kinds()))
			} else {
				p.el.add(l, d, "must be a string, got %s", typeName(t["kind"]))
			}
			continue
		}
		schema, known := schemaFor(kind)
		if !known {
			l, d := at("kind")
			p.el.add(l, d, "unknown kind %q%s (one of %s)", kind, suggest(kind, Kinds()), quoteList(Kinds()))
			continue
		}
		spec.Kind = kind
		problems := len(p.el.errs)
		for _, k := range unknownKeys(t, schema.keys()...) {
			l, d := at(k)
			p.el.add(l, d, "unknown key for kind %s%s (known: %s)", kind, suggest(k, schema.keys()), quoteList(schema.keys()))
		}
		tb := table{p: p, t: t, at: at}
		for _, ps := range schema.params {
			if _, present := t[ps.name]; !present {
				if ps.required {
					p.el.add(spec.Line, disp+": "+ps.name, "missing required key for kind %s", kind)
				} else if !ps.optional {
					spec.Params[ps.name] = ps.def
				}
				continue
			}
			if f, ok := tb.number(ps.name, ps.checkType); ok {
				spec.Params[ps.name] = f
			}
		}
		for _, k := range schema.strings {
			x, present := t[k]
			l, d := at(k)
			s, isStr := x.(string)
			switch {
			case !present && k == "noise":
				spec.Noise = NoiseLaplace
			case !present:
				p.el.add(spec.Line, d, "missing required key for kind %s", kind)
			case !isStr:
				p.el.add(l, d, "must be a string, got %s", typeName(x))
			case k == "noise":
				if err := checkNoise(s); err != nil {
					p.el.addErr(l, d, err)
				}
				spec.Noise = s
			case k == "file":
				p.histogram(&spec, s, l, d)
			}
		}
		if len(schema.options) > 0 {
			p.subsampling(t, &spec, at)
		}
		if len(p.el.errs) == problems {
			if mech := p.build(spec, at, disp); mech != nil && spec.ID != "" {
				if m.built == nil {
					m.built = map[string]builtMechanism{}
				}
				m.built[spec.ID] = builtMechanism{spec: spec.clone(), mech: mech}
			}
		}
		if x, ok := t["engine"]; ok {
			spec.Engine = p.engine(x, m.Engine, []string{"mechanism", idx, "engine"}, disp+": engine")
			ownEngine[spec.ID] = true
		}
		m.Mechanisms = append(m.Mechanisms, spec)
	}
	return ownEngine
}

func (p *parser) histogram(spec *MechanismSpec, file string, line int, disp string) {
	path := file
	if !filepath.IsAbs(path) {
		path = filepath.Join(p.dir, path)
	}
	spec.File = path
	a, b, hash, err := ReadHistogram(path)
	if err != nil {
		p.el.addErr(line, disp, err)
		return
	}
	spec.A, spec.B, spec.DataHash = a, b, hash
}

func (p *parser) query(v any, m *Manifest) {
	t, ok := v.(map[string]any)
	if !ok {
		if v == nil {
			p.el.add(0, "query", "missing: a [query] table with compositions is required")
		} else {
			p.el.add(p.line("query"), "query", "must be a table, got %s", typeName(v))
		}
		return
	}
	keys := []string{"compositions", "epochs", "e_eps", "eps", "delta", "methods", "alpha", "fpr"}
	tb := p.table(t, []string{"query"}, "query.")
	tb.unknown(keys, "key", false)
	at := tb.at
	q := &m.Query
	p.queryAlpha(t, q)
	p.queryFPR(t, q)
	var hasR, hasEpochs, hasEps, hasDelta bool
	q.Compositions, hasR = tb.compositions()
	q.Epochs, hasEpochs = tb.epochs()
	if !hasR && !hasEpochs {
		p.el.add(p.line("query"), "query.compositions", "missing required key (the numbers of observations r; or epochs, for training runs)")
	}
	q.Eps, hasEps = tb.eps()
	q.Delta, hasDelta = tb.delta()
	if !hasEps && !hasDelta && len(q.FPR) == 0 {
		p.el.add(p.line("query"), "query", "nothing to compute: give e_eps (or eps), delta and/or fpr")
	}
	q.Methods = []string{MethodBuckets}
	if _, present := t["methods"]; present {
		names, ok := tb.strs("methods", true, " ("+quoteList(MethodNames())+")")
		if !ok {
			return
		}
		l, d := at("methods")
		q.Methods = nil
		seen := map[string]bool{}
		for _, s := range names {
			if !slices.Contains(MethodNames(), s) {
				p.el.add(l, d, "unknown method %q%s (one of %s)", s, suggest(s, MethodNames()), quoteList(MethodNames()))
				continue
			}
			if seen[s] {
				p.el.add(l, d, "method %q listed twice", s)
				continue
			}
			seen[s] = true
			q.Methods = append(q.Methods, s)
		}
	}
}

func (p *parser) sweep(v any, m *Manifest) {
	t, ok := v.(map[string]any)
	if !ok {
		p.el.add(p.line("sweep"), "sweep", "must be a table, got %s", typeName(v))
		return
	}
	type entry struct {
		id, param string
		val       any
		path      []string
	}
	var entries []entry
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		val := t[k]
		if id, param, ok := strings.Cut(k, "."); ok {
			entries = append(entries, entry{id, param, val, []string{"sweep", k}})
			continue
		}
		// Unquoted dotted keys (gauss.sigma = [...]) arrive as nested tables.
		if sub, isTable := val.(map[string]any); isTable && m.mechanism(k) != nil {
			subKeys := make([]string, 0, len(sub))
			for sk := range sub {
				subKeys = append(subKeys, sk)
			}
			sort.Strings(subKeys)
			for _, sk := range subKeys {
				entries = append(entries, entry{k, sk, sub[sk], []string{"sweep", k, sk}})
			}
			continue
		}
		p.el.add(p.line("sweep", k), "sweep."+k, `sweep keys are "<mechanism id>.<parameter>", e.g. "gauss.sigma"`)
	}
	for _, e := range entries {
		l := p.line(e.path...)
		d := fmt.Sprintf("sweep.%q", e.id+"."+e.param)
		spec := m.mechanism(e.id)
		if spec == nil {
			p.el.add(l, d, "no mechanism with id %q", e.id)
			continue
		}
		if spec.Kind == KindSequence {
			var ex []string
			for _, id := range spec.PartIDs() {
				if s := m.mechanism(id); s != nil {
					if schema, _ := schemaFor(s.Kind); len(schema.params) > 0 {
						ex = append(ex, fmt.Sprintf("%q", id+"."+schema.params[0].name))
					}
				}
			}
			p.el.add(l, d, "a sequence is swept through its parts: sweep \"<part mechanism id>.<parameter>\" (e.g. %s); every sequence using the part follows", strings.Join(ex, ", "))
			continue
		}
		schema, _ := schemaFor(spec.Kind)
		ps, ok := schema.param(e.param)
		if !ok {
			var names []string
			for _, q := range schema.params {
				names = append(names, q.name)
			}
			p.el.add(l, d, "mechanism %q (kind %s) has no numeric parameter %q%s (sweepable: %s)", e.id, spec.Kind, e.param, suggest(e.param, names), quoteList(names))
			continue
		}
		vals, err := floatGrid(e.val)
		if err != nil {
			p.el.addErr(l, d, err)
			continue
		}
		bad := false
		for _, f := range vals {
			if msg := ps.checkType(f); msg != "" {
				p.el.add(l, d, "%s %s, got %v", e.param, msg, f)
				bad = true
				break
			}
			if reason := sweptRange(*spec, e.param, f); reason != "" {
				p.el.add(l, d, "%s", reason)
				bad = true
				break
			}
		}
		if msg := checkSweptSubsampling(spec, e.param, vals); !bad && msg != "" {
			p.el.add(l, d, "%s", msg)
			bad = true
		}
		if !bad {
			m.Sweep = append(m.Sweep, SweepAxis{Mechanism: e.id, Param: e.param, Values: vals, Line: l})
		}
	}
}

// unqueried describes why id names no mechanism with results of its own
// (none by that id, or a part of a sequence), or returns "".
func (m *Manifest) unqueried(id string) string {
	spec := m.mechanism(id)
	switch {
	case spec == nil:
		return fmt.Sprintf("no mechanism with id %q", id)
	case len(spec.InSequences) > 0:
		return fmt.Sprintf("mechanism %q is a part of sequence %q and has no results of its own (name the sequence)", id, spec.InSequences[0])
	}
	return ""
}

func (m *Manifest) mechanism(id string) *MechanismSpec {
	for i := range m.Mechanisms {
		if m.Mechanisms[i].ID == id {
			return &m.Mechanisms[i]
		}
	}
	return nil
}

// AccuracyTargets describes the accuracy targets of the manifest's
// mechanisms that have results of their own (not the parts of
// sequences), in manifest order: "" when none has one, the target when
// all share one ("0.001"), else each mechanism's ("gauss=0.001, sgd=none").
// A run records it in its result files: SetAccuracy (pbuckets run
// --accuracy) changes it without changing Hash.
func (m *Manifest) AccuracyTargets() string {
	var each []string
	targets := map[float64]bool{}
	for _, s := range m.Mechanisms {
		if s.Kind != KindSequence && len(s.InSequences) > 0 {
			continue
		}
		a := s.Engine.Accuracy
		targets[a] = true
		v := "none"
		if a > 0 {
			v = strconv.FormatFloat(a, 'g', -1, 64)
		}
		each = append(each, s.ID+"="+v)
	}
	switch {
	case len(targets) > 1:
		return strings.Join(each, ", ")
	case targets[0] || len(targets) == 0:
		return ""
	}
	for a := range targets {
		return strconv.FormatFloat(a, 'g', -1, 64)
	}
	return ""
}

// SetAccuracy sets the accuracy target of every mechanism of the manifest
// (and of its [engine] table) to a, as `pbuckets run --accuracy` does,
// overriding the manifest's accuracy keys; the bucket counts stay the first
// rounds'. It refuses a outside (0, 1) and mechanisms without lower bounds
// (error_correction = false), naming them with their file and line, and
// then changes nothing.
func (m *Manifest) SetAccuracy(a float64) error {
	if !(a > 0 && a < 1) {
		return fmt.Errorf("accuracy must be in (0, 1), got %v", a)
	}
	var errs []error
	for _, s := range m.Mechanisms {
		if !s.Engine.ErrorCorrection && len(s.InSequences) == 0 {
			errs = append(errs, &Error{File: m.File, Line: s.Line, Key: fmt.Sprintf("mechanism %q", s.ID),
				Err: errors.New("error_correction = false: no lower bounds, so no accuracy can be measured (drop --accuracy or the key)")})
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	m.Engine.Accuracy = a
	for i := range m.Mechanisms {
		m.Mechanisms[i].Engine.Accuracy = a
	}
	return nil
}
