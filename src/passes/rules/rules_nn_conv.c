/* rules_nn_conv.c: sliding-window operators: Conv, ConvInteger, QLinearConv,
 * ConvTranspose, AveragePool, MaxPool, LpPool, the global pools, MaxRoiPool, RoiAlign,
 * MaxUnpool, Col2Im and CausalConvWithState (27: input (B, C, L), weight (C, 1, k),
 * bias (C), past_state (B, C, k - 1): output (B, C, L), present_state (B, C, k - 1),
 * present_state of past_state's type, else of the input's).
 *
 * Every one reads the same window attributes (kernel_shape, strides, dilations, pads,
 * auto_pad, ceil_mode) through read_window, which validates them once (lengths equal
 * to the number of spatial axes, strides/dilations/kernel >= 1, pads >= 0), and maps
 * one spatial size to its output size with the formulas of Operators.md.
 *
 * Invariant: a spatial output size is written only when it is known exactly: from a
 * known input size, or a symbolic one the window provably keeps (stride 1 and the
 * padding exactly filling the kernel). Batch N passes through as it is.
 */
#include "passes/rules/rule_protos.h"

#include "passes/rules/rules_nn.h"

#include "core/dtype.h"

#include <string.h>

typedef enum pad_mode { PAD_NOTSET, PAD_SAME_UPPER, PAD_SAME_LOWER, PAD_VALID } pad_mode;

static const char *const pad_mode_names[] = {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"};

typedef struct window {
	int32_t n; /* spatial axes */
	int64_t *kernel; /* n entries; -1 where the kernel size is not known */
	int64_t *strides; /* n */
	int64_t *dil; /* n */
	int64_t *pads; /* 2n: begins, then ends */
	pad_mode mode;
	bool ceil;
	/* Where the four arrays live up to SCRATCH_SMALL axes (every real model), instead of
	 * zeroed arena arrays; they point into it, so a window is never copied. */
	int64_t room[5 * SCRATCH_SMALL];
} window;

/* The attributes the operators here read, found in one pass over the node's
 * attributes: each lookup by name is a scan comparing names, and a Conv made seven. */
typedef enum win_attr {
	WA_KERNEL,
	WA_STRIDES,
	WA_DILATIONS,
	WA_PADS,
	WA_AUTO_PAD,
	WA_CEIL,
	WA_GROUP,
	WA_OUTPUT_PADDING,
	WA_OUTPUT_SHAPE,
	WA_COUNT
} win_attr;

static const char *const win_attr_names[WA_COUNT] = {
	"kernel_shape", "strides", "dilations", "pads", "auto_pad", "ceil_mode", "group", "output_padding", "output_shape",
};

/* For each win_attr, what attr(c, name) returns: NULL when absent. */
typedef struct win_attrs {
	const attr_view *a[WA_COUNT];
} win_attrs;

/* The one win_attr `name` can be, by its first letter (only output_* share one), or
 * WA_COUNT; the name is still to be compared in full. */
static win_attr win_attr_candidate(const char *name)
{
	switch (name[0]) {
	case 'k': return WA_KERNEL;
	case 's': return WA_STRIDES;
	case 'd': return WA_DILATIONS;
	case 'p': return WA_PADS;
	case 'a': return WA_AUTO_PAD;
	case 'c': return WA_CEIL;
	case 'g': return WA_GROUP;
	case 'o': return strcmp(name, "output_shape") ? WA_OUTPUT_PADDING : WA_OUTPUT_SHAPE;
	default: return WA_COUNT;
	}
}

static void find_attrs(infer_ctx *c, win_attrs *wa)
{
	uint32_t seen = 0;
	for (int32_t k = 0; k < WA_COUNT; k++)
		wa->a[k] = NULL;
	for (int32_t i = 0; i < c->n->nattrs; i++) {
		const attr_view *a = &c->n->attrs[i];
		win_attr k = win_attr_candidate(a->name);
		if (k == WA_COUNT || (seen & 1u << k) || strcmp(a->name, win_attr_names[k]))
			continue;
		/* attr() answers with the first attribute of a name, and resolves it when it
		 * refers to the caller's (inside a function body). */
		seen |= 1u << k;
		wa->a[k] = a->ref ? attr(c, win_attr_names[k]) : a;
	}
}

/* What read_window reads, by operator version. */
typedef struct window_opts {
	const tinfo *w; /* weight whose dims 2.. give the kernel, or NULL */
	int32_t wi; /* its input index, for messages */
	bool need_kernel; /* kernel_shape is required */
	bool dilations; /* the version has a dilations attribute */
	bool ceil; /* the version has ceil_mode */
	bool auto_pad; /* the version has auto_pad */
} window_opts;

static bool read_window(infer_ctx *c, int32_t n, const window_opts *o, const win_attrs *wa, window *w)
{
	w->n = n;
	if (n <= SCRATCH_SMALL) {
		w->kernel = w->room;
		w->strides = w->room + SCRATCH_SMALL;
		w->dil = w->room + 2 * SCRATCH_SMALL;
		w->pads = w->room + 3 * SCRATCH_SMALL;
	} else {
		w->kernel = arena_array(c->a, (size_t)n, sizeof *w->kernel);
		w->strides = arena_array(c->a, (size_t)n, sizeof *w->strides);
		w->dil = arena_array(c->a, (size_t)n, sizeof *w->dil);
		w->pads = arena_array(c->a, (size_t)(2 * n), sizeof *w->pads);
		if (!w->kernel || !w->strides || !w->dil || !w->pads) {
			c->m->nomem = true;
			return false;
		}
	}
	if (wa->a[WA_KERNEL]) {
		if (!nn_ints_view(c, wa->a[WA_KERNEL], "kernel_shape", n, 1, 1, w->kernel))
			return false;
		if (o->w) {
			for (int32_t i = 0; i < n; i++) {
				dim k = dim_resolve(c->syms, o->w->dims[2 + i]);
				if (k.kind == DIM_KNOWN && k.v != w->kernel[i]) {
					infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
						   "kernel_shape[%d] is %lld but the weight '%s' %s has %lld there", i,
						   (long long)w->kernel[i], in_name(c, o->wi), fmt_shape(c, o->w),
						   (long long)k.v);
					return false;
				}
			}
		}
	} else if (o->need_kernel) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "the kernel_shape attribute is required");
		return false;
	} else {
		for (int32_t i = 0; i < n; i++) {
			dim k = o->w ? dim_resolve(c->syms, o->w->dims[2 + i]) : dim_unknown();
			w->kernel[i] = k.kind == DIM_KNOWN ? k.v : -1;
			if (k.kind == DIM_KNOWN && k.v < 1) {
				infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "the weight '%s' %s has an empty kernel",
					   in_name(c, o->wi), fmt_shape(c, o->w));
				return false;
			}
		}
	}
	if (!nn_ints_view(c, wa->a[WA_STRIDES], "strides", n, 1, 1, w->strides))
		return false;
	if (o->dilations) {
		if (!nn_ints_view(c, wa->a[WA_DILATIONS], "dilations", n, 1, 1, w->dil))
			return false;
	} else {
		for (int32_t i = 0; i < n; i++)
			w->dil[i] = 1;
	}
	if (!nn_ints_view(c, wa->a[WA_PADS], "pads", 2 * n, 0, 0, w->pads))
		return false;
	w->mode = PAD_NOTSET;
	if (o->auto_pad && wa->a[WA_AUTO_PAD]) {
		const char *s = attr_view_s(wa->a[WA_AUTO_PAD], "NOTSET");
		if (!s[0])
			s = "NOTSET"; /* as ONNX Runtime reads an empty one */
		int32_t k = 0;
		while (k < 4 && strcmp(s, pad_mode_names[k]))
			k++;
		if (k == 4) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
				   "auto_pad is '%s'; it must be NOTSET, SAME_UPPER, SAME_LOWER or VALID", s);
			return false;
		}
		w->mode = (pad_mode)k;
		/* The spec forbids pads beside auto_pad; zeros are harmless (and common). */
		for (int32_t i = 0; w->mode != PAD_NOTSET && i < 2 * n; i++) {
			if (w->pads[i]) {
				infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "pads cannot be used together with auto_pad %s",
					   s);
				return false;
			}
		}
	}
	w->ceil = o->ceil && attr_view_i(wa->a[WA_CEIL], 0) != 0;
	return true;
}

static bool overflowed(infer_ctx *c, int32_t i)
{
	infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "the output size along spatial axis %d overflows int64", i);
	return false;
}

/* (k - 1) * d + 1 into *keff: -1 when the kernel is unknown; false (reported) past
 * int64, a kernel no input can hold. */
static bool eff_kernel(infer_ctx *c, const window *w, int32_t i, int64_t *keff)
{
	int64_t k = w->kernel[i], r;
	*keff = -1;
	if (k < 1)
		return true;
	if (__builtin_mul_overflow(k - 1, w->dil[i], &r) || __builtin_add_overflow(r, 1, &r)) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
			   "along spatial axis %d the dilated kernel ((%lld - 1) * %lld + 1) overflows int64", i,
			   (long long)k, (long long)w->dil[i]);
		return false;
	}
	*keff = r;
	return true;
}

/* Output size of a convolution or pooling window along spatial axis i: false (with
 * an error) when the window does not fit. */
static bool window_out(infer_ctx *c, const window *w, int32_t i, dim in, dim *out)
{
	in = dim_resolve(c->syms, in);
	int64_t s = w->strides[i];
	*out = dim_unknown();
	if (w->mode == PAD_SAME_UPPER || w->mode == PAD_SAME_LOWER) {
		/* ceil(in / stride), whatever the kernel */
		*out = dim_ceildiv(c, in, dim_known(s));
		return true;
	}
	int64_t keff;
	if (!eff_kernel(c, w, i, &keff))
		return false;
	if (keff < 0)
		return true;
	bool valid = w->mode == PAD_VALID;
	int64_t pb = valid ? 0 : w->pads[i], pe = valid ? 0 : w->pads[i + w->n], pads, total, span;
	if (__builtin_add_overflow(pb, pe, &pads))
		return overflowed(c, i);
	if (in.kind == DIM_SYMBOL) {
		/* floor((in + pads - keff)/s) + 1, or with ceil_mode the ceiling, when no
		 * window can start in the right padding: the last one starts before
		 * in + pads - keff + s, which is at most in + pb when pe + s <= keff. */
		dim span_d = dim_add(c, in, dim_known(pads - keff));
		if (!w->ceil)
			*out = dim_add(c, dim_floordiv(c, span_d, dim_known(s)), dim_known(1));
		else if (s == 1 || (pe <= keff && s <= keff - pe))
			*out = dim_add(c, dim_ceildiv(c, span_d, dim_known(s)), dim_known(1));
		return true;
	}
	if (in.kind != DIM_KNOWN)
		return true;
	if (__builtin_add_overflow(in.v, pads, &total))
		return overflowed(c, i);
	if (total < keff) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
			   "along spatial axis %d the kernel (effective size %lld) is larger than the padded input "
			   "(%lld)",
			   i, (long long)keff, (long long)total);
		return false;
	}
	span = total - keff;
	int64_t q = span / s, start;
	if (w->ceil) {
		q += span % s != 0;
		/* A window that would start in the right padding is dropped. */
		if (!__builtin_mul_overflow(q, s, &start) && start >= in.v + pb && q > 0)
			q--;
	}
	*out = dim_known(q + 1);
	return true;
}

bool nn_conv_out(infer_ctx *c, int32_t i, int32_t n, dim in, const int64_t *kernel, const int64_t *strides,
		 const int64_t *dil, const int64_t *pads, dim *out)
{
	/* window_out only reads these; assigned one by one, as an initializer would zero
	 * the room the window does not use here */
	window w;
	w.n = n;
	w.kernel = (int64_t *)kernel;
	w.strides = (int64_t *)strides;
	w.dil = (int64_t *)dil;
	w.pads = (int64_t *)pads;
	w.mode = PAD_NOTSET;
	w.ceil = false;
	return window_out(c, &w, i, in, out);
}

/* ---- Conv --------------------------------------------------------------------- */

/* X (N, C, D...), W (M, C/group, k...), B (M) -> (N, M, D'...): the output's rank,
 * with its dims in *out (`small` when SCRATCH_SMALL are enough), or RANK_UNKNOWN when the
 * inputs say too little or something is reported. */
static int32_t conv_dims(infer_ctx *c, int32_t ix, int32_t iw, int32_t ib, dim *small, dim **out)
{
	int32_t rx = in_rank(c, ix), rw = in_rank(c, iw);
	const tinfo *x = rx >= 0 ? in(c, ix) : NULL, *wt = rw >= 0 ? in(c, iw) : NULL;
	for (int32_t k = 0; k < 2; k++) {
		const tinfo *t = k ? wt : x;
		if (t && t->rank < 2) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "'%s' %s needs at least 2 dimensions",
				   in_name(c, k ? iw : ix), fmt_shape(c, t));
			return RANK_UNKNOWN;
		}
	}
	if (x && wt && rx != rw) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "input '%s' %s and weight '%s' %s differ in rank",
			   in_name(c, ix), fmt_shape(c, x), in_name(c, iw), fmt_shape(c, wt));
		return RANK_UNKNOWN;
	}
	win_attrs wa;
	find_attrs(c, &wa);
	int32_t r = x ? rx : wt ? rw : RANK_UNKNOWN;
	const int64_t *ks;
	int32_t nk;
	if (r < 0 && attr_view_ints(wa.a[WA_KERNEL], &ks, &nk) && nk <= RULE_MAX_RANK - 2)
		r = nk + 2;
	if (r < 0)
		return RANK_UNKNOWN;
	int64_t group = attr_view_i(wa.a[WA_GROUP], 1);
	if (group < 1) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "group is %lld, must be at least 1", (long long)group);
		return RANK_UNKNOWN;
	}
	dim m = wt ? dim_resolve(c->syms, wt->dims[0]) : dim_unknown();
	if (x && wt) {
		/* W dim 1 times 1 is W dim 1, as dim_mul has it, for a known one without its call */
		dim cw = wt->dims[1], merged;
		dim cin = group == 1 && cw.kind == DIM_KNOWN ? cw : dim_mul(c, cw, dim_known(group));
		if (!dim_merge(c, x->dims[1], cin, &merged)) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
				   "input '%s' %s has %s channels but weight '%s' %s expects %s (W dim 1 times "
				   "group %lld)",
				   in_name(c, ix), fmt_shape(c, x), nn_dim_text(c, x->dims[1]), in_name(c, iw),
				   fmt_shape(c, wt), nn_dim_text(c, cin), (long long)group);
			return RANK_UNKNOWN;
		}
	}
	if (m.kind == DIM_KNOWN && m.v % group) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
			   "weight '%s' has %lld feature maps, not a multiple of group %lld", in_name(c, iw),
			   (long long)m.v, (long long)group);
		return RANK_UNKNOWN;
	}
	const tinfo *b = ib >= 0 ? in_ranked(c, ib) : NULL;
	if (b) {
		dim merged;
		if (b->rank != 1 || !dim_merge(c, b->dims[0], m, &merged)) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "bias '%s' %s must be 1-D of the %s feature maps",
				   in_name(c, ib), fmt_shape(c, b), nn_dim_text(c, m));
			return RANK_UNKNOWN;
		}
		m = merged;
	}
	window w;
	window_opts o = {.w = wt, .wi = iw, .dilations = true, .auto_pad = true};
	if (!read_window(c, r - 2, &o, &wa, &w))
		return RANK_UNKNOWN;
	dim *d = dims_room(c, small, r);
	if (!d)
		return RANK_UNKNOWN;
	d[0] = x ? x->dims[0] : dim_unknown();
	d[1] = m;
	for (int32_t i = 0; i < r - 2; i++)
		if (!window_out(c, &w, i, x ? x->dims[2 + i] : dim_unknown(), &d[2 + i]))
			return RANK_UNKNOWN;
	*out = d;
	return r;
}

/* The output is set once: its element type alone when its shape is not known. */
static void conv_shape(infer_ctx *c, int32_t ix, int32_t iw, int32_t ib, int32_t elem)
{
	dim small[SCRATCH_SMALL], *out = NULL;
	int32_t r = conv_dims(c, ix, iw, ib, small, &out);
	set_out(c, 0, elem, r, out);
}

void infer_conv(infer_ctx *c) { conv_shape(c, 0, 1, 2, in_elem(c, 0)); }
void infer_conv_integer(infer_ctx *c) { conv_shape(c, 0, 1, -1, DT_INT32); }
/* x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B. */
void infer_qlinear_conv(infer_ctx *c) { conv_shape(c, 0, 3, 8, in_elem(c, 7)); }

/* ---- ConvTranspose ------------------------------------------------------------ */

/* Output size along axis i without an output_shape attribute. */
static bool transpose_out(infer_ctx *c, const window *w, int32_t i, int64_t opad, dim in, dim *out)
{
	in = dim_resolve(c->syms, in);
	int64_t s = w->strides[i], keff, r;
	*out = dim_unknown();
	if (!eff_kernel(c, w, i, &keff))
		return false;
	if (w->mode == PAD_SAME_UPPER || w->mode == PAD_SAME_LOWER) {
		/* in * stride; runtimes clamp the total padding at 0, so when the kernel and
		 * output_padding cannot fill a stride the result is theirs to choose. */
		if (s == 1)
			*out = in;
		else if (keff >= 0 && (__builtin_add_overflow(keff, opad, &r) || r >= s)) {
			if (in.kind == DIM_KNOWN && __builtin_mul_overflow(in.v, s, &r))
				return overflowed(c, i);
			*out = dim_mul(c, in, dim_known(s));
		}
		return true;
	}
	if (keff < 0)
		return true;
	bool valid = w->mode == PAD_VALID;
	int64_t pb = valid ? 0 : w->pads[i], pe = valid ? 0 : w->pads[i + w->n], extra;
	/* stride * (in - 1) + 1 + extra */
	if (__builtin_add_overflow(opad, keff - 1, &extra) || __builtin_sub_overflow(extra, pb, &extra) ||
	    __builtin_sub_overflow(extra, pe, &extra))
		return overflowed(c, i);
	if (in.kind == DIM_SYMBOL) {
		/* An empty input aside (the formula then says nothing sensible, and a
		 * symbol is taken as a size that runs), stride * (in - 1) + 1 + extra. */
		*out = dim_add(c, dim_add(c, dim_mul(c, dim_sub(c, in, dim_known(1)), dim_known(s)), dim_known(1)),
			       dim_known(extra));
		return true;
	}
	if (in.kind != DIM_KNOWN)
		return true;
	if (in.v < 1)
		return true; /* an empty input: the formula says nothing sensible */
	if (__builtin_mul_overflow(in.v - 1, s, &r) || __builtin_add_overflow(r, 1, &r) ||
	    __builtin_add_overflow(r, extra, &r))
		return overflowed(c, i);
	if (r < 0) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "the output size along spatial axis %d is negative (%lld)", i,
			   (long long)r);
		return false;
	}
	*out = dim_known(r);
	return true;
}

/* X (N, C, D...), W (C, M/group, k...) -> (N, M, D'...). */
void infer_conv_transpose(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	int32_t rx = in_rank(c, 0), rw = in_rank(c, 1);
	const tinfo *x = rx >= 0 ? in(c, 0) : NULL, *wt = rw >= 0 ? in(c, 1) : NULL;
	for (int32_t k = 0; k < 2; k++) {
		const tinfo *t = k ? wt : x;
		if (t && t->rank < 2) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "'%s' %s needs at least 2 dimensions", in_name(c, k),
				   fmt_shape(c, t));
			return;
		}
	}
	if (x && wt && rx != rw) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "input '%s' %s and weight '%s' %s differ in rank",
			   in_name(c, 0), fmt_shape(c, x), in_name(c, 1), fmt_shape(c, wt));
		return;
	}
	int32_t r = x ? rx : wt ? rw : RANK_UNKNOWN;
	if (r < 0)
		return;
	win_attrs wa;
	find_attrs(c, &wa);
	int64_t group = attr_view_i(wa.a[WA_GROUP], 1);
	if (group < 1) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "group is %lld, must be at least 1", (long long)group);
		return;
	}
	if (x && wt) {
		dim merged;
		if (!dim_merge(c, x->dims[1], wt->dims[0], &merged)) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
				   "input '%s' %s has %s channels but weight '%s' %s has %s in dim 0", in_name(c, 0),
				   fmt_shape(c, x), nn_dim_text(c, x->dims[1]), in_name(c, 1), fmt_shape(c, wt),
				   nn_dim_text(c, wt->dims[0]));
			return;
		}
	}
	dim m = wt ? dim_mul(c, wt->dims[1], dim_known(group)) : dim_unknown();
	const tinfo *b = in_ranked(c, 2);
	if (b) {
		dim merged;
		if (b->rank != 1 || !dim_merge(c, b->dims[0], m, &merged)) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "bias '%s' %s must be 1-D of the %s feature maps",
				   in_name(c, 2), fmt_shape(c, b), nn_dim_text(c, m));
			return;
		}
		m = merged;
	}
	int32_t n = r - 2;
	window w;
	window_opts o = {.w = wt, .wi = 1, .dilations = true, .auto_pad = true};
	if (!read_window(c, n, &o, &wa, &w))
		return;
	int64_t small_opad[SCRATCH_SMALL];
	dim small[SCRATCH_SMALL];
	int64_t *opad = n <= SCRATCH_SMALL ? small_opad : arena_array(c->a, (size_t)n, sizeof *opad);
	dim *out = dims_room(c, small, r);
	if (!opad || !out)
		return;
	if (!nn_ints_view(c, wa.a[WA_OUTPUT_PADDING], "output_padding", n, 0, 0, opad))
		return;
	for (int32_t i = 0; i < n; i++) {
		if (opad[i] >= w.strides[i] && opad[i] >= w.dil[i]) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
				   "output_padding[%d] is %lld, must be less than the stride (%lld) or "
				   "the dilation (%lld)",
				   i, (long long)opad[i], (long long)w.strides[i], (long long)w.dil[i]);
			return;
		}
	}
	out[0] = x ? x->dims[0] : dim_unknown();
	out[1] = m;
	const int64_t *os;
	int32_t nos;
	if (attr_view_ints(wa.a[WA_OUTPUT_SHAPE], &os, &nos)) {
		/* Some exporters write the whole shape (N, C, D...): the spec's output_shape is
		 * the spatial part only, and runtimes differ on the long form. */
		if (nos != n && nos != r) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "output_shape has %d values, expected %d", nos, n);
			return;
		}
		for (int32_t i = 0; i < n; i++) {
			if (nos == n && os[i] < 0) {
				infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "output_shape[%d] is %lld", i,
					   (long long)os[i]);
				return;
			}
			out[2 + i] = nos == n ? dim_known(os[i]) : dim_unknown();
		}
	} else {
		for (int32_t i = 0; i < n; i++)
			if (!transpose_out(c, &w, i, opad[i], x ? x->dims[2 + i] : dim_unknown(), &out[2 + i]))
				return;
	}
	set_out(c, 0, elem, r, out);
}

/* ---- pools -------------------------------------------------------------------- */

/* Which window attributes each pooling operator has, by the version adding them. */
typedef struct pool_kind {
	const char *op;
	int64_t dilations_since;
	int64_t ceil_since;
	int64_t kernel_required_since;
	int64_t indices_since; /* 0: no Indices output */
} pool_kind;

static const pool_kind pool_kinds[] = {
	{"AveragePool", 19, 10, 1, 0},
	{"MaxPool", 10, 10, 1, 8},
	{"LpPool", 18, 18, 2, 0},
};

/* An attribute that changes sizes but came in a later version than the node's: a
 * runtime sharing one kernel across versions honours it, a strict one ignores it, so
 * the sizes it would change are left unknown. True in that case (the schema reports
 * the attribute: check_schema.c). */
static bool stray_attr(const win_attrs *wa, win_attr which)
{
	const attr_view *a = wa->a[which];
	const int64_t *v;
	int32_t n;
	bool set = which == WA_CEIL ? attr_view_i(a, 0) != 0 : false;
	if (!set && attr_view_ints(a, &v, &n))
		for (int32_t i = 0; i < n && !set; i++)
			set = v[i] != 1;
	return set;
}

/* X (N, C, D...) -> (N, C, D'...); MaxPool's Indices (INT64) has Y's shape. */
void infer_pool(infer_ctx *c)
{
	const pool_kind *k = &pool_kinds[0];
	for (size_t i = 0; i < sizeof pool_kinds / sizeof pool_kinds[0]; i++)
		if (!strcmp(pool_kinds[i].op, c->n->op_type))
			k = &pool_kinds[i];
	int32_t elem = in_elem(c, 0);
	bool indices = k->indices_since && c->opset >= k->indices_since;
	set_out_elem(c, 0, elem);
	if (indices)
		set_out_elem(c, 1, DT_INT64);
	int32_t r = in_rank(c, 0);
	const tinfo *x = r >= 0 ? in(c, 0) : NULL;
	if (x && r < 2) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "input '%s' %s needs at least 2 dimensions (N, C, ...)",
			   in_name(c, 0), fmt_shape(c, x));
		return;
	}
	win_attrs wa;
	find_attrs(c, &wa);
	const int64_t *ks;
	int32_t nk;
	bool has_k = attr_view_ints(wa.a[WA_KERNEL], &ks, &nk);
	if (x && has_k && nk != r - 2) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
			   "kernel_shape has %d values but input '%s' %s has %d spatial axes", nk, in_name(c, 0),
			   fmt_shape(c, x), r - 2);
		return;
	}
	if (!x && has_k && nk <= RULE_MAX_RANK - 2)
		r = nk + 2;
	if (r < 0)
		return;
	window w;
	window_opts o = {
		.need_kernel = c->opset >= k->kernel_required_since,
		.dilations = c->opset >= k->dilations_since,
		.ceil = c->opset >= k->ceil_since,
		.auto_pad = true,
	};
	if (!read_window(c, r - 2, &o, &wa, &w))
		return;
	bool stray = !o.ceil && stray_attr(&wa, WA_CEIL);
	if (!o.dilations && stray_attr(&wa, WA_DILATIONS))
		stray = true;
	dim small[SCRATCH_SMALL];
	dim *out = dims_room(c, small, r);
	if (!out)
		return;
	out[0] = x ? x->dims[0] : dim_unknown();
	out[1] = x ? x->dims[1] : dim_unknown();
	for (int32_t i = 0; i < r - 2; i++) {
		if (!has_k || stray)
			out[2 + i] = dim_unknown(); /* LpPool-1 without kernel_shape */
		else if (!window_out(c, &w, i, x ? x->dims[2 + i] : dim_unknown(), &out[2 + i]))
			return;
	}
	set_out(c, 0, elem, r, out);
	if (indices)
		set_out(c, 1, DT_INT64, r, out);
}

/* X (N, C, D...) -> (N, C, 1...). */
void infer_global_pool(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	int32_t r = in_rank(c, 0);
	if (r < 0)
		return;
	const tinfo *x = in(c, 0);
	if (r < 2) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "input '%s' %s needs at least 2 dimensions (N, C, ...)",
			   in_name(c, 0), fmt_shape(c, x));
		return;
	}
	dim *out = dims_alloc(c, r);
	if (!out)
		return;
	out[0] = x->dims[0];
	out[1] = x->dims[1];
	for (int32_t i = 2; i < r; i++)
		out[i] = dim_known(1);
	set_out(c, 0, elem, r, out);
}

/* ---- RoI pools ---------------------------------------------------------------- */

/* X (N, C, H, W), rois (num_rois, 5) -> (num_rois, C, pooled_shape...). */
void infer_max_roi_pool(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	const int64_t *ps;
	int32_t np;
	if (!attr_ints(c, "pooled_shape", &ps, &np)) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "the pooled_shape attribute is required");
		return;
	}
	int32_t r = in_rank(c, 0), rr = in_rank(c, 1);
	const tinfo *x = r >= 0 ? in(c, 0) : NULL, *rois = rr >= 0 ? in(c, 1) : NULL;
	if (x && (r < 2 || np != r - 2)) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "pooled_shape has %d values for input '%s' %s", np,
			   in_name(c, 0), fmt_shape(c, x));
		return;
	}
	if (rois && (rr != 2 || (dim_resolve(c->syms, rois->dims[1]).kind == DIM_KNOWN &&
				 dim_resolve(c->syms, rois->dims[1]).v != 5))) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "rois '%s' %s must be (num_rois, 5)", in_name(c, 1),
			   fmt_shape(c, rois));
		return;
	}
	if (np > RULE_MAX_RANK - 2)
		return;
	for (int32_t i = 0; i < np; i++) {
		if (ps[i] < 1) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "pooled_shape[%d] is %lld", i, (long long)ps[i]);
			return;
		}
	}
	dim *out = dims_alloc(c, np + 2);
	if (!out)
		return;
	out[0] = rois ? rois->dims[0] : dim_unknown();
	out[1] = x ? x->dims[1] : dim_unknown();
	for (int32_t i = 0; i < np; i++)
		out[2 + i] = dim_known(ps[i]);
	set_out(c, 0, elem, np + 2, out);
}

/* X (N, C, H, W), rois (num_rois, 4), batch_indices (num_rois) ->
 * (num_rois, C, output_height, output_width). */
void infer_roi_align(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	const tinfo *x = in_ranked(c, 0), *rois = in_ranked(c, 1), *bi = in_ranked(c, 2);
	if (x && x->rank != 4) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "input '%s' %s must be 4-D (N, C, H, W)", in_name(c, 0),
			   fmt_shape(c, x));
		return;
	}
	dim four = dim_known(4), nr = dim_unknown(), tmp;
	if (rois && (rois->rank != 2 || !dim_merge(c, rois->dims[1], four, &tmp))) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "rois '%s' %s must be (num_rois, 4)", in_name(c, 1),
			   fmt_shape(c, rois));
		return;
	}
	if (bi && bi->rank != 1) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "batch_indices '%s' %s must be 1-D", in_name(c, 2),
			   fmt_shape(c, bi));
		return;
	}
	if (!dim_merge(c, rois ? rois->dims[0] : dim_unknown(), bi ? bi->dims[0] : dim_unknown(), &nr)) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "rois '%s' %s and batch_indices '%s' %s differ in num_rois",
			   in_name(c, 1), fmt_shape(c, rois), in_name(c, 2), fmt_shape(c, bi));
		return;
	}
	int64_t oh = attr_i(c, "output_height", 1), ow = attr_i(c, "output_width", 1);
	if (oh < 1 || ow < 1) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "output_height %lld and output_width %lld must be positive",
			   (long long)oh, (long long)ow);
		return;
	}
	dim out[4] = {nr, x ? x->dims[1] : dim_unknown(), dim_known(oh), dim_known(ow)};
	set_out(c, 0, elem, 4, out);
}

/* ---- MaxUnpool ---------------------------------------------------------------- */

/* X (N, C, D...), I (same), output_shape? -> output_shape, or
 * (N, C, (D - 1) * stride + kernel - pads...). */
void infer_max_unpool(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	int32_t r = in_rank(c, 0), ri = in_rank(c, 1);
	const tinfo *x = r >= 0 ? in(c, 0) : NULL, *ix = ri >= 0 ? in(c, 1) : NULL;
	if (x && r < 2) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "input '%s' %s needs at least 2 dimensions", in_name(c, 0),
			   fmt_shape(c, x));
		return;
	}
	if (!x)
		x = ix, r = ri;
	if (x && ix) {
		bool same = ix->rank == x->rank;
		for (int32_t i = 0; same && i < r; i++) {
			dim d;
			same = dim_merge(c, x->dims[i], ix->dims[i], &d);
		}
		if (!same) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "indices '%s' %s must have the shape of '%s' %s",
				   in_name(c, 1), fmt_shape(c, ix), in_name(c, 0), fmt_shape(c, x));
			return;
		}
	}
	if (in(c, 2)) {
		const dim *v;
		int32_t n;
		if (in_ints(c, 2, &v, &n)) {
			if (r >= 0 && n != r) {
				infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "output_shape '%s' has %d values for rank %d",
					   in_name(c, 2), n, r);
				return;
			}
			if (!nn_sizes_ok(c, 2, v, n))
				return;
			set_out(c, 0, elem, n, v);
		} else if (r >= 0) {
			dim *out = dims_alloc(c, r);
			if (!out)
				return;
			for (int32_t i = 0; i < r; i++)
				out[i] = dim_unknown();
			set_out(c, 0, elem, r, out);
		}
		return;
	}
	if (r < 2)
		return;
	window w;
	window_opts o = {.need_kernel = true};
	win_attrs wa;
	find_attrs(c, &wa);
	if (!read_window(c, r - 2, &o, &wa, &w))
		return;
	dim small[SCRATCH_SMALL];
	dim *out = dims_room(c, small, r);
	if (!out)
		return;
	out[0] = x->dims[0];
	out[1] = x->dims[1];
	for (int32_t i = 0; i < r - 2; i++) {
		dim d = dim_resolve(c->syms, x->dims[2 + i]);
		out[2 + i] = dim_unknown();
		int64_t v;
		if (d.kind != DIM_KNOWN || d.v < 1)
			continue;
		if (__builtin_mul_overflow(d.v - 1, w.strides[i], &v) || __builtin_add_overflow(v, w.kernel[i], &v) ||
		    __builtin_sub_overflow(v, w.pads[i], &v) || __builtin_sub_overflow(v, w.pads[i + w.n], &v)) {
			overflowed(c, i);
			return;
		}
		if (v < 0) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "the output size along spatial axis %d is negative", i);
			return;
		}
		out[2 + i] = dim_known(v);
	}
	set_out(c, 0, elem, r, out);
}

/* ---- Col2Im ------------------------------------------------------------------- */

/* input (N, C * prod(block_shape), L), image_shape (n), block_shape (n) ->
 * (N, C, image_shape...); L must be the number of blocks. */
void infer_col2im(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	const tinfo *x = in_ranked(c, 0), *is = in_ranked(c, 1), *bs = in_ranked(c, 2);
	if (x && x->rank != 3) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "input '%s' %s must be 3-D (N, C * block size, L)",
			   in_name(c, 0), fmt_shape(c, x));
		return;
	}
	const dim *img = NULL;
	int64_t blk[RULE_MAX_RANK];
	int32_t ni = -1, nb = -1;
	if (!in_ints(c, 1, &img, &ni)) {
		img = NULL;
		ni = -1;
		dim d = is && is->rank == 1 ? dim_resolve(c->syms, is->dims[0]) : dim_unknown();
		if (d.kind == DIM_KNOWN && d.v <= RULE_MAX_RANK - 2)
			ni = (int32_t)d.v;
	}
	/* Its values, or only its length when they are not known. */
	bool blk_known = in_known_ints(c, 2, blk, RULE_MAX_RANK, &nb);
	if (!blk_known) {
		nb = -1;
		dim d = bs && bs->rank == 1 ? dim_resolve(c->syms, bs->dims[0]) : dim_unknown();
		if (d.kind == DIM_KNOWN && d.v <= RULE_MAX_RANK - 2)
			nb = (int32_t)d.v;
	}
	if (img && !nn_sizes_ok(c, 1, img, ni))
		return;
	if (ni >= 0 && nb >= 0 && ni != nb) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "image_shape has %d values but block_shape %d", ni, nb);
		return;
	}
	int32_t n = ni >= 0 ? ni : nb;
	if (n < 0 || n > RULE_MAX_RANK - 2)
		return;
	dim *out = dims_alloc(c, n + 2);
	int64_t *dil = arena_array(c->a, (size_t)(n ? n : 1), sizeof *dil);
	int64_t *str = arena_array(c->a, (size_t)(n ? n : 1), sizeof *str);
	int64_t *pads = arena_array(c->a, (size_t)(n ? 2 * n : 1), sizeof *pads);
	if (!out || !dil || !str || !pads)
		return;
	if (!nn_ints_attr(c, "dilations", n, 1, 1, dil) || !nn_ints_attr(c, "strides", n, 1, 1, str) ||
	    !nn_ints_attr(c, "pads", 2 * n, 0, 0, pads))
		return;
	for (int32_t i = 0; blk_known && i < n; i++) {
		if (blk[i] < 1) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "block_shape[%d] is %lld", i, (long long)blk[i]);
			return;
		}
	}
	out[0] = x ? x->dims[0] : dim_unknown();
	out[1] = dim_unknown();
	/* C = dim 1 / prod(block_shape), which must divide. */
	int64_t prod = 1;
	bool prod_ok = blk_known;
	for (int32_t i = 0; prod_ok && i < n; i++)
		prod_ok = !__builtin_mul_overflow(prod, blk[i], &prod);
	dim cb = x ? dim_resolve(c->syms, x->dims[1]) : dim_unknown();
	if (prod_ok && cb.kind == DIM_KNOWN) {
		if (cb.v % prod) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
				   "input '%s' dim 1 (%lld) is not a multiple of the block size %lld", in_name(c, 0),
				   (long long)cb.v, (long long)prod);
			return;
		}
		out[1] = dim_known(cb.v / prod);
	} else if (prod_ok && prod == 1) {
		out[1] = cb;
	}
	int64_t blocks = 1;
	bool blocks_ok = blk_known && img;
	for (int32_t i = 0; i < n; i++) {
		dim d = img ? dim_resolve(c->syms, img[i]) : dim_unknown();
		out[2 + i] = d;
		if (!blocks_ok)
			continue;
		int64_t keff, span, cnt;
		if (d.kind != DIM_KNOWN || __builtin_mul_overflow(blk[i] - 1, dil[i], &keff) ||
		    __builtin_add_overflow(d.v, pads[i], &span) || __builtin_add_overflow(span, pads[i + n], &span) ||
		    span - keff - 1 < 0) {
			blocks_ok = false;
			continue;
		}
		cnt = (span - keff - 1) / str[i] + 1;
		blocks_ok = !__builtin_mul_overflow(blocks, cnt, &blocks);
	}
	dim l = x ? dim_resolve(c->syms, x->dims[2]) : dim_unknown();
	if (blocks_ok && l.kind == DIM_KNOWN && l.v != blocks) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
			   "input '%s' %s has L = %lld blocks, the image and block shapes give %lld", in_name(c, 0),
			   fmt_shape(c, x), (long long)l.v, (long long)blocks);
		return;
	}
	set_out(c, 0, elem, n + 2, out);
}

/* ---- CausalConvWithState ---- */

enum { CC_INPUT, CC_WEIGHT, CC_BIAS, CC_PAST };

void infer_causal_conv_with_state(infer_ctx *c)
{
	int32_t elem = in_elem(c, CC_INPUT);
	set_out_elem(c, 0, elem);
	set_out_elem(c, 1, elem);
	bool bad = false;
	int32_t rx = nn_rank_want(c, CC_INPUT, 3, "(batch_size, channels, length)", &bad),
		rw = nn_rank_want(c, CC_WEIGHT, 3, "(channels, 1, k)", &bad),
		rb = nn_rank_want(c, CC_BIAS, 1, "(channels)", &bad),
		rp = nn_rank_want(c, CC_PAST, 3, "(batch_size, channels, k - 1)", &bad);
	if (bad)
		return;
	dim batch = dim_unknown(), ch = dim_unknown(), len = dim_unknown(), state = dim_unknown();
	if (rx == 3) {
		const tinfo *x = in(c, CC_INPUT);
		batch = x->dims[0], ch = x->dims[1], len = x->dims[2];
	}
	if (rw == 3) {
		const tinfo *w = in(c, CC_WEIGHT);
		dim one = dim_known(1), k = dim_resolve(c->syms, w->dims[2]);
		if (!nn_merge_dim(c, &ch, w->dims[0], "channels", CC_WEIGHT) ||
		    !nn_merge_dim(c, &one, w->dims[1], "the weight's middle dim (depthwise: 1)", CC_WEIGHT))
			return;
		if (k.kind == DIM_KNOWN && k.v < 1) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "weight '%s' %s has kernel size %lld; it must be at least 1",
				   in_name(c, CC_WEIGHT), fmt_shape(c, in(c, CC_WEIGHT)), (long long)k.v);
			return;
		}
		if (k.kind == DIM_KNOWN)
			state = dim_known(k.v - 1);
	}
	if (rb == 1 && !nn_merge_dim(c, &ch, in(c, CC_BIAS)->dims[0], "channels", CC_BIAS))
		return;
	if (rp == 3) {
		const tinfo *p = in(c, CC_PAST);
		if (!nn_merge_dim(c, &batch, p->dims[0], "batch_size", CC_PAST) ||
		    !nn_merge_dim(c, &ch, p->dims[1], "channels", CC_PAST) ||
		    !nn_merge_dim(c, &state, p->dims[2], "k - 1", CC_PAST))
			return;
	}
	if (rx == 3) {
		dim y[3] = {batch, ch, len};
		set_out(c, 0, elem, 3, y);
	}
	dim s[3] = {batch, ch, state};
	set_out(c, 1, elem, 3, s);
}
