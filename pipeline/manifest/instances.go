package manifest

import (
	"encoding/json"
	"fmt"
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
func (m *Manifest) Instances() []Instance {
	var out []Instance
	for _, spec := range m.Mechanisms {
		var axes []SweepAxis
		for _, a := range m.Sweep {
			if a.Mechanism == spec.ID {
				axes = append(axes, a)
			}
		}
		idx := make([]int, len(axes))
		for {
			s := spec
			s.Params = make(map[string]float64, len(spec.Params))
			for k, v := range spec.Params {
				s.Params[k] = v
			}
			var parts []string
			for i, a := range axes {
				s.Params[a.Param] = a.Values[idx[i]]
				parts = append(parts, a.Param+"="+strconv.FormatFloat(a.Values[idx[i]], 'g', -1, 64))
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

// ParamsJSON describes the instance's mechanism and engine options as JSON
// (keys sorted), for the params column of the results.
func (in Instance) ParamsJSON() string {
	type desc struct {
		Kind     string             `json:"kind"`
		Params   map[string]float64 `json:"params,omitempty"`
		Noise    string             `json:"noise,omitempty"`
		File     string             `json:"file,omitempty"`
		DataHash string             `json:"data_sha256,omitempty"`
		Engine   EngineOptions      `json:"engine"`
	}
	b, err := json.Marshal(desc{in.Spec.Kind, in.Spec.Params, in.Spec.Noise, in.Spec.File, in.Spec.DataHash, in.Spec.Engine})
	if err != nil {
		return fmt.Sprintf("{%q: %q}", "error", err.Error())
	}
	return string(b)
}
