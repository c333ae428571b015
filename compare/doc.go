// Package compare implements the comparison bounds of the paper's evaluation
// ("Tight on Budget?", Sections 2.4 and 5.5-5.8) for r-fold composition of a
// pair of distributions, independently of the privacy-buckets engine.
//
// Every method yields a Curve (Delta(eps), Eps(delta); eps in nats):
//
//   - Exact curves (tight values): ExactGauss (closed form, accurate down to
//     ~1e-300), ExactRR (binomial sum in log space, r up to 2^26),
//     ExactLaplace (single round only).
//   - KOV: Kairouz-Oh-Viswanath's optimal composition theorem (paper
//     Theorem 3 / Lemma 5), fed with the mechanism's own tight
//     (eps0, delta0(eps0)) over a grid and reduced to the Pareto front, in log
//     space so r = 2^16 and beyond work.
//   - Advanced: Dwork-Rothblum-Vadhan advanced composition (paper Lemma 4) in
//     exact form, optimised over eps0 and the slack; Naive (Lemma 2) and
//     Adaptive (Lemma 3), plus ComposeNaive / ComposeAdaptive for
//     heterogeneous (eps_j, delta_j) lists.
//   - RDP: Renyi DP / moments accountant (paper Section 5.7) with the Classic
//     conversion (the paper's) or the Improved one (Canonne-Kamath-Steinke,
//     as in Google's dp_accounting); the result reports which.
//   - CDP: concentrated DP fits D_alpha <= xi + rho*alpha (paper Section 5.7),
//     or an error wrapping ErrNoCDPFit where none exists.
//
// Lower bounds: SumTest, for r-fold DP-SGD (the sampled Gaussian, Poisson
// sampling, add/remove), from threshold tests on the sum of the outputs (a
// post-processing), evaluated with rounding toward the safe side;
// LossTailLower, for the r-fold remove pair ((1-q) N(0,1) + q N(a,1),
// N(0,1)) of any DP-SGD instance, from the likelihood-ratio event and
// Chernoff bounds on the composed privacy loss, plain and exponentially
// tilted (losstail.go, losstail_tilt.go), for large r.
//
// Single-round inputs without the engine: GaussDelta0, LaplaceDelta0,
// TruncatedGaussDelta0, TruncatedLaplaceDelta0, RRDelta0, EpsDeltaDelta0
// (tight delta0 curves) and GaussRenyi, LaplaceRenyi, RRRenyi,
// SampledGaussianRenyi (Renyi curves). Any DeltaFunc or RenyiFunc from
// elsewhere (e.g. privacy buckets) can be used instead.
//
// Certified Renyi curves (rdp_sound.go, rdp_fixed.go):
// SampledGaussianRenyiUpper, SymmetrisedGaussianRenyiUpper (the symmetrised
// pair of fixed-size sampling under replace-one), GaussRenyiUpper,
// LaplaceRenyiUpper, RRRenyiUpper and ComposeRenyiUpper
// are upper bounds whose floating-point error is bounded and added (no
// numerical integration); with RDPOptions.Outward, RDP's conversion is
// rounded up too, so its Delta and Eps are certified upper bounds.
// SampledGaussianRenyi itself integrates numerically at fractional orders
// and in the Q||P direction (accurate, but its error is not bounded).
//
// Curves are immutable after construction and safe for concurrent use
// (CDP curves call their Renyi function during queries, so this requires the
// Renyi function to be safe too). Constructors validate their inputs and
// return errors; no function panics on user input.
//
// See README.md in this directory for formulas and sources.
package compare
