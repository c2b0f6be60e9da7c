/* rules_signal.c: generators whose output size is an input's value (the window
 * functions BlackmanWindow, HammingWindow, HannWindow and MelWeightMatrix, all from
 * opset 17), and ImageDecoder (20), whose height and width are in the encoded bytes.
 *
 * A size that is an input's value is exact when the value is known (a constant, or
 * given with --input-data), the value's symbol when it came from a shape, and a fresh
 * symbol otherwise: a size fixed at run time. `periodic` only changes the values of a
 * window, never its length.
 */
#include "passes/rules/rule_protos.h"

#include "core/arena.h"
#include "core/dtype.h"
#include "passes/rules/image_header.h"
#include "passes/rules/rules_tensor.h"

#include <string.h>

/* output_datatype of the window functions and MelWeightMatrix: the numeric types of
 * their T2 / T3 constraint (no bool, string or complex). 0 when out of that set
 * (reported). */
static int32_t numeric_output_type(infer_ctx *c)
{
	static const int32_t allowed[] = {DT_UINT8,   DT_UINT16, DT_UINT32, DT_UINT64, DT_INT8,  DT_INT16,
					  DT_INT32,   DT_INT64,  DT_FLOAT16, DT_FLOAT,  DT_DOUBLE, DT_BFLOAT16};
	int64_t t = attr_i(c, "output_datatype", DT_FLOAT);
	for (size_t k = 0; k < sizeof allowed / sizeof allowed[0]; k++)
		if (allowed[k] == t)
			return (int32_t)t;
	tr_error(c, "output_datatype %lld is not a numeric tensor type (%s)", (long long)t,
		 dtype_valid(t) ? dtype_name(t) : "invalid");
	return 0;
}

/* The value of scalar input i (what: its name in messages) as a size: known, a
 * symbol, or fresh when not known; false (reported) when it is not an integer
 * scalar or is negative. */
static bool size_input(infer_ctx *c, int32_t i, const char *what, dim *out)
{
	const tinfo *t = in_tensor(c, i);
	if (t && t->elem && t->elem != DT_INT32 && t->elem != DT_INT64) {
		tr_error(c, "%s '%s' is %s, must be INT32 or INT64", what, in_name(c, i), dtype_name(t->elem));
		return false;
	}
	if (t && t->rank > 0) {
		/* ONNX's inference refuses a non-scalar whose content the file fixes; for
		 * any other, ONNX Runtime's kernels want one element, of whatever rank. */
		int64_t count = 1;
		for (int32_t k = 0; k < t->rank && count >= 0; k++) {
			dim d = dim_resolve(c->syms, t->dims[k]);
			if (d.kind != DIM_KNOWN || __builtin_mul_overflow(count, d.v, &count))
				count = -1;
		}
		const value *v = &c->g->values[c->n->inputs[i]];
		bool fixed = in_stored_tensor(c, i) ||
			     (v->origin == VAL_NODE && v->producer >= 0 &&
			      !strcmp(c->g->nodes[v->producer].op_type, "Constant"));
		if (fixed || (count >= 0 && count != 1)) {
			tr_error(c, "%s '%s' must be a scalar, it is %s", what, in_name(c, i), fmt_shape(c, t));
			return false;
		}
		infer_diag(c, OSH_WARNING, DIAG_NOT_IN_SPEC,
			   "%s '%s' is %s: the spec wants a scalar (ONNX Runtime runs a tensor of one element)", what,
			   in_name(c, i), fmt_shape(c, t));
	}
	dim v;
	if (!in_int1(c, i, &v) || v.kind == DIM_UNKNOWN) {
		*out = dim_fresh(c);
		return true;
	}
	if (v.kind == DIM_KNOWN && v.v < 0) {
		tr_error(c, "%s is %lld, must be >= 0", what, (long long)v.v);
		return false;
	}
	*out = v;
	return true;
}

/* BlackmanWindow, HammingWindow, HannWindow: (size). */
void infer_window(infer_ctx *c)
{
	int32_t elem = numeric_output_type(c);
	dim n;
	if (!size_input(c, 0, "size", &n)) {
		set_out_elem(c, 0, elem);
		return;
	}
	set_out(c, 0, elem, 1, &n);
}

/* [floor(dft_length / 2) + 1, num_mel_bins]. */
void infer_mel_weight_matrix(infer_ctx *c)
{
	int32_t elem = numeric_output_type(c);
	dim bins, dft;
	if (!size_input(c, 0, "num_mel_bins", &bins) || !size_input(c, 1, "dft_length", &dft)) {
		set_out_elem(c, 0, elem);
		return;
	}
	dim d[2] = {dft.kind == DIM_KNOWN ? dim_known(dft.v / 2 + 1) : dim_fresh(c), bins};
	set_out(c, 0, elem, 2, d);
}

/* UINT8 (height, width, channels), channel-last (the spec; onnx's own inference
 * claims the rank only). Grayscale is one channel everywhere; RGB and BGR are three
 * for the spec, but onnx's python reference hands back the image's own channels
 * (four for an RGBA PNG), so their count is left to run time. Height and width are
 * in the stream. */
void infer_image_decoder(infer_ctx *c)
{
	static const struct {
		const char *name;
		int64_t channels; /* -1: fixed at run time */
	} formats[] = {{"RGB", -1}, {"BGR", -1}, {"Grayscale", 1}};
	int32_t e = in_elem(c, 0);
	if (e && e != DT_UINT8)
		tr_error(c, "encoded_stream '%s' is %s, must be UINT8", in_name(c, 0), dtype_name(e));
	if (in_rank(c, 0) >= 0 && in_rank(c, 0) != 1)
		tr_error(c, "encoded_stream '%s' %s must be 1-D (the bytes)", in_name(c, 0), fmt_shape(c, in(c, 0)));
	/* Known bytes (an initializer, or given with --input-data) have the height and
	 * width in their header; RGB and BGR claim 3 channels only when the image stores
	 * exactly 3 (onnx's reference keeps an RGBA image's 4). */
	int64_t h = -1, w = -1;
	int32_t stored = 0;
	const tensor_view *tv = in_rank(c, 0) == 1 ? in_stored_tensor(c, 0) : NULL;
	if (tv && tv->valid && !tv->external && tv->dtype == DT_UINT8 && tv->count > 0) {
		if (tv->raw && tv->raw_len == (size_t)tv->count) {
			image_size(tv->raw, tv->raw_len, &h, &w, &stored);
		} else if (!tv->raw && tv->i32 && tv->ntyped == (size_t)tv->count) {
			uint8_t *bytes = arena_array(c->a, tv->ntyped, 1);
			if (!bytes) {
				c->m->nomem = true;
			} else {
				for (size_t k = 0; k < tv->ntyped; k++)
					bytes[k] = (uint8_t)tv->i32[k];
				image_size(bytes, tv->ntyped, &h, &w, &stored);
			}
		}
	}
	const char *pf = attr_s(c, "pixel_format", "RGB");
	for (size_t k = 0; k < sizeof formats / sizeof formats[0]; k++) {
		if (!strcmp(pf, formats[k].name)) {
			dim ch = formats[k].channels >= 0 ? dim_known(formats[k].channels)
				 : h > 0 && stored == 3 ? dim_known(3) : dim_fresh(c);
			dim d[3] = {h > 0 ? dim_known(h) : dim_fresh(c), w > 0 ? dim_known(w) : dim_fresh(c), ch};
			set_out(c, 0, DT_UINT8, 3, d);
			return;
		}
	}
	tr_error(c, "pixel_format '%s' is not RGB, BGR or Grayscale", pf);
	set_out_elem(c, 0, DT_UINT8);
}
