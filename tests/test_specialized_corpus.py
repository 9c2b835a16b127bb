"""Specialized code of the whole template corpus calls no generic runtime helper.

For every case of tests/template_combos.py (and tests/scipy_combos.py) and every shape
combination, tests/specialized_corpus.py generates the gradient and the jvp specialized on
the example arguments' kinds and lists the generic helpers left in them (``GENERIC`` there
says which helpers are generic, and why). Shape rules (srcad/templates/*.py) and specializers
(srcad/templates/runtime_helpers.py) precise enough remove them all.

``ALLOWED`` lists the cases where some stay, each with the helpers it may call and why.
It may only shrink: a case calling a helper its entry does not list fails, and so does an
entry listing a helper the case no longer calls. ``python -m tests.specialized_corpus``
prints the counts.
"""

from tests.specialized_corpus import census

# why a case keeps generic helpers
NO_RULE = ("a value on the way has no shape rule (a runtime helper of the case, a primitive "
           "without a rule yet: cross, lstsq, choose, compress, extract, np.r_, "
           "multivariate_normal; a list of unknown length, a dict, an object's attribute; "
           "a value that is a number in one iteration and an array in the next): everything "
           "after it is generic")
SIZE = ("a size the kinds do not tell (a slice, an index array or mask, a computed length, a "
        "join's, a split's piece's or a delete's size): whether it is 1, so whether to sum, "
        "is decided at run time")
MIXED_SCALARS = ("max or min of a NumPy scalar and a Python float is either one, as the values "
                 "decide: whether the tangent is made a Python float is decided at run time")
EMPTY_SUM = ("sum() of a vector: a NumPy scalar, or sum's start (a Python int or float) when "
             "the vector is empty; the kinds say 'not 1', never 'not 0'")
BLOCK_HALF = ("the tangent is the corner of a power of the block matrix [[a, da], [0, a]]: "
              "half its size, whether 1 or not, is more than the kinds tell")
JOIN = ("a join, insert or delete of sizes the kinds do not tell: joined along an axis, a "
        "piece of size 1 and one not of size 1 (0 included) may make a size of 1")
DIAGONAL = ("a diagonal's length may be 1 (an offset diagonal of any sizes; np.diag(v, 1) of "
            "a vector v of size other than 1, which may be 0): the kinds do not tell")
HELPER_ITSELF = ("the case checks a generic helper itself (its template case), on "
                 "arguments of every kind")

CONVOLUTION_VALID = ("a 'valid' convolution's length (the longer less the shorter, plus one) "
                     "may be 1: the kinds do not tell")
KNOTS_GLOBAL = ("np.interp's knots are a module's array (a global has no kind: it may be "
                "rebound), so the length of rt.interp_transpose's result is not known")

ODE = ("odeint's times (and solve_ivp's) are a module's array in these cases (a global has no "
       "kind: it may be rebound), so the number of rows of the result is not known; solve_ivp "
       "returns an object (its .y) no shape rule follows")

ALLOWED = {
    'integrate_odeint': (ODE, {'match_tangent', 'unbroadcast', 'zeros_like'}),
    'integrate_odeint_adjoint': (ODE, {'match_tangent', 'zeros_like'}),
    'integrate_solve_ivp': (ODE, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'unbroadcast', 'unit_seed'}),
    'integrate_solve_ivp_adjoint': (ODE, {'match_tangent'}),
    'interp_helpers': (KNOTS_GLOBAL, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'unbroadcast', 'unit_seed'}),
    'np_convolve_and_correlate': (CONVOLUTION_VALID, {'match_tangent', 'unbroadcast'}),
    'signal_convolve2d_and_correlate2d': (CONVOLUTION_VALID, {'match_tangent', 'unbroadcast'}),
    'signal_convolve_and_correlate': (CONVOLUTION_VALID, {'match_tangent', 'unbroadcast'}),
    'valid_correlation': (CONVOLUTION_VALID, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'unbroadcast', 'unit_seed'}),
    'all_but_last_directly': (NO_RULE, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'unbroadcast', 'unit_seed'}),
    'appended_directly': (NO_RULE, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'unbroadcast', 'unit_seed'}),
    'attribute_of_pair': (NO_RULE, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'match_type', 'unbroadcast',
        'unit_seed'}),
    'cross': (NO_RULE, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'unbroadcast', 'unit_seed'}),
    'cross_axes': (NO_RULE, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'unbroadcast', 'unit_seed'}),
    'entries_of': (NO_RULE, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'unbroadcast', 'unit_seed'}),
    'expm': (NO_RULE, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'unbroadcast', 'unit_seed'}),
    'field_of': (NO_RULE, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'match_type', 'unbroadcast',
        'unit_seed'}),
    'field_of_layer': (NO_RULE, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'match_type', 'unbroadcast',
        'unit_seed'}),
    'item_mask[full]': (NO_RULE, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'unbroadcast', 'unit_seed'}),
    'joined': (NO_RULE, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'unbroadcast', 'unit_seed'}),
    'list_of_rows': (NO_RULE, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'unbroadcast', 'unit_seed'}),
    'loop_over': (NO_RULE, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'unbroadcast', 'unit_seed',
        'zeros_like'}),
    'merged_entries': (NO_RULE, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'unbroadcast', 'unit_seed'}),
    'merged_tangent': (NO_RULE, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'unbroadcast', 'unit_seed'}),
    'meshgrid_part': (NO_RULE, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'unbroadcast', 'unit_seed'}),
    'meshgrid_tangent': (NO_RULE, {'unbroadcast'}),
    'meshgrid_tangent_adjoint': (NO_RULE, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'unbroadcast', 'unit_seed'}),
    'nancumprod_of_nans': (NO_RULE, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'unbroadcast', 'unit_seed'}),
    'nancumsum_of_nans': (NO_RULE, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'unbroadcast', 'unit_seed'}),
    'nanprod_of_nans': (NO_RULE, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'unbroadcast', 'unit_seed'}),
    'nanstd_of_nans': (NO_RULE, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'unbroadcast', 'unit_seed'}),
    'nanvar_of_nans': (NO_RULE, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'unbroadcast', 'unit_seed'}),
    'output_part_adjoint': (NO_RULE, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'unbroadcast', 'unit_seed'}),
    'pop_in_place': (NO_RULE, {'match_tangent'}),
    'pop_items': (NO_RULE, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'unbroadcast', 'unit_seed'}),
    'r_with_range': (NO_RULE, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'unbroadcast', 'unit_seed',
        'zeros_like'}),
    'scipy_qr': (NO_RULE, {'match_tangent', 'unbroadcast'}),
    'scipy_qr_r': (NO_RULE, {'match_tangent', 'unbroadcast'}),
    'scipy_svd': (NO_RULE, {'match_tangent'}),
    'scipy_svd_values': (NO_RULE, {'match_tangent'}),
    'sequence_adjoint': (NO_RULE, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'unbroadcast', 'unit_seed'}),
    'sequence_tangent': (NO_RULE, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'unbroadcast', 'unit_seed'}),
    'sum_adjoint': (NO_RULE, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'unbroadcast', 'unit_seed'}),
    'sum_tangent': (NO_RULE, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'unbroadcast', 'unit_seed'}),
    'tuple_of_rows': (NO_RULE, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'unbroadcast', 'unit_seed'}),
    'unfield': (NO_RULE, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'unbroadcast', 'unit_seed'}),
    'append_axis': (JOIN, {'match_tangent', 'unbroadcast'}),
    'append_flat': (JOIN, {'match_tangent', 'unbroadcast'}),
    'append_in_place': (JOIN, {'match_tangent'}),
    'append_items': (JOIN, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'unbroadcast', 'unit_seed'}),
    'append_ragged': (JOIN, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'unbroadcast', 'unit_seed'}),
    'c_of': (JOIN, {'match_tangent', 'unbroadcast'}),
    'column_stack': (JOIN, {'match_tangent', 'unbroadcast'}),
    'concatenate': (JOIN, {'match_tangent', 'unbroadcast'}),
    'concatenate_axis': (JOIN, {'match_tangent', 'unbroadcast'}),
    'delete': (JOIN, {'match_tangent', 'unbroadcast'}),
    'delete_flat': (JOIN, {'match_tangent', 'unbroadcast'}),
    'dstack': (JOIN, {'match_tangent', 'unbroadcast'}),
    'hstack_unequal': (JOIN, {'match_tangent', 'unbroadcast'}),
    'insert': (JOIN, {'match_tangent', 'unbroadcast'}),
    'insert_adjoint': (JOIN, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'unbroadcast', 'unit_seed'}),
    'insert_axis': (JOIN, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'unbroadcast', 'unit_seed'}),
    'inserted_part': (JOIN, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'unbroadcast', 'unit_seed'}),
    'r_of': (JOIN, {'match_tangent', 'unbroadcast'}),
    'vstack': (JOIN, {'match_tangent', 'unbroadcast'}),
    'builtin_max': (MIXED_SCALARS, {'match_tangent'}),
    'builtin_min': (MIXED_SCALARS, {'match_tangent'}),
    'builtin_sum': (EMPTY_SUM, {'match_tangent'}),
    'builtin_sum_start': (EMPTY_SUM, {'match_tangent'}),
    'matrix_power': (BLOCK_HALF, {'match_tangent'}),
    'matrix_power_negative': (BLOCK_HALF, {'match_tangent'}),
    'diag_vector': (DIAGONAL, {'match_tangent', 'unbroadcast'}),
    'diagonal': (DIAGONAL, {'match_tangent', 'unbroadcast'}),
    'diagonal_adjoint': (DIAGONAL, {'unbroadcast'}),
    'added_at_fancy': (SIZE, {'unbroadcast'}),
    'arange_by': (SIZE, {'match_tangent', 'unbroadcast'}),
    'arange_from': (SIZE, {'match_tangent', 'unbroadcast'}),
    'arange_to': (SIZE, {'match_tangent', 'unbroadcast'}),
    'array_split': (SIZE, {'match_tangent', 'unbroadcast'}),
    'array_split_axis': (SIZE, {'match_tangent', 'unbroadcast'}),
    'band_of': (SIZE, {'match_tangent', 'unbroadcast'}),
    'block_diagonal_sum': (SIZE, {'match_tangent', 'unbroadcast'}),
    'block_upper': (SIZE, {'unbroadcast'}),
    'compress': (SIZE, {'match_tangent', 'unbroadcast'}),
    'compress_method': (SIZE, {'match_tangent', 'unbroadcast'}),
    'diff_keyword': (SIZE, {'match_tangent', 'unbroadcast'}),
    'diff_last': (SIZE, {'match_tangent', 'unbroadcast'}),
    'diff_twice': (SIZE, {'match_tangent', 'unbroadcast'}),
    'dsplit': (SIZE, {'match_tangent', 'unbroadcast'}),
    'eigh_upper': (SIZE, {'unbroadcast'}),
    'einsum_implicit': (SIZE, {'unbroadcast'}),
    'extract': (SIZE, {'match_tangent', 'unbroadcast'}),
    'hsplit': (SIZE, {'match_tangent', 'unbroadcast'}),
    'item_block': (SIZE, {'match_tangent', 'unbroadcast'}),
    'item_fancy': (SIZE, {'match_tangent', 'unbroadcast'}),
    'item_mask[first axis]': (SIZE, {'match_tangent', 'unbroadcast'}),
    'item_pairs': (SIZE, {'match_tangent', 'unbroadcast'}),
    'item_slice': (SIZE, {'match_tangent', 'unbroadcast'}),
    'item_slice_by_argument': (SIZE, {'match_tangent', 'unbroadcast'}),
    'item_step': (SIZE, {'match_tangent', 'unbroadcast'}),
    'math_fsum': (SIZE, {'unbroadcast'}),
    'np_fmod': (SIZE, {'match_tangent', 'unbroadcast'}),
    'qr_rectangular': (SIZE, {'match_tangent', 'unbroadcast'}),
    'qr_square': (SIZE, {'match_tangent', 'unbroadcast'}),
    'repeat_axis': (SIZE, {'match_tangent', 'unbroadcast'}),
    'repeat_each': (SIZE, {'match_tangent', 'unbroadcast'}),
    'repeat_flat': (SIZE, {'match_tangent', 'unbroadcast'}),
    'repeat_method': (SIZE, {'match_tangent', 'unbroadcast'}),
    'reshape_fortran': (SIZE, {'match_tangent', 'unbroadcast'}),
    'set_fancy': (SIZE, {'unbroadcast'}),
    'set_item': (SIZE, {'unbroadcast'}),
    'set_slice': (SIZE, {'unbroadcast'}),
    'sort_flat': (SIZE, {'match_tangent', 'unbroadcast'}),
    'split_one_part_used': (SIZE, {'match_tangent', 'unbroadcast'}),
    'split_sections': (SIZE, {'match_tangent', 'unbroadcast'}),
    'split_unequal': (SIZE, {'match_tangent', 'unbroadcast'}),
    'updated_directly': (SIZE, {'unbroadcast'}),
    'upper_right_block': (SIZE, {'match_tangent', 'unbroadcast'}),
    'vsplit': (SIZE, {'match_tangent', 'unbroadcast'}),
    'check_scalar_output': (HELPER_ITSELF, {'check_scalar_output'}),
    'dot_adjoint_left': (HELPER_ITSELF, {'dot_adjoint_left', 'match_tangent'}),
    'dot_adjoint_right': (HELPER_ITSELF, {'dot_adjoint_right', 'match_tangent'}),
    'expand_reduced_all': (HELPER_ITSELF, {'expand_reduced'}),
    'expand_reduced_axis': (HELPER_ITSELF, {'expand_reduced'}),
    'expand_reduced_keepdims': (HELPER_ITSELF, {'expand_reduced'}),
    'match_tangent': (HELPER_ITSELF, {'match_tangent'}),
    'match_type': (HELPER_ITSELF, {'match_type'}),
    'matmul_adjoint_left': (HELPER_ITSELF, {'matmul_adjoint_left'}),
    'matmul_adjoint_right': (HELPER_ITSELF, {'matmul_adjoint_right'}),
    'reduced_kept_all': (HELPER_ITSELF, {'reduced_kept'}),
    'reduced_kept_axis': (HELPER_ITSELF, {'reduced_kept'}),
    'reduced_kept_keepdims': (HELPER_ITSELF, {
        'check_scalar_output', 'expand_reduced', 'match_tangent', 'reduced_kept', 'unbroadcast',
        'unit_seed'}),
    'unbroadcast': (HELPER_ITSELF, {'unbroadcast'}),
    'weighted': (HELPER_ITSELF, {'weighted'}),
    'weighted_by_none': (HELPER_ITSELF, {'weighted'}),
}


def test_no_generic_helper_outside_the_allowed_cases():
    found, _ = census()
    unexpected = {}
    for name, left in found.items():
        allowed = ALLOWED.get(name, (None, set()))[1]
        for label, helpers in left.items():
            extra = sorted(set(helpers) - allowed)
            if extra:
                unexpected.setdefault(name, {})[label] = extra
    assert not unexpected, (
        "generic runtime helpers in specialized code (a shape rule or specializer lost "
        "precision?): %s" % unexpected)


def test_allowed_cases_still_need_their_helpers():
    found, _ = census()
    stale = {}
    for name, (_, helpers) in ALLOWED.items():
        called = set()
        for counter in found.get(name, {}).values():
            called |= set(counter)
        if set(helpers) - called:
            stale[name] = sorted(set(helpers) - called)
    assert not stale, "remove these from ALLOWED (specialized now): %s" % stale
