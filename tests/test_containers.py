"""Containers, comprehensions, builtins and array methods against finite differences."""

import numpy as np
import pytest

import srcad
from tests import container_functions as cf
from tests._fd import assert_gradients_match

RNG = np.random.RandomState(11)
CASES = [
    (cf.tuple_literal_and_index, (0.7, 1.3), (0, 1)),
    (cf.unpacking, (0.7, 1.3), (0, 1)),
    (cf.dict_with_string_keys, (0.7, 1.3), (0, 1)),
    (cf.tuple_from_helper, (0.7,), (0,)),
    (cf.summed_generator, (RNG.randn(4), RNG.randn(4)), (0, 1)),
    (cf.summed_list_comprehension, (RNG.randn(3),), (0,)),
    (cf.builtins_of_two, (0.7, 1.3), (0, 1)),
    (cf.builtins_of_two, (1.9, 1.3), (0, 1)),
    (cf.reductions_max_min, (RNG.randn(3, 4),), (0,)),
    (cf.astype_and_norm, (RNG.randn(3, 4),), (0,)),
    (cf.array_methods, (RNG.randn(3, 4), RNG.randn(3)), (0, 1)),
    (cf.namedtuple_fields, (0.7, 1.3), (0, 1)),
    (cf.dataclass_fields, (0.7, cf.Settings(1.5, -0.2)), (0,)),
    (cf.calls_varargs_and_kwargs, (0.7, 1.3), (0, 1)),
    (cf.list_append_in_loop, (0.7, 5), (0,)),
    (cf.starred_unpacking, (0.7, 1.3, -0.4), (0, 1, 2)),
    (cf.loop_over_varargs, (0.7, 1.3), (0, 1)),
    (cf.loop_over_active_tuple, (0.7, 1.3), (0, 1)),
    (cf.integer_bookkeeping, (0.7, 5), (0,)),
    (cf.list_of_arrays, (RNG.randn(3) * 0.5, 4), (0,)),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0].__name__ + "-" + str(c[1][0])[:5])
def test_gradient_matches_finite_differences(case):
    function, args, wrt = case
    assert_gradients_match(function, args, wrt)


def test_integers_get_no_adjoint_code():
    source = srcad.source(cf.integer_bookkeeping, example_args=(0.7, 5))
    assert "count_bar" not in source and "i_bar" not in source and "n_bar" not in source
