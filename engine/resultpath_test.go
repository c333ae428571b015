package engine

import (
	"context"
	"testing"
)

// TestResultRoute checks that a Result names the computation that
// composed it, also where it differs from the path asked for (the power
// path falls back to the chain for a count pair, and for DP-SGD sigma 1,
// q 1e-4 at r 2^30, whose composed list's rounding-error bound is too
// large), that the route agrees with the lists composed (the power path's
// is a grid list alone, without squarings), and that an encoded result
// keeps it.
func TestResultRoute(t *testing.T) {
	ctx := context.Background()
	sgd, err := SGD(1, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	deep, err := SGD(1, 1e-4)
	if err != nil {
		t.Fatal(err)
	}
	dial, err := VuvuzelaDialing(NoiseGauss, 3, 0.8)
	if err != nil {
		t.Fatal(err)
	}
	gauss, err := Gauss(200, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		m    Mechanism
		r    int
		o    Options
		want Route
	}{
		{"power path", sgd, 64, Options{Path: PathPower, Buckets: 1 << 12}, RoutePower},
		{"chain path", sgd, 64, Options{Path: PathChain, Buckets: 1 << 12}, RouteChain},
		{"explicit count", sgd, 64, Options{Buckets: 1 << 12}, RouteChain},
		{"power path falls back for a count pair", dial, 64, Options{Path: PathPower, Buckets: 1 << 12}, RouteChain},
		{"power path falls back on its rounding-error bound", deep, 1 << 30, Options{Path: PathPower, Buckets: 1 << 12}, RouteChain},
		{"closed form on the power path", gauss, 512, Options{Path: PathPower, Buckets: 1 << 12}, RouteClosedForm},
		{"closed form on the chain", gauss, 512, Options{Buckets: 4096}, RouteClosedForm},
	} {
		res, err := Compose(ctx, c.m, c.r, c.o)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := res.Route(); got != c.want {
			t.Errorf("%s: route %v, want %v", c.name, got, c.want)
		}
		power := res.l == nil && res.g != nil && res.g.squarings == 0 && res.g.compositions > 1
		if power != (res.Route() == RoutePower) {
			t.Errorf("%s: route %v but power path's list %v", c.name, res.Route(), power)
		}
		b, err := res.MarshalBinary()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var dec Result
		if err := dec.UnmarshalBinary(b); err != nil {
			t.Fatalf("%s: decoding: %v", c.name, err)
		}
		if dec.Route() != c.want {
			t.Errorf("%s: decoded route %v, want %v", c.name, dec.Route(), c.want)
		}
	}
}

// TestSequenceRoute checks that ComposeSequence names its route: the
// chain for a mixed sequence, the closed form for Gauss parts only.
func TestSequenceRoute(t *testing.T) {
	ctx := context.Background()
	sgd, err := SGD(1, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	g1, err := Gauss(200, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	g2, err := Gauss(100, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		parts []Part
		want  Route
	}{
		{"mixed sequence", []Part{{sgd, 8}, {g1, 4}}, RouteChain},
		{"Gauss sequence", []Part{{g1, 8}, {g2, 4}}, RouteClosedForm},
	} {
		res, err := ComposeSequence(ctx, c.parts, Options{Buckets: 4096})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := res.Route(); got != c.want {
			t.Errorf("%s: route %v, want %v", c.name, got, c.want)
		}
	}
}

// TestRouteString checks the names of the routes.
func TestRouteString(t *testing.T) {
	for _, c := range []struct {
		p    Route
		want string
	}{
		{RouteUnknown, "unknown"}, {RouteChain, "chain"}, {RoutePower, "power"},
		{RouteClosedForm, "closed form"}, {Route(9), "Route(9)"},
	} {
		if got := c.p.String(); got != c.want {
			t.Errorf("Route(%d).String() = %q, want %q", int(c.p), got, c.want)
		}
	}
}
