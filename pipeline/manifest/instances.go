package manifest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Instance is one mechanism of a manifest at one point of its sweep.
type Instance struct {
	// Label names the instance in result files: the mechanism id, followed
	// by the swept values in brackets when the mechanism is swept, e.g.
	// "gauss[sigma=200]".
	Label string
	// Spec is the mechanism with the swept values applied.
	Spec MechanismSpec
	// Order is the position of the instance in the manifest's expansion.
	Order int
}

// Instances expands the sweep: every mechanism once per combination of its
// swept values (axes in the order of Manifest.Sweep, last axis fastest).
// Mechanisms used as parts of sequences are not instances of their own; a
// sequence follows the axes of its parts, whose values it holds as
// "<part id>.<parameter>" (labels "seq[main.sigma=1.1]").
func (m *Manifest) Instances() []Instance {
	var out []Instance
	for _, spec := range m.Mechanisms {
		if len(spec.InSequences) > 0 {
			continue
		}
		axes := m.axes(spec)
		idx := make([]int, len(axes))
		for {
			s := spec
			s.Params = make(map[string]float64, len(spec.Params))
			for k, v := range spec.Params {
				s.Params[k] = v
			}
			var parts []string
			for i, a := range axes {
				key := a.Param
				if spec.Kind == KindSequence {
					key = a.Mechanism + "." + a.Param
				}
				s.Params[key] = a.Values[idx[i]]
				parts = append(parts, key+"="+strconv.FormatFloat(a.Values[idx[i]], 'g', -1, 64))
			}
			label := spec.ID
			if len(parts) > 0 {
				label += "[" + strings.Join(parts, ",") + "]"
			}
			out = append(out, Instance{Label: label, Spec: s, Order: len(out)})
			// Advance the odometer.
			k := len(axes) - 1
			for ; k >= 0; k-- {
				idx[k]++
				if idx[k] < len(axes[k].Values) {
					break
				}
				idx[k] = 0
			}
			if k < 0 {
				break
			}
		}
	}
	return out
}

// axes returns the sweep axes of spec: those of its own parameters, or for
// a sequence those of its parts' mechanisms.
func (m *Manifest) axes(spec MechanismSpec) []SweepAxis {
	var axes []SweepAxis
	for _, a := range m.Sweep {
		if a.Mechanism == spec.ID || spec.Kind == KindSequence && slices.Contains(spec.PartIDs(), a.Mechanism) {
			axes = append(axes, a)
		}
	}
	return axes
}

// ParamsJSON describes the instance's mechanism and engine options as JSON
// (keys sorted), for the params column of the results.
func (in Instance) ParamsJSON() string {
	type partDesc struct {
		ID       string `json:"mechanism"`
		Kind     string `json:"kind"`
		Count    int    `json:"count"`
		Noise    string `json:"noise,omitempty"`
		Sampling string `json:"sampling,omitempty"`
		Relation string `json:"relation,omitempty"`
		File     string `json:"file,omitempty"`
		DataHash string `json:"data_sha256,omitempty"`
	}
	type desc struct {
		Kind     string             `json:"kind"`
		Params   map[string]float64 `json:"params,omitempty"`
		Noise    string             `json:"noise,omitempty"`
		Sampling string             `json:"sampling,omitempty"`
		Relation string             `json:"relation,omitempty"`
		File     string             `json:"file,omitempty"`
		DataHash string             `json:"data_sha256,omitempty"`
		Parts    []partDesc         `json:"parts,omitempty"`
		Engine   EngineOptions      `json:"engine"`
	}
	var parts []partDesc
	for _, p := range in.Spec.Parts {
		pm := p.Mechanism
		parts = append(parts, partDesc{pm.ID, pm.Kind, p.Count, pm.Noise, pm.Sampling, pm.Relation, pm.File, pm.DataHash})
	}
	b, err := json.Marshal(desc{in.Spec.Kind, in.Spec.Params, in.Spec.Noise, in.Spec.Sampling, in.Spec.Relation, in.Spec.File, in.Spec.DataHash, parts, in.Spec.Engine})
	if err != nil {
		return fmt.Sprintf("{%q: %q}", "error", err.Error())
	}
	return string(b)
}
