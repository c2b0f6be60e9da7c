/* test_edit_transpose.c: emit/edit.c's transposed copies of a tensor's data
 * (edit_view_transposed), which the fold writes for constants it relays or moves.
 *
 * Each case builds a view as the loader would (raw_data, or the typed field its
 * element type uses) and checks every element against the transpose computed here
 * by its definition (output index k reads input dim perm[k]): raw float, int64 in
 * int64_data, float16 in int32_data, complex64 as two floats an element, a
 * transpose followed by new dims of the same count, a rank-1 view padded with 1s.
 * Refused: a count that differs from the dims', an external tensor, strings, a
 * four-bit type, a permutation out of range.
 */
#include "core/arena.h"
#include "core/dtype.h"
#include "emit/edit.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

static arena *A;

static void setup(void) { A = arena_new(UINT64_C(1) << 26); }
static void teardown(void) { arena_free(A); }

TestSuite(edit_transpose, .init = setup, .fini = teardown);

static tensor_view view(int32_t dtype, const int64_t *dims, int32_t rank)
{
	int64_t c = 1;
	for (int32_t k = 0; k < rank; k++)
		c *= dims[k];
	return (tensor_view){.name = "t", .dtype = dtype, .rank = rank, .dims = dims, .count = c, .valid = true};
}

/* The input offset of output element n of the transpose of dims by perm. */
static size_t source_of(int64_t n, const int64_t *dims, const int64_t *perm, int32_t rank)
{
	int64_t out[8], idx[8], stride[8], st = 1;
	for (int32_t k = rank - 1; k >= 0; k--) {
		stride[k] = st;
		st *= dims[k];
	}
	for (int32_t k = 0; k < rank; k++)
		out[k] = dims[perm[k]];
	for (int32_t k = rank - 1; k >= 0; k--) {
		idx[k] = n % out[k];
		n /= out[k];
	}
	int64_t off = 0;
	for (int32_t k = 0; k < rank; k++)
		off += idx[k] * stride[perm[k]];
	return (size_t)off;
}

Test(edit_transpose, raw_floats_of_rank_three)
{
	int64_t dims[3] = {2, 3, 4}, perm[3] = {2, 0, 1};
	float data[24];
	for (int k = 0; k < 24; k++)
		data[k] = (float)k * 1.5f;
	tensor_view v = view(DT_FLOAT, dims, 3);
	v.raw = (const uint8_t *)data;
	v.raw_len = sizeof data;
	const tensor_view *t = edit_view_transposed(A, &v, dims, perm, 3, NULL, 0);
	cr_assert_not_null(t);
	cr_assert_eq(t->rank, 3);
	cr_assert(t->dims[0] == 4 && t->dims[1] == 2 && t->dims[2] == 3);
	cr_assert_eq(t->raw_len, sizeof data);
	const float *out = (const float *)t->raw;
	for (int64_t n = 0; n < 24; n++)
		cr_assert_eq(out[n], data[source_of(n, dims, perm, 3)], "element %lld", (long long)n);
	cr_assert_eq(data[5], 7.5f, "the source is left as it was");
}

Test(edit_transpose, int64_in_its_typed_field)
{
	int64_t dims[2] = {3, 5}, perm[2] = {1, 0};
	int64_t data[15];
	for (int k = 0; k < 15; k++)
		data[k] = INT64_C(1) << 40 | k;
	tensor_view v = view(DT_INT64, dims, 2);
	v.i64 = data;
	v.ntyped = 15;
	const tensor_view *t = edit_view_transposed(A, &v, dims, perm, 2, NULL, 0);
	cr_assert_not_null(t);
	cr_assert_null(t->raw);
	cr_assert_eq(t->ntyped, 15);
	for (int64_t n = 0; n < 15; n++)
		cr_assert_eq(t->i64[n], data[source_of(n, dims, perm, 2)]);
}

Test(edit_transpose, float16_in_int32_data)
{
	/* The narrow types keep one element an int32 entry (TensorProto.int32_data). */
	int64_t dims[2] = {2, 3}, perm[2] = {1, 0};
	int32_t data[6] = {0x3c00, 0x4000, 0x4200, 0x4400, 0x4500, 0x4600};
	tensor_view v = view(DT_FLOAT16, dims, 2);
	v.i32 = data;
	v.ntyped = 6;
	const tensor_view *t = edit_view_transposed(A, &v, dims, perm, 2, NULL, 0);
	cr_assert_not_null(t);
	int32_t want[6] = {0x3c00, 0x4400, 0x4000, 0x4500, 0x4200, 0x4600};
	cr_assert_arr_eq(t->i32, want, sizeof want);
}

Test(edit_transpose, complex_numbers_move_whole)
{
	int64_t dims[2] = {2, 2}, perm[2] = {1, 0};
	float data[8] = {1, -1, 2, -2, 3, -3, 4, -4}; /* (1-1i) (2-2i); (3-3i) (4-4i) */
	tensor_view v = view(DT_COMPLEX64, dims, 2);
	v.f32 = data;
	v.ntyped = 8;
	const tensor_view *t = edit_view_transposed(A, &v, dims, perm, 2, NULL, 0);
	cr_assert_not_null(t);
	float want[8] = {1, -1, 3, -3, 2, -2, 4, -4};
	cr_assert_arr_eq(t->f32, want, sizeof want);
}

Test(edit_transpose, new_dims_after_the_transpose)
{
	int64_t dims[2] = {2, 3}, perm[2] = {1, 0}, out[3] = {1, 6, 1};
	uint8_t data[6] = {10, 11, 12, 20, 21, 22};
	tensor_view v = view(DT_UINT8, dims, 2);
	v.raw = data;
	v.raw_len = 6;
	const tensor_view *t = edit_view_transposed(A, &v, dims, perm, 2, out, 3);
	cr_assert_not_null(t);
	cr_assert_eq(t->rank, 3);
	cr_assert(t->dims[0] == 1 && t->dims[1] == 6 && t->dims[2] == 1);
	uint8_t want[6] = {10, 20, 11, 21, 12, 22};
	cr_assert_arr_eq(t->raw, want, sizeof want);
	int64_t wrong[2] = {2, 4};
	cr_assert_null(edit_view_transposed(A, &v, dims, perm, 2, wrong, 2), "a count other than the data's");
}

Test(edit_transpose, a_vector_padded_to_a_layout)
{
	/* A [C] weight as the fold relays it from NHWC to NCHW: dims (1, 1, 1, C) read
	 * with the permutation (0, 3, 1, 2): the same data under (1, C, 1, 1). */
	int64_t own[1] = {4}, dims[4] = {1, 1, 1, 4}, perm[4] = {0, 3, 1, 2};
	double data[4] = {0.5, -1, 2, 8};
	tensor_view v = view(DT_DOUBLE, own, 1);
	v.f64 = data;
	v.ntyped = 4;
	const tensor_view *t = edit_view_transposed(A, &v, dims, perm, 4, NULL, 0);
	cr_assert_not_null(t);
	cr_assert(t->rank == 4 && t->dims[0] == 1 && t->dims[1] == 4 && t->dims[2] == 1 && t->dims[3] == 1);
	cr_assert_arr_eq(t->f64, data, sizeof data);
}

Test(edit_transpose, refusals)
{
	int64_t dims[2] = {2, 3}, perm[2] = {1, 0}, bad_perm[2] = {0, 2}, other[2] = {2, 2};
	float data[6] = {0};
	tensor_view v = view(DT_FLOAT, dims, 2);
	v.raw = (const uint8_t *)data;
	v.raw_len = sizeof data;
	cr_assert_null(edit_view_transposed(A, &v, other, perm, 2, NULL, 0), "dims of another count");
	cr_assert_null(edit_view_transposed(A, &v, dims, bad_perm, 2, NULL, 0), "a permutation out of range");
	tensor_view ext = v;
	ext.external = true;
	cr_assert(!edit_view_copyable(&ext));
	cr_assert_null(edit_view_transposed(A, &ext, dims, perm, 2, NULL, 0), "data in another file");
	tensor_view str = view(DT_STRING, dims, 2);
	cr_assert(!edit_view_copyable(&str));
	tensor_view nib = view(DT_INT4, dims, 2);
	nib.raw = (const uint8_t *)data;
	nib.raw_len = 3;
	cr_assert(!edit_view_copyable(&nib), "four bits an element: no byte to move");
	cr_assert(edit_view_copyable(&v));
}
