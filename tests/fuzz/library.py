"""NumPy and SciPy primitives in generated programs: the expression forms of ``Generator.library``.

Each form builds an expression of the asked shape (one of generate.SHAPES) from
sub-expressions the generator makes, with every primitive's arguments inside its domain, so
that finite differences mean something:

- matrices for ``cholesky``/``slogdet``/``eigh`` are symmetric positive definite with distinct,
  well separated eigenvalues (``diag(1, 2.5, 4) + 0.12 TᵀT``, T = tanh(...): the perturbation
  is below half the smallest gap), so eigenvectors are defined; eigenvectors are only read
  squared (their sign is arbitrary);
- matrices for ``solve``/``inv``/``det`` are diagonally dominant (``2.5 I + 0.4 tanh(...)``);
  those for ``qr``/``svd``/``pinv`` have a constant added that keeps them of full rank
  (``x * np.ones((2, 3))`` has rank 1: qr's second column jumps there);
- arguments of functions with a kink at ties (``sort``, ``median``, ``ptp``, ``std`` at equal
  values) get distinct constant offsets, so a tie needs an exact coincidence the generator
  never makes on purpose (``x * np.ones((2, 3))`` has equal rows: ``std`` over them would be
  at its kink);
- ``clip``, ``fmax``/``fmin`` and comparisons inside ``where``/``select`` are traced by the
  checker (tests/fuzz/check.py), which calls a disagreement where a side flips inconclusive;
- logs, gammas and divisions see values bounded away from their poles.

SciPy forms appear only when SciPy imports. ``PRIMITIVES`` names every primitive a form uses.
"""

from __future__ import annotations

try:
    import scipy.linalg  # noqa: F401
    import scipy.special  # noqa: F401
    import scipy.stats  # noqa: F401
    HAS_SCIPY = True
except ImportError:  # srcad works without SciPy; so do the programs
    HAS_SCIPY = False

SCALAR = ()
SCIPY_IMPORTS = "import scipy.linalg\nimport scipy.special\nimport scipy.stats\n"

# offsets that make ties (the kinks of sort, median, ptp, std) need an exact coincidence
OFFSETS = {3: "np.array([0.0, 0.83, 1.71])", 2: "np.array([0.0, 0.77])"}
ROW_OFFSETS = "np.array([[0.0], [0.91]])"  # along axis 0 of a (2, 3)
# a matrix with a double eigenvalue (LibraryForms._repeated_spectrum)
REPEATED_SPECTRUM = "(2.0 * np.eye(3) + 0.3 * np.outer(%s, %s))"


class LibraryForms:
    """Mixed into generate.Generator: ``library(ctx, shape, depth)`` and its statements."""

    uses_scipy = False
    repeated_spectra = False  # a form of _repeated_spectrum is in the program

    # ------------------------------------------------------------- operands in a domain

    def _e(self, ctx, shape, depth):
        return self.wrap(self.expr(ctx, shape, max(depth - 1, 0)))

    def _bounded(self, ctx, shape, depth):
        return "np.tanh(%s)" % self._e(ctx, shape, depth)

    def _positive(self, ctx, shape, depth):
        """Values in [1.2, 3.2) or so: away from the poles of logs, gammas, divisions."""
        form = self.pick(["(1.2 + %s ** 2)", "(2.0 + np.sin(%s))", "np.exp(0.5 * np.tanh(%s))"])
        return form % self._e(ctx, shape, depth)

    def _unit(self, ctx, shape, depth):
        """Values in (0.1, 0.9): arguments of logit, entr, erfinv..."""
        return "(0.5 + 0.4 * np.tanh(%s))" % self._e(ctx, shape, depth)

    def _spd(self, ctx, depth, n):
        """A symmetric positive definite n x n matrix with separated eigenvalues."""
        if n == 3:
            if self.chance(0.5):
                t = self._bounded(ctx, (2, 3), depth)
                return "(np.diag([1.0, 2.5, 4.0]) + 0.12 * (%s.T @ %s))" % (t, t)
            t = self._bounded(ctx, (3,), depth)
            return "(np.diag([1.0, 2.5, 4.0]) + 0.2 * np.outer(%s, %s))" % (t, t)
        t = self._bounded(ctx, (2, 3), depth)
        return "(np.diag([1.0, 2.5]) + 0.12 * (%s @ %s.T))" % (t, t)

    def _repeated_spectrum(self, ctx, depth):
        """A symmetric positive definite 3 x 3 matrix whose eigenvalue 2 is double (its
        singular values are its eigenvalues): 2 I plus a rank-one term. Computed, the two
        are equal or differ by rounding. The first derivatives of the spectrum are right at
        either; the second ones go through the vectors, and at an exact tie they are nan, as
        README says: the program is marked (``repeated_spectra``) and check.py takes a nan
        hvp of it for that limitation. tests/test_tuple_output_parts.py has exact repeats to
        first order."""
        self.repeated_spectra = True
        t = self._bounded(ctx, (3,), depth)
        return REPEATED_SPECTRUM % (t, t)

    def _computed_order(self, ctx, start, step):
        """A positive float made from an int variable (a loop counter) when one is in scope,
        else a constant: an argument srcad has no derivative in (a Bessel function's
        order, an incomplete gamma function's shape), which is never varied."""
        # (not an int parameter, n1...: srcad.vjp differentiates every argument, an int
        # too, and an order made from one would need a derivative)
        names = [name for name in self.int_names(ctx) if not name.startswith("n")]
        if names and self.chance(0.7):
            return "(%.2f + %.2f * %s)" % (start, step, self.rng.choice(names))
        return "%.2f" % (start + step)

    def _well_conditioned(self, ctx, depth, n):
        """A diagonally dominant (so invertible, well-conditioned) n x n matrix."""
        return "(2.5 * np.eye(%d) + 0.4 * np.tanh(%s))" % (n, self._square(ctx, depth, n))

    def _square(self, ctx, depth, n):
        """Any n x n matrix (n = 2 or 3) from the generator's shapes."""
        other = 5 - n
        if self.chance(0.5):
            return "(%s @ %s)" % (self._e(ctx, (n, other), depth), self._e(ctx, (other, n), depth))
        if self.chance(0.5) and n == 3:
            return "np.einsum(\"ji,jk->ik\", %s, %s)" % (self._e(ctx, (2, 3), depth),
                                                         self._e(ctx, (2, 3), depth))
        return "np.outer(%s, %s)" % (self._e(ctx, (n,), depth), self._e(ctx, (n,), depth))

    @staticmethod
    def _full_rank(matrix, shape=(2, 3)):
        """A (2, 3) or (3, 2) matrix plus a constant that keeps its rank 2: outer products and
        broadcasts are rank 1, where singular values (svd, pinv) have a kink at 0 and qr's
        second column is not even continuous."""
        constant = "[[1.5, 0.0, 0.0], [0.0, 0.6, 0.0]]" if shape == (2, 3) else \
            "[[1.5, 0.0], [0.0, 0.6], [0.0, 0.0]]"
        return "(%s + np.array(%s))" % (matrix, constant)

    def _scipy(self, text):
        self.uses_scipy = True
        return text

    # ------------------------------------------------------------- forms by shape

    def library(self, ctx, shape, depth):
        """An expression of ``shape`` whose outermost call is a NumPy/SciPy primitive."""
        if self.chance(0.3):  # an elementwise function, else a primitive that changes shape
            forms = self._elementwise_forms(ctx, shape, depth)
        else:
            forms = {SCALAR: self._scalar_forms, (2,): self._pair_forms,
                     (3,): self._vector_forms, (2, 3): self._wide_forms,
                     (3, 2): self._tall_forms}[shape](ctx, depth)
        return self.rng.choice(forms)()

    def _elementwise_forms(self, ctx, shape, depth):
        e = lambda: self._e(ctx, shape, depth)  # noqa: E731
        pos = lambda: self._positive(ctx, shape, depth)  # noqa: E731
        unit = lambda: self._unit(ctx, shape, depth)  # noqa: E731
        forms = [
            lambda: "np.logaddexp(%s, %s)" % (e(), e()),
            lambda: "np.logaddexp2(%s, %s)" % (e(), e()),
            lambda: "np.sinc(%s)" % e(),
            lambda: "np.expm1(0.5 * np.sin(%s))" % e(),
            lambda: "np.log1p(%s ** 2)" % e(),
            lambda: "np.arcsinh(%s)" % e(),
            lambda: "np.deg2rad(%s)" % e(),
            lambda: "np.float_power(%s, 1.3)" % pos(),
            lambda: "np.clip(%s, %s, %s)" % (e(), self.constant(-0.9, -0.2),
                                             self.constant(0.2, 0.9)),
            lambda: "np.fmax(%s, %s)" % (e(), e()),
            lambda: "np.where(%s > %s, %s, %s)" % (e(), self.constant(-0.5, 0.5), e(), e()),
            lambda: "np.log2(%s) + np.log10(%s)" % (pos(), pos()),
            lambda: "np.arctan2(%s, %s)" % (e(), pos()),
        ]
        if HAS_SCIPY:
            special = [
                lambda: "scipy.special.expit(%s)" % e(),
                lambda: "scipy.special.log_expit(%s)" % e(),
                lambda: "scipy.special.erf(%s)" % e(),
                lambda: "scipy.special.erfc(%s)" % e(),
                lambda: "scipy.special.gammaln(%s)" % pos(),
                lambda: "scipy.special.psi(%s)" % pos(),
                lambda: "scipy.special.log_ndtr(%s)" % e(),
                lambda: "scipy.special.ndtr(%s)" % e(),
                lambda: "scipy.special.logit(%s)" % unit(),
                lambda: "scipy.special.erfinv(0.8 * np.tanh(%s))" % e(),
                lambda: "scipy.special.entr(%s)" % unit(),
                lambda: "scipy.special.xlogy(%s, %s)" % (e(), pos()),
                lambda: "scipy.special.betaln(%s, %s)" % (pos(), pos()),
                lambda: "scipy.special.i0(%s)" % e(),
                lambda: "scipy.special.j1(%s)" % e(),
                lambda: "scipy.special.rel_entr(%s, %s)" % (unit(), unit()),
                lambda: "scipy.stats.norm.logpdf(%s, %s, %s)" % (e(), e(), pos()),
                lambda: "scipy.stats.norm.cdf(%s)" % e(),
                lambda: "scipy.stats.t.logpdf(%s, 3.5)" % e(),
                lambda: "scipy.stats.gamma.pdf(%s, %s)" % (pos(), pos()),
                lambda: "scipy.stats.cauchy.pdf(%s, %s, %s)" % (e(), e(), pos()),
                lambda: "scipy.stats.logistic.pdf(%s, scale=%s)" % (e(), pos()),
                lambda: "scipy.stats.poisson.pmf(2.0, %s)" % pos(),
            ]
            forms += [lambda form=form: self._scipy(form()) for form in special]
        return forms

    def _scalar_forms(self, ctx, depth):
        e = lambda s: self._e(ctx, s, depth)  # noqa: E731
        any_array = lambda: e(self.pick([(2,), (3,), (2, 3), (3, 2)]))  # noqa: E731
        forms = [
            lambda: "np.var(%s)" % any_array(),
            lambda: "%s.var(ddof=1)" % e((2, 3)),
            lambda: "np.std(%s + %s, ddof=%d)" % (e((3,)), OFFSETS[3], self.rng.randint(0, 1)),
            lambda: "np.prod(%s)" % e(self.pick([(2,), (3,)])),
            lambda: "%s.prod()" % e((2, 3)),
            lambda: "np.linalg.det(%s)" % self._well_conditioned(ctx, depth, self.pick([2, 3])),
            lambda: "np.linalg.slogdet(%s)[1]" % self._spd(ctx, depth, self.pick([2, 3])),
            lambda: "np.trace(%s)" % self._square(ctx, depth, 3),
            lambda: "np.trace(%s)" % e((2, 3)),
            lambda: "np.linalg.norm(%s)" % e((2, 3)),
            lambda: "np.linalg.norm(%s, \"fro\")" % e((2, 3)),
            lambda: "np.einsum(\"i,i->\", %s, %s)" % (e((3,)), e((3,))),
            lambda: "np.einsum(\"ij,ij\", %s, %s)" % (e((2, 3)), e((2, 3))),
            lambda: "np.einsum(\"ii\", %s)" % self._square(ctx, depth, 3),
            lambda: "np.tensordot(%s, %s, axes=2)" % (e((2, 3)), e((2, 3))),
            lambda: "np.inner(%s, %s)" % (e((3,)), e((3,))),
            lambda: "np.vdot(%s, %s)" % (e((2, 3)), e((2, 3))),
            lambda: "np.median(%s + %s)" % (e((3,)), OFFSETS[3]),
            lambda: "np.ptp(%s + %s)" % (e((3,)), OFFSETS[3]),
            lambda: "np.quantile(%s + %s, 0.3)" % (e((3,)), OFFSETS[3]),
            lambda: "np.average(%s, weights=%s)" % (e((3,)), self._positive(ctx, (3,), depth)),
            lambda: "np.cumsum(%s)[-1]" % e((3,)),
            lambda: "np.log(np.sum(np.exp(%s)))" % any_array(),
            lambda: self._stable_logsumexp(e((3,))),
            lambda: "np.sum(np.linalg.inv(%s))" % self._well_conditioned(ctx, depth, 2),
            lambda: "np.sum(%s, axis=(0, 1))" % e((2, 3)),
            lambda: "np.var(%s, axis=(0, 1), ddof=1)" % e((2, 3)),
            lambda: "(%s + %s).std(ddof=1)" % (e((3,)), OFFSETS[3]),
            lambda: "np.einsum(\"ij,jk,ki->\", %s, %s, %s)" % (e((2, 3)), e((3, 2)),
                                                             self._square(ctx, depth, 2)),
            lambda: "np.sum(np.linalg.matrix_power(%s, 2))" % self._well_conditioned(
                ctx, depth, 2),
            lambda: "%s.trace()" % self._square(ctx, depth, 3),
            lambda: "np.mean(%s, axis=-1, keepdims=True)[1, 0]" % e((2, 3)),
            lambda: "math.lgamma(%s)" % self._positive(ctx, SCALAR, depth),
            lambda: "math.erf(%s)" % e(SCALAR),
            lambda: "math.hypot(%s, %s)" % (e(SCALAR), self._positive(ctx, SCALAR, depth)),
            lambda: "math.log(%s, 2.0)" % self._positive(ctx, SCALAR, depth),
            lambda: "math.fsum([%s, %s, %s])" % (e(SCALAR), e(SCALAR), e(SCALAR)),
            lambda: "pow(%s, 2)" % e(SCALAR),
            lambda: "float(%s)" % e(SCALAR),
            lambda: "np.nanvar(%s)" % any_array(),
            lambda: "np.nanstd(%s + %s)" % (e((3,)), OFFSETS[3]),
            lambda: "np.nanprod(%s)" % e(self.pick([(2,), (3,)])),
            lambda: "%s.item(%d)" % (e((3,)), self.rng.randrange(3)),
            lambda: "max(%s, %s + 0.9, %s - 0.8)" % (e(SCALAR), e(SCALAR), e(SCALAR)),
            lambda: "np.einsum(\"ij,jk,kl,li->\", %s, %s, %s, %s)" % (
                e((2, 3)), e((3, 2)), self._square(ctx, depth, 2), self._square(ctx, depth, 2)),
            lambda: "np.sum(np.square([%s, %s]))" % (e(SCALAR), e(SCALAR)),
            lambda: "np.sum(np.clip(%s, 0.3, -0.2))" % e((3,)),
            # functions of all the eigenvalues or singular values, smooth where some repeat
            # (as here): the vectors, unread, must take no part
            lambda: "np.sum(np.linalg.eigh(%s)[0] ** 2)" % self._repeated_spectrum(ctx, depth),
            lambda: "np.sum(np.linalg.svd(%s, full_matrices=False)[1])"
                    % self._repeated_spectrum(ctx, depth),
        ]
        if HAS_SCIPY:
            forms += [
                lambda: self._scipy("np.sum(scipy.linalg.eigh(%s, eigvals_only=True) ** 2)"
                                    % self._repeated_spectrum(ctx, depth)),
                lambda: self._scipy("np.sum(scipy.linalg.svd(%s, compute_uv=False))"
                                    % self._repeated_spectrum(ctx, depth)),
                lambda: self._scipy("scipy.special.logsumexp(%s)" % any_array()),
                # functions without a derivative in their order or shape, given one computed
                # from a loop counter when there is one: in a loop, second derivatives read
                # it back from the tape (analysis/activity.py follows the tape's elements)
                lambda: self._scipy("np.sum(scipy.special.jv(%s, %s) ** 2)" % (
                    self._computed_order(ctx, 0.5, 0.25), self._positive(ctx, (3,), depth))),
                lambda: self._scipy("np.sum(scipy.special.gammainc(%s, %s))" % (
                    self._computed_order(ctx, 1.5, 0.5), self._positive(ctx, (3,), depth))),
                lambda: self._scipy("scipy.special.logsumexp(%s, b=%s)" % (
                    e((3,)), self._positive(ctx, (3,), depth))),
                lambda: self._scipy("scipy.linalg.det(%s)" % self._well_conditioned(ctx, depth,
                                                                                   3)),
                # a covariance of variances (a vector) or a number times the identity
                lambda: self._scipy("scipy.stats.multivariate_normal.logpdf(%s, %s, %s)" % (
                    e((3,)), e((3,)), self._positive(ctx, self.pick([(3,), SCALAR]), depth))),
                lambda: self._scipy("scipy.stats.multivariate_normal.pdf(%s, %s, %s)" % (
                    e((3,)), e((3,)), self._spd(ctx, depth, 3))),
                lambda: self._scipy("scipy.stats.dirichlet.pdf(np.array([0.2, 0.5]), %s)"
                                    % self._positive(ctx, (3,), depth)),
            ]
        return forms

    def _stable_logsumexp(self, x):
        return "np.max(%s) + np.log(np.sum(np.exp(%s - np.max(%s))))" % (x, x, x)

    def _pair_forms(self, ctx, depth):
        e = lambda s: self._e(ctx, s, depth)  # noqa: E731
        forms = [
            lambda: "np.var(%s, axis=1)" % e((2, 3)),
            lambda: "np.std(%s + %s, axis=1)" % (e((2, 3)), OFFSETS[3]),
            lambda: "np.prod(%s, axis=1)" % e((2, 3)),
            lambda: "%s.mean(axis=1)" % e((2, 3)),
            lambda: "np.mean(%s, axis=1, keepdims=True)[:, 0]" % e((2, 3)),
            lambda: "np.cumsum(%s)" % e((2,)),
            lambda: "np.cumprod(%s)" % e((2,)),
            lambda: "np.diff(%s)" % e((3,)),
            lambda: "np.linalg.norm(%s, axis=1)" % e((2, 3)),
            lambda: "np.linalg.solve(%s, %s)" % (self._well_conditioned(ctx, depth, 2),
                                                 e((2,))),
            lambda: "np.linalg.eigh(%s)[0]" % self._spd(ctx, depth, 2),
            lambda: "np.linalg.svd(%s, full_matrices=False)[1]" % self._full_rank(e((2, 3))),
            lambda: "np.einsum(\"ij,j->i\", %s, %s)" % (e((2, 3)), e((3,))),
            lambda: "np.tensordot(%s, %s, axes=([1], [0]))" % (e((2, 3)), e((3,))),
            lambda: "np.flip(%s)" % e((2,)),
            lambda: "np.roll(%s, 1)" % e((2,)),
            lambda: "np.array_split(%s, [2])[0]" % e((3,)),
            lambda: "np.take(%s, [0, 2])" % e((3,)),
            lambda: "np.diagonal(%s)" % e((2, 3)),
            lambda: "np.average(%s, axis=1, weights=np.array([0.2, 0.3, 0.5]))" % e((2, 3)),
            lambda: "np.sort(%s + %s)" % (e((2,)), OFFSETS[2]),
            lambda: "np.concatenate([%s[:1], %s[2:]])" % (e((3,)), e((3,))),
            lambda: "%s.sum(axis=1)" % e((2, 3)),
            lambda: "%s.prod(axis=-1)" % e((2, 3)),
            lambda: "%s.diagonal()" % e((2, 3)),
            lambda: "np.linalg.norm(%s, axis=1, keepdims=True)[:, 0]" % e((2, 3)),
            lambda: "np.std(%s + %s, axis=-1, ddof=1, keepdims=True)[:, 0]" % (e((2, 3)),
                                                                              OFFSETS[3]),
            lambda: "np.linalg.inv(%s) @ %s" % (self._well_conditioned(ctx, depth, 2), e((2,))),
            lambda: "np.linalg.pinv(%s) @ %s" % (self._full_rank(e((3, 2)), (3, 2)), e((3,))),
            lambda: "np.repeat(%s, [2, 0, 0])" % e((3,)),
            lambda: "np.gradient(%s)" % e((2,)),
            lambda: "np.matmul(%s, %s)" % (e((2, 3)), e((3,))),
        ]
        if HAS_SCIPY:
            forms += [
                lambda: self._scipy("scipy.special.logsumexp(%s, axis=1)" % e((2, 3))),
                lambda: self._scipy("scipy.special.softmax(%s)" % e((2,))),
            ]
        return forms

    def _vector_forms(self, ctx, depth):
        e = lambda s: self._e(ctx, s, depth)  # noqa: E731
        forms = [
            # this session's shape rules: index tricks, linspace of arrays, choose, compress,
            # a list to a ufunc, a factorization's tuple read by index
            lambda: "np.r_[%s, %s]" % (e((2,)), e(SCALAR)),
            lambda: "np.linspace(%s, %s, 3)" % (e(SCALAR), e(SCALAR)),
            lambda: "np.choose(np.array([0, 1, 0]), [%s, %s])" % (e((3,)), e(SCALAR)),
            lambda: "np.compress([True, False, True], %s)[[0, 1, 1]]" % e((3,)),
            lambda: "np.multiply([0.5, 1.5, 2.0], %s)" % e((3,)),
            lambda: "np.linalg.eigh(%s)[1][:, 0] ** 2" % self._spd(ctx, depth, 3),
            lambda: "np.cumsum(%s)" % e((3,)),
            lambda: "%s.cumsum()" % e((3,)),
            lambda: "np.nancumsum(%s)" % e((3,)),
            lambda: "np.nancumprod(%s)" % self._bounded(ctx, (3,), depth),
            lambda: "np.cumprod(%s)" % self._bounded(ctx, (3,), depth),
            lambda: "np.cumsum(%s, axis=0)[1]" % e((2, 3)),
            lambda: "np.cumprod(%s, axis=1)[:, 0]" % e((3, 2)),
            lambda: "np.diff(np.concatenate([%s, %s]))" % (e((2,)), e((2,))),
            lambda: "np.diff(%s, axis=0)[0]" % e((2, 3)),
            lambda: "np.concatenate([%s, np.array([%s])])" % (e((2,)), e(SCALAR)),
            lambda: "np.append(%s, %s)" % (e((2,)), e(SCALAR)),
            lambda: "np.hstack([%s, %s[:1]])" % (e((2,)), e((3,))),
            lambda: "np.stack([%s, %s, %s])" % (e(SCALAR), e(SCALAR), e(SCALAR)),
            lambda: "np.flip(%s)" % e((3,)),
            lambda: "np.roll(%s, %d)" % (e((3,)), self.pick([1, -1, 2])),
            lambda: "np.sort(%s + %s)" % (e((3,)), OFFSETS[3]),
            lambda: "np.take(%s, [2, 0, 0])" % e((3,)),
            lambda: "%s.take([1, 2, 0])" % e((3,)),
            lambda: "np.take_along_axis(%s, np.array([[1, 0, 1]]), axis=0)[0]" % e((2, 3)),
            lambda: "np.pad(%s, (1, 0))" % e((2,)),
            lambda: "np.pad(%s, (0, 1), mode=\"edge\")" % e((2,)),
            lambda: "np.pad(%s, (1, 0), mode=\"reflect\")" % e((2,)),
            lambda: "np.linalg.solve(%s, %s)" % (self._well_conditioned(ctx, depth, 3),
                                                 e((3,))),
            lambda: "np.linalg.inv(%s) @ %s" % (self._well_conditioned(ctx, depth, 3), e((3,))),
            lambda: "np.linalg.cholesky(%s) @ %s" % (self._spd(ctx, depth, 3), e((3,))),
            lambda: "np.linalg.eigh(%s)[0]" % self._spd(ctx, depth, 3),
            lambda: "(np.linalg.eigh(%s)[1] ** 2)[:, %d]" % (self._spd(ctx, depth, 3),
                                                            self.rng.randrange(3)),
            lambda: "np.diag(%s)" % self._square(ctx, depth, 3),
            lambda: "np.diag(%s) @ %s" % (e((3,)), e((3,))),
            lambda: "np.tril(%s) @ %s" % (self._square(ctx, depth, 3), e((3,))),
            lambda: "np.triu(%s)[0]" % self._square(ctx, depth, 3),
            lambda: "np.cross(%s, %s)" % (e((3,)), e((3,))),
            lambda: "np.einsum(\"ij,j->i\", %s, %s)" % (self._square(ctx, depth, 3), e((3,))),
            lambda: "np.einsum(\"ji->i\", %s)" % e((2, 3)),
            lambda: "np.tensordot(%s, %s, axes=1)" % (e((2,)), e((2, 3))),
            lambda: "np.var(%s, axis=0)" % e((2, 3)),
            lambda: "np.std(%s + %s, axis=0, ddof=1)" % (e((2, 3)), ROW_OFFSETS),
            lambda: "np.prod(%s, axis=1)" % e((3, 2)),
            lambda: "np.linalg.norm(%s, axis=0)" % e((2, 3)),
            lambda: "np.atleast_2d(%s)[0]" % e((3,)),
            lambda: "np.squeeze(np.expand_dims(%s, 0))" % e((3,)),
            lambda: "np.broadcast_to(%s, (3,))" % e(SCALAR),
            lambda: "np.split(np.ravel(%s), 2)[%d]" % (e((2, 3)), self.rng.randrange(2)),
            lambda: "np.vsplit(%s, 2)[%d][0]" % (e((2, 3)), self.rng.randrange(2)),
            lambda: "np.repeat(%s, 3)" % e(SCALAR),
            lambda: "np.tile(%s, 3)" % e(SCALAR),
            lambda: "np.ravel(np.roll(%s, 2))[1:4]" % e((2, 3)),
            lambda: "np.pad(%s, (1, 0), mode=\"%s\")" % (e((2,)), self.pick(["symmetric",
                                                                             "wrap"])),
            lambda: "np.repeat(%s, [1, 2])" % e((2,)),
            lambda: "%s.repeat(2)[1:4]" % e((2,)),
            lambda: "np.diff(np.concatenate([%s, %s]), n=2)" % (e((3,)), e((2,))),
            lambda: "np.sort(%s + %s, axis=0)[1]" % (e((2, 3)), ROW_OFFSETS),
            lambda: "np.cumsum(%s)[2:5]" % e((2, 3)),
            lambda: "np.max(%s, axis=0, keepdims=True)[0]" % e((2, 3)),
            lambda: "np.linalg.norm(%s, axis=0, keepdims=True)[0]" % e((2, 3)),
            lambda: "np.std(%s + %s, axis=0, keepdims=True)[0]" % (e((2, 3)), ROW_OFFSETS),
            lambda: "np.mean(%s, axis=-2)" % e((2, 3)),
            lambda: "%s.mean(axis=0)" % e((2, 3)),
            lambda: "%s.var(axis=0, ddof=1)" % e((2, 3)),
            lambda: "%s.cumprod(axis=1)[:, 1]" % e((3, 2)),
            lambda: "np.einsum(\"ij,jk,k->i\", %s, %s, %s)" % (
                self._square(ctx, depth, 3), self._square(ctx, depth, 3), e((3,))),
            lambda: "np.linalg.matrix_power(%s, 3) @ %s" % (self._well_conditioned(ctx, depth,
                                                                                  3), e((3,))),
            lambda: "np.linalg.pinv(%s) @ %s" % (self._full_rank(e((2, 3))), e((2,))),
            lambda: "np.gradient(%s)" % e((3,)),
            lambda: "np.atleast_1d(%s) * %s" % (e(SCALAR), e((3,))),
            lambda: "%s.reshape(1, 3).squeeze()" % e((3,)),
            lambda: "np.select([%s > 0.3, %s < -0.3], [%s, %s], default=%s)" % (
                e((3,)), e((3,)), e((3,)), e((3,)), e((3,))),
        ]
        if HAS_SCIPY:
            forms += [
                lambda: self._scipy("scipy.special.softmax(%s)" % e((3,))),
                lambda: self._scipy("scipy.special.log_softmax(%s)" % e((3,))),
                lambda: self._scipy("scipy.special.logsumexp(%s, axis=1)" % e((3, 2))),
                lambda: self._scipy("scipy.linalg.solve(%s, %s)" % (
                    self._well_conditioned(ctx, depth, 3), e((3,)))),
                lambda: self._scipy("scipy.linalg.solve_triangular(np.tril(%s), %s, "
                                    "lower=True)" % (self._well_conditioned(ctx, depth, 3),
                                                     e((3,)))),
                lambda: self._scipy("scipy.linalg.expm(0.3 * np.tanh(%s)) @ %s" % (
                    self._square(ctx, depth, 3), e((3,)))),
            ]
        return forms

    def _wide_forms(self, ctx, depth):
        e = lambda s: self._e(ctx, s, depth)  # noqa: E731
        forms = [
            lambda: "np.c_[%s, %s].T" % (e((3,)), e((3,))),
            lambda: "np.linspace(%s, %s, 2)" % (e((3,)), e((3,))),
            lambda: "np.array([%s, %s])" % (e((3,)), e((3,))),
            lambda: "np.stack([%s, %s])" % (e((3,)), e((3,))),
            lambda: "np.vstack([%s, %s])" % (e((3,)), e((3,))),
            lambda: "np.concatenate([%s.reshape(2, 1), %s[:, 1:]], axis=1)" % (e((2,)),
                                                                             e((2, 3))),
            lambda: "np.column_stack([%s, %s, %s])" % (e((2,)), e((2,)), e((2,))),
            lambda: "np.tile(%s, (2, 1))" % e((3,)),
            lambda: "np.repeat(%s.reshape(1, 3), 2, axis=0)" % e((3,)),
            lambda: "np.repeat(%s, 3).reshape(2, 3)" % e((2,)),
            lambda: "np.kron(%s, %s).reshape(2, 3)" % (e((2,)), e((3,))),
            lambda: "np.einsum(\"i,j->ij\", %s, %s)" % (e((2,)), e((3,))),
            lambda: "np.tensordot(%s, %s, axes=0)" % (e((2,)), e((3,))),
            lambda: "np.swapaxes(%s, 0, 1)" % e((3, 2)),
            lambda: "np.moveaxis(%s, 0, -1)" % e((3, 2)),
            lambda: "np.transpose(%s, (1, 0))" % e((3, 2)),
            lambda: "np.flipud(%s)" % e((2, 3)),
            lambda: "np.fliplr(%s)" % e((2, 3)),
            lambda: "np.flip(%s, axis=1)" % e((2, 3)),
            lambda: "np.roll(%s, 1, axis=1)" % e((2, 3)),
            lambda: "np.rot90(%s)" % e((3, 2)),
            lambda: "np.pad(%s[:, :2], ((0, 0), (1, 0)), mode=\"edge\")" % e((2, 3)),
            lambda: "np.cumsum(%s, axis=1)" % e((2, 3)),
            lambda: "np.cumprod(%s, axis=0)" % e((2, 3)),
            lambda: "np.sort(%s + %s, axis=1)" % (e((2, 3)), OFFSETS[3]),
            lambda: self._centered(e((2, 3))),
            lambda: "%s / np.std(%s + %s, axis=1, keepdims=True)" % (e((2, 3)), e((2, 3)),
                                                                    OFFSETS[3]),
            lambda: "%s * np.sum(%s, axis=1, keepdims=True)" % (e((2, 3)), e((2, 3))),
            lambda: "np.exp(%s - np.max(%s, axis=1, keepdims=True))" % ((e((2, 3)),) * 2),
            lambda: "np.linalg.solve(%s, %s)" % (self._well_conditioned(ctx, depth, 2),
                                                 e((2, 3))),
            lambda: "np.linalg.cholesky(%s) @ %s" % (self._spd(ctx, depth, 2), e((2, 3))),
            lambda: "%s @ np.linalg.inv(%s)" % (e((2, 3)), self._well_conditioned(ctx, depth,
                                                                                 3)),
            lambda: "np.take(%s, [2, 0, 1], axis=1)" % e((2, 3)),
            lambda: "np.broadcast_to(%s, (2, 3))" % e((3,)),
            lambda: "np.atleast_2d(%s) * %s.reshape(2, 1)" % (e((3,)), e((2,))),
            lambda: "np.expand_dims(%s, 0) + np.expand_dims(%s, 1)" % (e((3,)), e((2,))),
            lambda: "np.tril(%s)" % e((2, 3)),
            lambda: "np.triu(%s, 1)" % e((2, 3)),
            lambda: "np.sort(%s + %s, axis=0)" % (e((2, 3)), ROW_OFFSETS),
            lambda: "np.flip(%s)" % e((2, 3)),
            lambda: "np.roll(%s, 2)" % e((2, 3)),
            lambda: "np.take(%s, [1, 1], axis=0)" % e((2, 3)),
            lambda: "np.repeat(%s[:1], 2, axis=0)" % e((2, 3)),
            lambda: "np.tile(%s[:, :1], (1, 3))" % e((2, 3)),
            lambda: "np.cumsum(%s, axis=-1)" % e((2, 3)),
            lambda: "np.diff(np.concatenate([%s, %s[:, :1]], axis=1), axis=1)" % ((e((2, 3)),)
                                                                                   * 2),
            lambda: "np.std(%s + %s, axis=1, ddof=1, keepdims=True) * %s" % (
                e((2, 3)), OFFSETS[3], e((2, 3))),
            lambda: "np.linalg.norm(%s, axis=1, keepdims=True) + %s" % (e((2, 3)), e((2, 3))),
            lambda: "np.prod(%s, axis=0, keepdims=True) + %s" % (e((2, 3)), e((2, 3))),
            lambda: "np.max(%s, axis=0, keepdims=True) * %s" % (e((2, 3)), e((2, 3))),
            lambda: "np.einsum(\"ij,jk->ik\", %s, %s)" % (self._square(ctx, depth, 2),
                                                          e((2, 3))),
            lambda: "np.dstack([%s, %s])[:, :, %d]" % (e((2, 3)), e((2, 3)),
                                                       self.rng.randrange(2)),
            lambda: "np.concatenate([%s, %s]).reshape(2, 3)" % (e((3,)), e((3,))),
            lambda: "np.hsplit(%s, 3)[%d] * %s" % (e((2, 3)), self.rng.randrange(3), e((2, 3))),
            lambda: "np.meshgrid(%s, %s)[%d]" % (e((3,)), e((2,)), self.rng.randrange(2)),
            lambda: "np.meshgrid(%s, %s, indexing=\"ij\")[%d]" % (e((2,)), e((3,)),
                                                                  self.rng.randrange(2)),
            lambda: "np.linalg.inv(%s) @ %s" % (self._well_conditioned(ctx, depth, 2),
                                                e((2, 3))),
            lambda: "np.where(%s > 0.1, %s, %s)" % (e((2, 3)), e((2, 3)), e((3,))),
            lambda: "%s.mean(axis=1, keepdims=True) * %s" % (e((2, 3)), e((2, 3))),
            lambda: "%s.swapaxes(0, 1)" % e((3, 2)),
            lambda: "%s.cumsum(axis=1)" % e((2, 3)),
            lambda: "np.where(%s > %s, %s, 0.5 * %s)" % (e((2, 3)), self.constant(-0.5, 0.5),
                                                         e((2, 3)), e((2, 3))),
            lambda: "np.var(%s, axis=1, keepdims=True) + %s" % (e((2, 3)), e((2, 3))),
        ]
        if HAS_SCIPY:
            forms += [
                lambda: self._scipy("%s - scipy.special.logsumexp(%s, axis=1, keepdims=True)"
                                    % ((e((2, 3)),) * 2)),
                lambda: self._scipy("scipy.special.softmax(%s, axis=1)" % e((2, 3))),
                lambda: self._scipy("scipy.special.log_softmax(%s, axis=0)" % e((2, 3))),
            ]
        return forms

    def _centered(self, x):
        return "%s - np.mean(%s, axis=1, keepdims=True)" % (x, x)

    def _tall_forms(self, ctx, depth):
        e = lambda s: self._e(ctx, s, depth)  # noqa: E731
        return [
            lambda: "np.swapaxes(%s, 0, 1)" % e((2, 3)),
            lambda: "%s.transpose()" % e((2, 3)),
            lambda: "np.column_stack([%s, %s])" % (e((3,)), e((3,))),
            lambda: "np.stack([%s, %s], axis=1)" % (e((3,)), e((3,))),
            lambda: "np.hstack([%s.reshape(3, 1), %s.reshape(3, 1)])" % (e((3,)), e((3,))),
            lambda: "np.rot90(%s)" % e((2, 3)),
            lambda: "np.einsum(\"ij->ji\", %s)" % e((2, 3)),
            lambda: "np.linalg.solve(%s, %s)" % (self._well_conditioned(ctx, depth, 3),
                                                 e((3, 2))),
            lambda: "np.flip(%s, axis=0)" % e((3, 2)),
            lambda: "np.cumsum(%s, axis=0)" % e((3, 2)),
            lambda: "np.diff(%s, axis=0)" % "np.concatenate([%s, %s[:1]])" % (e((3, 2)),
                                                                              e((3, 2))),
            # (q's columns are read squared: their signs are LAPACK's choice)
            lambda: "np.linalg.qr(%s)[0] ** 2" % self._full_rank(e((3, 2)), (3, 2)),
            lambda: "np.linalg.pinv(%s)" % self._full_rank(e((2, 3))),
            lambda: "np.linalg.lstsq(%s, %s, rcond=None)[0]" % (
                self._well_conditioned(ctx, depth, 3), e((3, 2))),
            lambda: "np.kron(%s.reshape(3, 1), %s.reshape(1, 2))" % (e((3,)), e((2,))),
            lambda: "np.repeat(%s, 2).reshape(3, 2)" % e((3,)),
            lambda: "np.stack([%s, %s], axis=-1)" % (e((3,)), e((3,))),
            lambda: "np.sort(%s + %s, axis=1)" % (e((3, 2)), OFFSETS[2]),
            lambda: "np.moveaxis(%s, 1, 0)" % e((2, 3)),
        ]

    # ------------------------------------------------------------- statements

    def stmt_unpack(self, ctx):
        """A primitive returning several values, unpacked: eigh, slogdet, split, qr."""
        kind = self.pick(["eigh", "slogdet", "split", "array_split"])
        if kind == "eigh":
            values, vectors, squares = self.fresh("w"), self.fresh("q"), self.fresh("v")
            matrix = self._spd(ctx, 2, 3)
            self.store(ctx, values, self.array_type((3,)), "np.zeros(3)")
            self.store(ctx, squares, self.array_type((3,)), "np.zeros(3)")
            # eigenvectors' signs are arbitrary: read squared
            return ["%s, %s = np.linalg.eigh(%s)" % (values, vectors, matrix),
                    "%s = %s[:, %d] ** 2" % (squares, vectors, self.rng.randrange(3))]
        if kind == "slogdet":
            sign, logdet = self.fresh("s"), self.fresh("s")
            matrix = self._spd(ctx, 2, self.pick([2, 3]))
            self.store(ctx, sign, self.array_type(SCALAR), "1.0")
            self.store(ctx, logdet, self.array_type(SCALAR), "1.0")
            return ["%s, %s = np.linalg.slogdet(%s)" % (sign, logdet, matrix)]
        first, second = self.fresh("v"), self.fresh("v")
        source = self.expr(ctx, (2, 3), 2)
        if kind == "split":
            text = "np.split(np.ravel(%s), 2)" % self.wrap(source)
        else:
            text = "np.array_split(%s, 2)" % self.wrap("%s.reshape(6)" % self.wrap(source))
        # the parts are views of the array split: owned only when that one is new
        self.store(ctx, first, self.array_type((3,)), "np.ravel(%s)" % self.wrap(source))
        self.store(ctx, second, self.array_type((3,)), "np.ravel(%s)" % self.wrap(source))
        return ["%s, %s = %s" % (first, second, text)]


def primitive_names():
    """Every NumPy/SciPy/math name the library forms call (for the report and a test)."""
    import inspect
    import re

    text = inspect.getsource(LibraryForms)
    names = set(re.findall(r"\b((?:np|scipy|math)\.[a-z_0-9.]+[a-z_0-9])\(", text))
    names |= {"ndarray." + m for m in re.findall(r"%s\.([a-z_]+)\(", text)}
    return sorted(names)
