// Package engine computes provable upper and lower bounds on the
// (eps, delta)-differential privacy of r-fold composed mechanisms with the
// privacy-buckets method of Meiser and Mohammadi, "Tight on Budget?" (CCS
// 2018; Sections 3 and 4, Theorem 2). It does no I/O.
//
// # Model
//
// A mechanism is a pair of distributions (A, B) (Definition 11). Its atomic
// events x are grouped into buckets by their privacy-loss ratio
// P_A(x)/P_B(x): bucket i (i = -n+1..n) holds the events with ratio in
// (f^(i-1), f^i] (Definition 4), bucket -n those with ratio at most f^-n and
// bucket infinity those above f^n. Composition convolves the bucket values
// (Definition 4), squaring merges buckets 2i-1 and 2i into i and squares f.
//
// Each bucket stores both the A-mass B(i) of its events and their B-mass;
// the error-correction term of Definition 7 is l(i) = B-mass(i) - B(i)/f^i
// (Lemma 11), and it composes exactly as Definition 7 says because the
// B-masses convolve like the A-masses. One list therefore serves both
// directions A||B and B||A of Theorem 2, at half the cost of two lists. The
// counter u of Definition 7 is kept real-valued: every event in bucket i has
// ratio in [f^(i-u), f^i] (Lemma 6 and Lemma 12); leaves whose events sit on
// bucket borders (randomized response, the atoms of Laplace) start with u
// near 0, continuous leaves with u = 1, composition adds u, squaring maps u
// to (u+1)/2 (at most the paper's ceil(u/2)+1). Unlike the paper's bucket
// -n, both corner buckets absorb their events, whose masses are added in
// full to delta_up of both directions; distinguishing events (P_B = 0 or
// P_A = 0) are kept apart so they can be reported.
//
// # Far tails
//
// A grouped list also carries bounds on the moment generating functions
// M_A(tau), M_B(tau) of the loss of its regular events (from the leaf,
// multiplied through compositions). They cap the mass that
// each composition moves into the corners (Markov's inequality at the
// range ends, where the FFT error envelopes, not the masses, would fill
// the corners). For pairs known event by event (the Vuvuzela counts),
// Result.Delta also takes the moment bound delta <= C(tau) e^(-tau eps)
// M(tau)^r where it is below the buckets' bound: beyond
// the bucket range, where every bucket bound is the corners' mass.
//
// # Bounds
//
// delta_up (Definition 9, Theorem 2) is computed per bucket with the chord
// bound: for a group of events with total masses p, q and log-ratios in
// [lLo, lHi], sum max(0, P - e^eps Q) is at most the chord of the convex
// function y -> max(0, 1 - e^eps y) over [e^-lHi, e^-lLo] at y = q/p. For
// buckets wholly above eps this equals p - e^eps q, Definition 9's
// error-corrected term; for the u buckets straddling eps it is never above
// Definition 9's p (1 - e^eps/f^i) and usually about half of it. delta_low
// is sum max(0, p - e^eps q) over all groups, a lower bound for any
// grouping (the virtual error term of Theorem 2's proof). delta_up is the max
// over both directions; delta_low, being a lower bound in each direction, is
// also reported as the max.
//
// # Grid lists
//
// The straddling window u ln f of the grouped list grows with r (u adds up
// over compositions and only halves per squaring). Beside it, by default
// (Options.Lists), the engine composes a grid list: an upper pair
// that dominates the mechanism in Blackwell's order (each bucket's events
// spread onto its two borders keeping their A- and B-mass, odd atoms spread
// onto their even neighbours at squaring) and a lower pair that the
// mechanism dominates (events merged onto borders, odd atoms merged with
// partners across an even point), both with every atom on a grid point up
// to a window of rounding size. Dominance is preserved by products (Dong,
// Roth, Su 2019), so delta of the composed upper pair bounds the mechanism's
// from above and the lower pair's from below, with no straddling window;
// dp_accounting's pessimistic connect-the-dots PLD (Doroshenko et al., PETS
// 2022) rests on the same fact. A grid list stores A-masses only (a upper,
// c lower); the B-masses are A e^-L. Result.Delta takes the tighter of the
// two lists' bounds in each direction. Where a composed loss range exceeds
// 600 nats, the B-masses of the B||A tail are lost below the A-side's error
// (or float64), and the engine also composes the grid list of the swapped
// pair (B, A), whose A||B bounds bound the mechanism's B||A.
//
// # Lower pairs
//
// The bounds of a composed pair bound the mechanism only in the direction
// in which the pair relates to it: a pair that dominates the mechanism
// (Zhu, Dong, Wang 2022) gives upper bounds, a pair that the mechanism
// dominates (the output distributions of one worst-case instance) gives
// lower bounds, and an attained pair, both. Most pairs of this package are
// attained. Where a pair only dominates its mechanism (Poisson-subsampled
// Laplace under replace-one, fixed-size subsampling under replace-one), the
// engine also composes a lower pair the mechanism dominates, with the same
// options, and takes every lower bound of a Result from it (DeltaBound.Lower,
// EpsBound.Lower, the lower end of Renyi; Info.LowerMechanisms names it);
// where none is known the lower bounds are 0 with a note, never borrowed
// from the dominating pair.
//
// # Soundness through floating point
//
// Continuous pairs (Laplace, Gauss, DP-SGD) are embedded exactly, per
// Section 5.1: bucket borders are the privacy-loss levels k*ln f mapped back
// to the real line, and each bucket receives the A- and B-probabilities of
// its interval, from distribution functions that stay accurate in the tails
// (erfc for wide intervals, Gauss-Legendre on the density for narrow ones).
// Binning a density into a histogram first would be post-processing and
// could only lower delta.
//
// Convolutions use an FFT (the radix-2 transforms of engine/internal/fft,
// whose rounding is bounded by Higham's Theorem 24.2: decimation in
// frequency into bit-reversed order, the spectral product in that order and
// decimation in time back, so no permutation is ever done; on amd64 with
// AVX2 the butterfly loops run in assembly that performs the same IEEE
// operations as the Go loops, bitwise identical). A plain FFT convolution
// has an absolute error of about 1e-16 of the total mass in every bucket,
// far above the tail buckets that decide small deltas, so each convolution
// is done on exponentially tilted sequences a_j exp(tau L_j) for a few tilts tau (Options.Tilts):
// tilting commutes with convolution and turns the absolute error bound into
// an envelope eta exp(-tau L_k) that is small in the tail the tilt points at.
// Every bucket value carries a rigorous error bound rel*value + min over
// tilts of eta_m exp(-tau_m L); the bounds are propagated through every
// composition (by the moments of the other operand), squaring and corner
// sum, and delta_up uses the upper ends (delta_low the lower ends). The
// method's error is therefore relative where the tilts reach, and bounded
// everywhere. The tilts are set per composition: those of the final loss
// (+-3.5 of its standard deviations) and, while a level's own loss is
// narrower, +-3.5 of the level's standard deviations as well (for pairs
// known event by event, the Vuvuzela counts, also +-3 times the final ones,
// about 10 standard deviations, where their far-tail deltas lie); when the
// tilt set changes the envelopes are re-expressed for the new tilts, which
// keeps the tails and the corners accurate through long compositions.
// A composition's pointwise envelope is the smallest of three rigorous
// bounds: the operands' envelopes propagated by their tilted 1-norms, the
// operands' tilted total errors times the other's tilted maximum (Young's
// inequality with the 1- and the inf-norm: it scales with the largest
// bucket, not the whole mass), and the output's tilted total error itself;
// with the first alone the envelopes would grow about 4x per level and, at
// r = 2^25, exceed the bulk's values, which would be zeroed as noise.
// Beside the pointwise model each list carries total-error bounds, untilted
// and, per tilt, in the tilted measure (Young's inequality through
// compositions, Cauchy-Schwarz for the FFT rounding, Hölder between tilts),
// which bound the error summed over the buckets beyond eps without summing
// one envelope per bucket.
// Tests check the bounds against brute-force enumeration, the Gauss closed
// form and the binomial sum of randomized response.
//
// The bounds stay sound at every eps in [0, +Inf] and every privacy loss:
// e^eps and e^-L are never formed apart (above eps =
// 600 each term is e^(eps - lLo) times the bucket's B-mass times e^lLo,
// computed in log space), every bucket's B-mass is also enclosed by its
// A-mass through Lemma 6 (P e^-lHi <= Q <= P e^-lLo), which keeps the
// bounds meaningful where Q has underflowed, and values below the smallest
// normal float64 carry an absolute allowance so that no error bound
// underflows to 0. Where the method cannot do better (corner mass,
// a window u ln f wider than the losses, rounding-error bounds that exceed
// the masses) the bounds are the trivial ones, with a note
// (DeltaBound.Note, EpsBound.Note, Result.Notes).
//
// # Factor
//
// Options.Factor = 0 chooses f automatically: the leaf range
// n ln f covers the privacy loss up to a tail mass of TailBudget/(2r), and f
// is otherwise as small as possible because the straddling window grows like
// r ln f. Squaring follows Figure 10 (corner growth above 2.2x) with
// free_infty_budget (Section 4.6), decided in O(n) without a trial
// composition: the corners of the composition are computed first, with the
// tilts it will use, and reused by it when no squaring is needed.
//
// May import: engine/internal/fft.
package engine
