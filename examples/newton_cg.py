"""Newton-CG minimization of the n-dimensional Rosenbrock function with srcad.

scipy.optimize.minimize(method="Newton-CG") takes the gradient (jac=) and a
Hessian-vector product (hessp=); srcad generates both from the plain Python
function below. The Hessian is never formed: each product costs about as
much as a gradient.

    python examples/newton_cg.py [N]
"""

import sys
import time

import numpy as np
from scipy.optimize import minimize

import srcad


def rosenbrock(x):
    total = 0.0
    for i in range(x.shape[0] - 1):
        total = total + 100.0 * (x[i + 1] - x[i] * x[i]) ** 2 + (1.0 - x[i]) ** 2
    return total


def main(n=100):
    gradient = srcad.grad(rosenbrock)
    hessian_vector_product = srcad.hvp(rosenbrock)
    x0 = np.full(n, -1.2)
    x0[1::2] = 1.0
    started = time.perf_counter()
    result = minimize(rosenbrock, x0, method="Newton-CG", jac=gradient,
                      hessp=hessian_vector_product, options={"xtol": 1e-10})
    elapsed = time.perf_counter() - started
    print("Rosenbrock, n = %d: %s" % (n, result.message))
    print("  f(x*) = %.3e after %d iterations (%d gradients, %d Hessian-vector products), %.2f s"
          % (result.fun, result.nit, result.njev, result.nhev, elapsed))
    print("  max |x* - 1| = %.2e" % np.max(np.abs(result.x - 1.0)))
    return 0 if result.success and np.allclose(result.x, 1.0, atol=1e-5) else 1


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 100))
