/* rules_nn_resize.c: operators that resample or rearrange a tensor: Resize, Upsample,
 * DepthToSpace, SpaceToDepth, GridSample, AffineGrid, CenterCropPad, DFT, STFT; and
 * the shape-preserving CumSum, Trilu and LRN, which check their extra inputs.
 *
 * Scaled sizes are floor(in * scale) with a float scale. Runtimes compute the
 * product in float (onnxruntime, onnx's C++ inference) or in double (the reference
 * implementation); a size is written only when both give the same integer, so an
 * unlucky scale like 0.6666667 on 3 leaves the dim unknown rather than guessed. On a
 * symbolic size, only scales both compute exactly (p/2^k) give an expression.
 */
#include "passes/rules/rule_protos.h"

#include "passes/rules/rules_nn.h"

#include "core/checked.h"
#include "core/dtype.h"

#include <stdio.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------------ */

/* floor(in * scale) when every runtime agrees on it (scale > 0, checked by callers). */
static dim scaled(infer_ctx *c, dim in, double scale)
{
	in = dim_resolve(c->syms, in);
	if (in.kind == DIM_SYMBOL) {
		/* A scale p/2^k (2, 0.5, 1.5) multiplies exactly in float and double for
		 * any size below 2^24/p: floor(p*in/2^k). Other scales round differently
		 * by runtime and size: unknown. */
		for (int k = 0; k <= 10; k++) {
			double p = scale * (double)(1 << k);
			int64_t whole;
			if (p >= 1 && p <= (double)(1 << 20) && f64_to_i64(p, &whole) && (double)whole == p)
				return dim_floordiv(c, dim_mul(c, in, dim_known(whole)), dim_known(INT64_C(1) << k));
		}
		return dim_unknown();
	}
	if (in.kind != DIM_KNOWN)
		return dim_unknown();
	double pd = (double)in.v * scale;
	float pf = (float)in.v * (float)scale;
	int64_t a, b;
	/* Truncation is floor for these non-negative products. */
	if (!(pd >= 0 && pf >= 0) || !f64_to_i64(pd, &a) || !f64_to_i64((double)pf, &b))
		return dim_unknown();
	return a == b ? dim_known(a) : dim_unknown();
}

/* Copies x's shape to output 0 (element type `elem`), when x is a tensor. */
static void same_shape(infer_ctx *c, int32_t elem)
{
	const tinfo *x = in(c, 0);
	if (!x || x->kind != TK_TENSOR) {
		set_out_elem(c, 0, elem);
		return;
	}
	set_out(c, 0, elem, x->rank, x->dims);
}

/* Normalised axes from attribute `name` (absent: 0..r-1) into out (capacity r); the
 * count into *n. Reports out-of-range axes. */
static bool axes_attr(infer_ctx *c, const char *name, int32_t r, int32_t *out, int32_t *n)
{
	const int64_t *v;
	int32_t k;
	if (!attr_ints(c, name, &v, &k)) {
		for (int32_t i = 0; i < r; i++)
			out[i] = i;
		*n = r;
		return true;
	}
	if (k > r) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "attribute '%s' has %d values for rank %d", name, k, r);
		return false;
	}
	char what[96];
	snprintf(what, sizeof what, "%s entry", name);
	for (int32_t i = 0; i < k; i++)
		if (!norm_axis(c, v[i], r, false, what, &out[i]))
			return false;
	*n = k;
	return true;
}

/* Element count of 1-D input i: from its content or its shape; -1 when unknown or
 * when omitted. */
static int64_t length_of(infer_ctx *c, int32_t i)
{
	const tinfo *t = in(c, i);
	if (!t || t->kind != TK_TENSOR)
		return -1;
	if (t->nval >= 0)
		return t->nval;
	if (t->nfval >= 0)
		return t->nfval;
	if (t->rank == 1) {
		dim d = dim_resolve(c->syms, t->dims[0]);
		if (d.kind == DIM_KNOWN)
			return d.v;
	}
	return -1;
}

/* ---- Resize ------------------------------------------------------------------- */

typedef enum aspect { ASPECT_STRETCH, ASPECT_NOT_LARGER, ASPECT_NOT_SMALLER } aspect;

static const char *const aspect_names[] = {"stretch", "not_larger", "not_smaller"};

/* sizes under keep_aspect_ratio_policy not_larger/not_smaller: one scale for every
 * axis, the min (max) of sizes[i] / in[axes[i]], then round half up. Needs every size
 * involved known. Runtimes compute in float: a product within float noise of .5
 * stays unknown. */
static void keep_aspect(infer_ctx *c, aspect pol, const tinfo *x, const int32_t *axes, int32_t na, const dim *sizes,
			dim *out)
{
	double s = 0;
	for (int32_t i = 0; i < na; i++) {
		dim d = dim_resolve(c->syms, x->dims[axes[i]]), z = dim_resolve(c->syms, sizes[i]);
		if (d.kind != DIM_KNOWN || z.kind != DIM_KNOWN || d.v == 0)
			return;
		double q = (double)z.v / (double)d.v;
		if (!i || (pol == ASPECT_NOT_LARGER ? q < s : q > s))
			s = q;
	}
	for (int32_t i = 0; i < na; i++) {
		double p = s * (double)dim_resolve(c->syms, x->dims[axes[i]]).v + 0.5;
		int64_t whole;
		if (!(p >= 0 && p < 1.0e15) || !f64_to_i64(p, &whole))
			continue;
		double frac = p - (double)whole;
		if (frac < 1e-4 || frac > 1 - 1e-4)
			continue;
		out[axes[i]] = dim_known(whole);
	}
}

/* iroi/iscales/isizes: input indices (-1 when the version has none). */
static void resize_shape(infer_ctx *c, int32_t iroi, int32_t iscales, int32_t isizes, bool v18)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	int64_t ns = iscales >= 0 ? length_of(c, iscales) : -1, nz = isizes >= 0 ? length_of(c, isizes) : -1;
	bool has_scales = iscales >= 0 && in(c, iscales) && ns != 0;
	bool has_sizes = isizes >= 0 && in(c, isizes) && nz != 0;
	if (has_scales && has_sizes && ns > 0 && nz > 0) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "scales '%s' and sizes '%s' are both given; only one may be",
			   in_name(c, iscales), in_name(c, isizes));
		return;
	}
	/* Before 13, scales is required and sizes is used when given (scales empty). */
	if (has_sizes && has_scales && ns < 0)
		has_scales = false;
	if (!has_scales && !has_sizes) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "one of scales and sizes must be given");
		return;
	}
	int32_t r = in_rank(c, 0);
	const tinfo *x = r >= 0 ? in(c, 0) : NULL;
	bool has_axes = v18 && attr_has(c, "axes");
	if (!x) {
		/* Without axes, scales and sizes have one entry per dim: the rank. */
		int64_t n = has_scales ? ns : nz;
		if (!has_axes && n > 0 && n <= RULE_MAX_RANK) {
			dim *out = dims_alloc(c, (int32_t)n);
			if (!out)
				return;
			const dim *v = NULL;
			int32_t nv;
			bool content = has_sizes && in_ints(c, isizes, &v, &nv) && nv == n;
			if (content && !nn_sizes_ok(c, isizes, v, nv))
				return;
			bool stretch = !strcmp(attr_s(c, "keep_aspect_ratio_policy", "stretch"), "stretch") || !v18;
			for (int32_t i = 0; i < n; i++)
				out[i] = content && stretch ? v[i] : dim_unknown();
			set_out(c, 0, elem, (int32_t)n, out);
		}
		return;
	}
	int32_t *axes = arena_array(c->a, (size_t)(r ? r : 1), sizeof *axes), na;
	dim *out = dims_dup(c, x->dims, r);
	if (!axes || !out)
		return;
	if (has_axes) {
		if (!axes_attr(c, "axes", r, axes, &na))
			return;
	} else {
		for (int32_t i = 0; i < r; i++)
			axes[i] = i;
		na = r;
	}
	int64_t n = has_scales ? ns : nz;
	if (n >= 0 && n != na) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "%s '%s' has %lld values, expected %d",
			   has_scales ? "scales" : "sizes", in_name(c, has_scales ? iscales : isizes), (long long)n,
			   na);
		return;
	}
	for (int32_t i = 0; i < na; i++)
		out[axes[i]] = dim_unknown();
	if (has_sizes) {
		aspect pol = ASPECT_STRETCH;
		if (v18) {
			const char *p = attr_s(c, "keep_aspect_ratio_policy", "stretch");
			int32_t k = 0;
			while (k < 3 && strcmp(p, aspect_names[k]))
				k++;
			if (k == 3) {
				infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
					   "keep_aspect_ratio_policy is '%s'; it must be stretch, not_larger "
					   "or not_smaller",
					   p);
				return;
			}
			pol = (aspect)k;
		}
		const dim *v;
		int32_t nv;
		if (in_ints(c, isizes, &v, &nv) && nv == na) {
			if (!nn_sizes_ok(c, isizes, v, nv))
				return;
			if (pol == ASPECT_STRETCH)
				for (int32_t i = 0; i < na; i++)
					out[axes[i]] = v[i];
			else
				keep_aspect(c, pol, x, axes, na, v, out);
		}
		set_out(c, 0, elem, r, out);
		return;
	}
	const double *sv;
	int32_t nsv;
	if (in_floats(c, iscales, &sv, &nsv) && nsv == na) {
		for (int32_t i = 0; i < na; i++) {
			if (!(sv[i] > 0)) {
				infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "scales[%d] is %g; scales must be positive", i,
					   sv[i]);
				return;
			}
		}
		/* The spec multiplies by (roi_end - roi_start) under tf_crop_and_resize, which
		 * runtimes ignore: only a full roi (or one not used) is unambiguous. */
		bool crop = iroi >= 0 &&
			    !strcmp(attr_s(c, "coordinate_transformation_mode", "half_pixel"), "tf_crop_and_resize");
		const double *roi = NULL;
		int32_t nroi = 0;
		if (crop && (!in_floats(c, iroi, &roi, &nroi) || nroi != 2 * na))
			roi = NULL;
		for (int32_t i = 0; i < na; i++) {
			if (crop && (!roi || roi[na + i] - roi[i] != 1.0))
				continue;
			out[axes[i]] = scaled(c, x->dims[axes[i]], sv[i]);
		}
	}
	set_out(c, 0, elem, r, out);
}

void infer_resize10(infer_ctx *c) { resize_shape(c, -1, 1, -1, false); }
void infer_resize11(infer_ctx *c) { resize_shape(c, 1, 2, 3, false); }
void infer_resize18(infer_ctx *c) { resize_shape(c, 1, 2, 3, true); }

/* ---- Upsample ----------------------------------------------------------------- */

/* floor(in * scales[i]) on every axis; scales >= 1. */
static void upsample_shape(infer_ctx *c, const double *sv, int32_t n)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	for (int32_t i = 0; sv && i < n; i++) {
		if (!(sv[i] >= 1)) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "scales[%d] is %g; it must be at least 1", i, sv[i]);
			return;
		}
	}
	int32_t r = in_rank(c, 0);
	if (r < 0) {
		if (sv && n <= RULE_MAX_RANK) {
			dim *out = dims_alloc(c, n);
			if (!out)
				return;
			for (int32_t i = 0; i < n; i++)
				out[i] = dim_unknown();
			set_out(c, 0, elem, n, out);
		}
		return;
	}
	const tinfo *x = in(c, 0);
	if (sv && n != r) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "scales has %d values but input '%s' %s has rank %d", n,
			   in_name(c, 0), fmt_shape(c, x), r);
		return;
	}
	dim *out = dims_alloc(c, r);
	if (!out)
		return;
	for (int32_t i = 0; i < r; i++)
		out[i] = sv ? scaled(c, x->dims[i], sv[i]) : dim_unknown();
	set_out(c, 0, elem, r, out);
}

/* Experimental version 1: height_scale and width_scale on an NCHW input. */
void infer_upsample1(infer_ctx *c)
{
	const attr_view *h = attr(c, "height_scale"), *w = attr(c, "width_scale");
	if (!h || !w) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "height_scale and width_scale are required");
		set_out_elem(c, 0, in_elem(c, 0));
		return;
	}
	double sv[4] = {1, 1, attr_f(c, "height_scale", 1), attr_f(c, "width_scale", 1)};
	upsample_shape(c, sv, 4);
}

void infer_upsample7(infer_ctx *c)
{
	const attr_view *a = attr(c, "scales");
	if (!a || a->type != AT_FLOATS) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "the scales attribute is required");
		set_out_elem(c, 0, in_elem(c, 0));
		return;
	}
	double *sv = arena_array(c->a, (size_t)(a->n ? a->n : 1), sizeof *sv);
	if (!sv) {
		c->m->nomem = true;
		return;
	}
	for (int32_t i = 0; i < a->n; i++)
		sv[i] = a->floats[i];
	upsample_shape(c, sv, a->n);
}

void infer_upsample9(infer_ctx *c)
{
	const double *sv;
	int32_t n;
	if (in_floats(c, 1, &sv, &n)) {
		upsample_shape(c, sv, n);
		return;
	}
	int64_t len = length_of(c, 1);
	const tinfo *x = in_ranked(c, 0);
	if (x && len >= 0 && len != x->rank) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "scales '%s' has %lld values but input '%s' %s has rank %d",
			   in_name(c, 1), (long long)len, in_name(c, 0), fmt_shape(c, x), x->rank);
		set_out_elem(c, 0, in_elem(c, 0));
		return;
	}
	upsample_shape(c, NULL, 0);
}

/* ---- DepthToSpace, SpaceToDepth ------------------------------------------------ */

static bool blocksize(infer_ctx *c, int64_t *b)
{
	if (!attr_has(c, "blocksize")) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "the blocksize attribute is required");
		return false;
	}
	*b = attr_i(c, "blocksize", 0);
	int64_t sq;
	if (*b < 1 || __builtin_mul_overflow(*b, *b, &sq)) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "blocksize is %lld", (long long)*b);
		return false;
	}
	return true;
}

/* (N, C, H, W) -> (N, C / b^2, H * b, W * b). */
void infer_depth_to_space(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	int64_t b;
	if (!blocksize(c, &b))
		return;
	const char *mode = attr_s(c, "mode", "DCR");
	if (c->opset >= 11 && strcmp(mode, "DCR") && strcmp(mode, "CRD")) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "mode is '%s'; it must be DCR or CRD", mode);
		return;
	}
	const tinfo *x = in_ranked(c, 0);
	if (!x)
		return;
	if (x->rank != 4) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "input '%s' %s must be 4-D", in_name(c, 0), fmt_shape(c, x));
		return;
	}
	dim ch = dim_resolve(c->syms, x->dims[1]), out[4];
	out[0] = x->dims[0];
	out[1] = b == 1 ? ch : dim_unknown();
	if (ch.kind == DIM_KNOWN) {
		if (ch.v % (b * b)) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
				   "input '%s' %s has %lld channels, not a multiple of blocksize^2 (%lld)",
				   in_name(c, 0), fmt_shape(c, x), (long long)ch.v, (long long)(b * b));
			return;
		}
		out[1] = dim_known(ch.v / (b * b));
	}
	out[2] = dim_mul(c, x->dims[2], dim_known(b));
	out[3] = dim_mul(c, x->dims[3], dim_known(b));
	set_out(c, 0, elem, 4, out);
}

/* (N, C, H, W) -> (N, C * b^2, H / b, W / b). */
void infer_space_to_depth(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	int64_t b;
	if (!blocksize(c, &b))
		return;
	const tinfo *x = in_ranked(c, 0);
	if (!x)
		return;
	if (x->rank != 4) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "input '%s' %s must be 4-D", in_name(c, 0), fmt_shape(c, x));
		return;
	}
	dim out[4];
	out[0] = x->dims[0];
	out[1] = dim_mul(c, x->dims[1], dim_known(b * b));
	for (int32_t k = 2; k < 4; k++) {
		dim d = dim_resolve(c->syms, x->dims[k]);
		out[k] = b == 1 ? d : dim_unknown();
		if (d.kind != DIM_KNOWN)
			continue;
		if (d.v % b) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
				   "input '%s' %s: dim %d (%lld) is not a multiple of blocksize %lld", in_name(c, 0),
				   fmt_shape(c, x), k, (long long)d.v, (long long)b);
			return;
		}
		out[k] = dim_known(d.v / b);
	}
	set_out(c, 0, elem, 4, out);
}

/* ---- GridSample, AffineGrid ----------------------------------------------------- */

/* X (N, C, D1..Dr), grid (N, D1_out..Dr_out, r) -> (N, C, D1_out..Dr_out); version 16
 * takes 2-D images only. */
static void grid_sample(infer_ctx *c, bool only_2d)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	int32_t rx = in_rank(c, 0), rg = in_rank(c, 1);
	const tinfo *x = rx >= 0 ? in(c, 0) : NULL, *g = rg >= 0 ? in(c, 1) : NULL;
	if (x && (rx < 3 || (only_2d && rx != 4))) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "input '%s' %s must be %s", in_name(c, 0), fmt_shape(c, x),
			   only_2d ? "4-D (N, C, H, W)" : "(N, C, D1, ...)");
		return;
	}
	if (g && (rg < 3 || (only_2d && rg != 4) || (x && rg != rx))) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "grid '%s' %s must be (N, D1_out, ..., r) for input %s",
			   in_name(c, 1), fmt_shape(c, g), fmt_shape(c, x));
		return;
	}
	int32_t r = x ? rx : g ? rg : (only_2d ? 4 : RANK_UNKNOWN);
	if (r < 0)
		return;
	dim n = dim_unknown(), tmp;
	if (g && !dim_merge(c, g->dims[rg - 1], dim_known(r - 2), &tmp)) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "the last dim of grid '%s' %s must be %d", in_name(c, 1),
			   fmt_shape(c, g), r - 2);
		return;
	}
	if (!dim_merge(c, x ? x->dims[0] : dim_unknown(), g ? g->dims[0] : dim_unknown(), &n)) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "input '%s' %s and grid '%s' %s differ in N", in_name(c, 0),
			   fmt_shape(c, x), in_name(c, 1), fmt_shape(c, g));
		return;
	}
	dim *out = dims_alloc(c, r);
	if (!out)
		return;
	out[0] = n;
	out[1] = x ? x->dims[1] : dim_unknown();
	for (int32_t i = 2; i < r; i++)
		out[i] = g ? g->dims[i - 1] : dim_unknown();
	set_out(c, 0, elem, r, out);
}

void infer_grid_sample16(infer_ctx *c) { grid_sample(c, true); }
void infer_grid_sample20(infer_ctx *c) { grid_sample(c, false); }

/* theta (N, 2, 3), size [N, C, H, W] -> (N, H, W, 2); theta (N, 3, 4), size
 * [N, C, D, H, W] -> (N, D, H, W, 3). */
void infer_affine_grid(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	const tinfo *th = in_ranked(c, 0);
	if (th && th->rank != 3) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "theta '%s' %s must be (N, 2, 3) or (N, 3, 4)", in_name(c, 0),
			   fmt_shape(c, th));
		return;
	}
	int64_t ns = length_of(c, 1);
	int32_t sp = ns == 4 ? 2 : ns == 5 ? 3 : -1;
	if (ns >= 0 && sp < 0) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "size '%s' has %lld values; it must be 4 or 5", in_name(c, 1),
			   (long long)ns);
		return;
	}
	if (th) {
		dim a = dim_resolve(c->syms, th->dims[1]), b = dim_resolve(c->syms, th->dims[2]);
		int32_t from_theta = dim_is(a, 2) && dim_is(b, 3) ? 2 : dim_is(a, 3) && dim_is(b, 4) ? 3 : -1;
		bool known = a.kind == DIM_KNOWN && b.kind == DIM_KNOWN;
		if ((known && from_theta < 0) || (from_theta > 0 && sp > 0 && from_theta != sp)) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "theta '%s' %s does not match a size of %lld values",
				   in_name(c, 0), fmt_shape(c, th), (long long)ns);
			return;
		}
		if (sp < 0)
			sp = from_theta;
	}
	if (sp < 0)
		return;
	const dim *v = NULL;
	int32_t nv;
	bool content = in_ints(c, 1, &v, &nv) && nv == sp + 2;
	if (content && !nn_sizes_ok(c, 1, v, nv))
		return;
	dim out[5], n;
	if (!dim_merge(c, th ? th->dims[0] : dim_unknown(), content ? v[0] : dim_unknown(), &n)) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "theta '%s' %s and size '%s' differ in N", in_name(c, 0),
			   fmt_shape(c, th), in_name(c, 1));
		return;
	}
	out[0] = n;
	for (int32_t i = 0; i < sp; i++)
		out[1 + i] = content ? v[2 + i] : dim_unknown();
	out[sp + 1] = dim_known(sp);
	set_out(c, 0, elem, sp + 2, out);
}

/* ---- CenterCropPad ------------------------------------------------------------ */

/* The input with the dims named by axes (default all) set to shape's values. */
void infer_center_crop_pad(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	int32_t r = in_rank(c, 0);
	if (r < 0)
		return;
	const tinfo *x = in(c, 0);
	int32_t *axes = arena_array(c->a, (size_t)(r ? r : 1), sizeof *axes), na;
	dim *out = dims_dup(c, x->dims, r);
	if (!axes || !out || !axes_attr(c, "axes", r, axes, &na))
		return;
	int64_t len = length_of(c, 1);
	if (len >= 0 && len != na) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "shape '%s' has %lld values for %d axes", in_name(c, 1),
			   (long long)len, na);
		return;
	}
	const dim *v;
	int32_t nv;
	bool content = in_ints(c, 1, &v, &nv) && nv == na;
	if (content && !nn_sizes_ok(c, 1, v, nv))
		return;
	for (int32_t i = 0; i < na; i++)
		out[axes[i]] = content ? v[i] : dim_unknown();
	set_out(c, 0, elem, r, out);
}

/* ---- DFT, STFT ---------------------------------------------------------------- */

/* input (..., 1 | 2): real or complex. The axis dim becomes dft_length (default: the
 * axis size, or 2 * (size - 1) for the inverse one-sided transform), halved plus one
 * for the one-sided forward transform; the last dim is 2, or 1 for the inverse
 * one-sided one. */
static void dft_shape(infer_ctx *c, bool axis_known, int64_t axis)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	int32_t r = in_rank(c, 0);
	if (r < 0)
		return;
	const tinfo *x = in(c, 0);
	bool inverse = attr_i(c, "inverse", 0) != 0, onesided = attr_i(c, "onesided", 0) != 0;
	dim last = r >= 2 ? dim_resolve(c->syms, x->dims[r - 1]) : dim_unknown();
	if (r < 2 || (last.kind == DIM_KNOWN && last.v != 1 && last.v != 2)) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "input '%s' %s must end in a dim of 1 (real) or 2 (complex)",
			   in_name(c, 0), fmt_shape(c, x));
		return;
	}
	if (onesided && last.kind == DIM_KNOWN && last.v != (inverse ? 2 : 1)) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "the one-sided %s transform needs %s input; '%s' is %s",
			   inverse ? "inverse" : "forward", inverse ? "complex" : "real", in_name(c, 0),
			   fmt_shape(c, x));
		return;
	}
	dim *out = dims_alloc(c, r);
	if (!out)
		return;
	for (int32_t i = 0; i < r - 1; i++)
		out[i] = axis_known ? x->dims[i] : dim_unknown();
	out[r - 1] = dim_known(onesided && inverse ? 1 : 2);
	if (axis_known) {
		int32_t a;
		if (!shape_axis(axis, r, &a) || a > r - 2) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR,
				   "axis %lld is out of range for '%s' %s (valid: %d to %d, %d to -2)", (long long)axis,
				   in_name(c, 0), fmt_shape(c, x), 0, r - 2, -r);
			return;
		}
		dim n = dim_resolve(c->syms, x->dims[a]), len;
		if (in(c, 1)) {
			if (!in_int1(c, 1, &len))
				len = dim_unknown();
			if (len.kind == DIM_KNOWN && len.v < 1) {
				infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "dft_length is %lld", (long long)len.v);
				return;
			}
		} else if (onesided && inverse) {
			len = dim_unknown();
			int64_t twice;
			if (n.kind == DIM_KNOWN && n.v >= 1 && !__builtin_mul_overflow(n.v - 1, 2, &twice))
				len = dim_known(twice);
		} else {
			len = n;
		}
		if (onesided && !inverse)
			len = len.kind == DIM_KNOWN ? dim_known(len.v / 2 + 1) : dim_unknown();
		out[a] = len;
	}
	set_out(c, 0, elem, r, out);
}

void infer_dft17(infer_ctx *c) { dft_shape(c, true, attr_i(c, "axis", 1)); }

void infer_dft20(infer_ctx *c)
{
	dim a = dim_known(-2);
	bool known = !in(c, 2) || in_int1(c, 2, &a);
	dft_shape(c, known && a.kind == DIM_KNOWN, a.v);
}

/* signal (batch, length, 1 | 2) -> (batch, frames, bins, 2), frames =
 * (length - frame_length) / frame_step + 1, bins = frame_length (/ 2 + 1 one-sided). */
void infer_stft(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	set_out_elem(c, 0, elem);
	const tinfo *s = in_ranked(c, 0), *win = in_ranked(c, 2);
	bool onesided = attr_i(c, "onesided", 1) != 0;
	if (s && s->rank != 3) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "signal '%s' %s must be (batch, length, 1 or 2)", in_name(c, 0),
			   fmt_shape(c, s));
		return;
	}
	dim last = s ? dim_resolve(c->syms, s->dims[2]) : dim_unknown();
	if (last.kind == DIM_KNOWN && last.v != 1 && last.v != 2) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "signal '%s' %s must end in 1 (real) or 2 (complex)",
			   in_name(c, 0), fmt_shape(c, s));
		return;
	}
	if (onesided && dim_is(last, 2)) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "a one-sided transform needs a real signal; '%s' is %s",
			   in_name(c, 0), fmt_shape(c, s));
		return;
	}
	if (win && win->rank != 1) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "window '%s' %s must be 1-D", in_name(c, 2), fmt_shape(c, win));
		return;
	}
	dim fl = dim_unknown(), wl = win ? dim_resolve(c->syms, win->dims[0]) : dim_unknown(), step = dim_unknown();
	if (in(c, 3) && !in_int1(c, 3, &fl))
		fl = dim_unknown();
	dim merged;
	if (in(c, 3) && win && !dim_merge(c, fl, wl, &merged)) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "frame_length %s differs from the window '%s' length %s",
			   nn_dim_text(c, fl), in_name(c, 2), nn_dim_text(c, wl));
		return;
	}
	if (!in(c, 3))
		fl = wl;
	if (!in_int1(c, 1, &step))
		step = dim_unknown();
	if ((step.kind == DIM_KNOWN && step.v < 1) || (fl.kind == DIM_KNOWN && fl.v < 1)) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "frame_step %s and frame_length %s must be positive",
			   nn_dim_text(c, step), nn_dim_text(c, fl));
		return;
	}
	dim len = s ? dim_resolve(c->syms, s->dims[1]) : dim_unknown(), frames = dim_unknown();
	if (len.kind == DIM_KNOWN && fl.kind == DIM_KNOWN && step.kind == DIM_KNOWN) {
		if (len.v < fl.v) {
			infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "signal '%s' %s is shorter than frame_length %lld",
				   in_name(c, 0), fmt_shape(c, s), (long long)fl.v);
			return;
		}
		frames = dim_known((len.v - fl.v) / step.v + 1);
	}
	dim out[4] = {s ? s->dims[0] : dim_unknown(), frames,
		      fl.kind == DIM_KNOWN ? dim_known(onesided ? fl.v / 2 + 1 : fl.v) : dim_unknown(), dim_known(2)};
	set_out(c, 0, elem, 4, out);
}

/* ---- CumSum, Trilu, LRN --------------------------------------------------------- */

void infer_cumsum(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	const tinfo *a = in_ranked(c, 1), *x = in_ranked(c, 0);
	if (a && (a->rank > 1 || (a->rank == 1 && dim_resolve(c->syms, a->dims[0]).kind == DIM_KNOWN &&
				  !dim_is(dim_resolve(c->syms, a->dims[0]), 1)))) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "axis '%s' %s must be a scalar", in_name(c, 1),
			   fmt_shape(c, a));
		set_out_elem(c, 0, elem);
		return;
	}
	dim ax;
	int32_t k;
	if (x && in_int1(c, 1, &ax) && ax.kind == DIM_KNOWN && !norm_axis(c, ax.v, x->rank, false, "axis", &k)) {
		set_out_elem(c, 0, elem);
		return;
	}
	same_shape(c, elem);
}

void infer_trilu(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	const tinfo *x = in_ranked(c, 0);
	if (x && x->rank < 2) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "input '%s' %s needs at least 2 dimensions", in_name(c, 0),
			   fmt_shape(c, x));
		set_out_elem(c, 0, elem);
		return;
	}
	same_shape(c, elem);
}

void infer_lrn(infer_ctx *c)
{
	int32_t elem = in_elem(c, 0);
	if (!attr_has(c, "size") || attr_i(c, "size", 0) < 1) {
		infer_diag(c, OSH_ERROR, DIAG_SHAPE_ERROR, "the size attribute is required and must be positive");
		set_out_elem(c, 0, elem);
		return;
	}
	/* The spec says nothing of it, but ONNX Runtime's kernel refuses an even size
	 * (the window is centred on the channel). */
	if (attr_i(c, "size", 0) % 2 == 0)
		infer_diag(c, OSH_ERROR, DIAG_ATTRIBUTE_ERROR,
			   "size %lld is even: ONNX Runtime's LRN takes only odd sizes (a window centred on the channel)",
			   (long long)attr_i(c, "size", 0));
	same_shape(c, elem);
}
