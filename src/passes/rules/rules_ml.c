/* rules_ml.c: the ai.onnx.ml operators (classic machine-learning models and feature
 * transforms): ArrayFeatureExtractor, Binarizer, CastMap, CategoryMapper,
 * DictVectorizer, FeatureVectorizer, Imputer, LabelEncoder, LinearClassifier,
 * LinearRegressor, Normalizer, OneHotEncoder, SVMClassifier, SVMRegressor, Scaler,
 * TreeEnsembleClassifier, TreeEnsembleRegressor, TreeEnsemble and ZipMap.
 *
 * Sources: Operators-ml.md / Changelog-ml.md, onnx's python reference and ONNX
 * Runtime. Where they disagree on a shape (1-D inputs of the regressors, the maps'
 * tensors), only what they all agree on is claimed: the element type, sometimes the
 * rank, never a size one of them contradicts. Sizes the spec leaves to the model's
 * parameters (SVM scores) stay unknown.
 *
 * Maps: a TK_MAP tinfo carries the key type in `key` and the value's element type in
 * `elem` (tinfo.h); a sequence of maps (ZipMap) is a TK_SEQUENCE with inner TK_MAP and
 * the same two fields. No dims are ever claimed for a map.
 */
#include "passes/rules/rule_protos.h"

#include "core/dtype.h"
#include "passes/rules/rules_tensor.h"

#include <stdio.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------------- */

/* The class labels of a classifier: STRING when the string list is non-empty, INT64
 * when the integer list is; *n gets their count. Both set, or neither: reported, 0. */
static int32_t class_labels(infer_ctx *c, const char *ints_name, const char *strings_name, int32_t *n)
{
	int32_t ns = attr_len(c, strings_name), ni = attr_len(c, ints_name);
	*n = -1;
	if (ns > 0 && ni > 0) {
		tr_error(c, "only one of '%s' and '%s' may be set", ints_name, strings_name);
		return 0;
	}
	if (ns > 0 || ni > 0) {
		*n = ns > 0 ? ns : ni;
		return ns > 0 ? DT_STRING : DT_INT64;
	}
	tr_error(c, "one of '%s' and '%s' must list the class labels", ints_name, strings_name);
	return 0;
}

/* A non-negative INT attribute as a dim; unknown when absent, reported when negative. */
static dim count_attr(infer_ctx *c, const char *name)
{
	if (!attr_has(c, name))
		return dim_unknown();
	int64_t v = attr_i(c, name, -1);
	if (v < 0) {
		tr_error(c, "attribute '%s' is %lld, must be >= 0", name, (long long)v);
		return dim_unknown();
	}
	return dim_known(v);
}

/* Input 0 must be [N, F] (the tree ensembles, whose schemas check the rank): N, or
 * false when the rank is unknown or wrong (reported). */
static bool batch_of_2d(infer_ctx *c, dim *n)
{
	int32_t r = in_rank(c, 0);
	if (r < 0)
		return false;
	if (r != 2) {
		tr_error(c, "input '%s' %s must be 2-D [N, F]", in_name(c, 0), fmt_shape(c, in(c, 0)));
		return false;
	}
	*n = in_tensor(c, 0)->dims[0];
	return true;
}

/* Input 0 as [N, C] or [C] (read as [1, C], as LinearClassifier's schema says and ONNX
 * Runtime does): N, or false for an unknown or other rank (reported). */
static bool batch_of_1d_2d(infer_ctx *c, dim *n)
{
	int32_t r = in_rank(c, 0);
	if (r < 0)
		return false;
	if (r != 1 && r != 2) {
		tr_error(c, "input '%s' %s must be [N, C] or [C]", in_name(c, 0), fmt_shape(c, in(c, 0)));
		return false;
	}
	*n = r == 1 ? dim_known(1) : in_tensor(c, 0)->dims[0];
	return true;
}

/* A per-feature list attribute (Scaler's offset, Imputer's values) has one entry or
 * one per feature, the last dim of input 0: reports any other length. */
static void check_per_feature(infer_ctx *c, const char *name)
{
	int32_t n = attr_len(c, name);
	const tinfo *x = in_tensor(c, 0);
	if (n <= 1 || !x || x->rank < 1)
		return;
	dim f = dim_resolve(c->syms, x->dims[x->rank - 1]);
	if (f.kind == DIM_KNOWN && f.v != n)
		tr_error(c, "attribute '%s' has %d entries; it needs 1 or one per feature (%lld)", name, n,
			 (long long)f.v);
}

/* Input i when it is a map (or unknown: NULL); reports a value of another kind. */
static const tinfo *map_in(infer_ctx *c, int32_t i)
{
	const tinfo *t = in(c, i);
	if (!t || t->kind == TK_UNKNOWN)
		return NULL;
	if (t->kind != TK_MAP) {
		tr_error(c, "input '%s' must be a map", in_name(c, i));
		return NULL;
	}
	return t;
}

/* ---- same shape ---------------------------------------------------------------- */

void infer_ml_binarizer(infer_ctx *c) { tr_same_shape(c, 0, in_tensor(c, 0), in_elem(c, 0)); }

void infer_ml_imputer(infer_ctx *c)
{
	check_per_feature(c, "imputed_value_floats");
	check_per_feature(c, "imputed_value_int64s");
	tr_same_shape(c, 0, in_tensor(c, 0), in_elem(c, 0));
}

/* scale "must be same length as 'offset'" (Operators-ml.md; ONNX Runtime refuses
 * the node otherwise). */
void infer_ml_scaler(infer_ctx *c)
{
	int32_t no = attr_len(c, "offset"), ns = attr_len(c, "scale");
	if (no >= 0 && ns >= 0 && no != ns)
		tr_error(c, "'offset' has %d entries, 'scale' %d", no, ns);
	check_per_feature(c, "offset");
	check_per_feature(c, "scale");
	tr_same_shape(c, 0, in_tensor(c, 0), DT_FLOAT);
}

void infer_ml_normalizer(infer_ctx *c) { tr_same_shape(c, 0, in_tensor(c, 0), DT_FLOAT); }

/* Strings in, integers out, and the other way round. */
static void swap_string_int64(infer_ctx *c)
{
	int32_t e = in_elem(c, 0), out = 0;
	if (e == DT_STRING)
		out = DT_INT64;
	else if (e == DT_INT64)
		out = DT_STRING;
	else if (e)
		tr_error(c, "input '%s' is %s; it must be STRING or INT64", in_name(c, 0), dtype_name(e));
	tr_same_shape(c, 0, in_tensor(c, 0), out);
}

/* The two lists are the two sides of one mapping. */
void infer_ml_category_mapper(infer_ctx *c)
{
	int32_t ni = attr_len(c, "cats_int64s"), ns = attr_len(c, "cats_strings");
	if (ni < 0 || ns < 0)
		tr_error(c, "attributes 'cats_int64s' and 'cats_strings' are both required");
	else if (ni != ns)
		tr_error(c, "'cats_int64s' has %d entries, 'cats_strings' %d", ni, ns);
	swap_string_int64(c);
}

/* ---- ArrayFeatureExtractor ------------------------------------------------------- */

/* The indices select along the last axis, which becomes as long as there are indices;
 * a 1-D input gives [1, count] (ONNX Runtime and the python reference agree). */
void infer_ml_array_feature_extractor(infer_ctx *c)
{
	const tinfo *x = in_tensor(c, 0), *ix = in_tensor(c, 1);
	int32_t elem = in_elem(c, 0), r = in_rank(c, 0);
	if (ix && ix->elem && ix->elem != DT_INT64)
		tr_error(c, "indices '%s' are %s, must be INT64", in_name(c, 1), dtype_name(ix->elem));
	if (r < 0 || r == 0) {
		if (r == 0)
			tr_error(c, "input '%s' must have at least one dimension", in_name(c, 0));
		set_out_elem(c, 0, elem);
		return;
	}
	dim count = dim_unknown();
	if (ix && ix->rank >= 0) {
		count = dim_known(1);
		for (int32_t k = 0; k < ix->rank; k++)
			count = dim_mul(c, count, ix->dims[k]);
	}
	if (r == 1) {
		dim d[2] = {dim_known(1), count};
		set_out(c, 0, elem, 2, d);
		return;
	}
	dim *d = dims_dup(c, x->dims, r);
	if (!d)
		return;
	d[r - 1] = count;
	set_out(c, 0, elem, r, d);
}

/* ---- maps ----------------------------------------------------------------------- */

typedef struct name_elem {
	const char *name;
	int32_t elem;
} name_elem;

/* CastMap: map(int64, string or float) to a tensor of cast_to's type. The type
 * only, as onnx's own inference gives: the schema calls the result 1-D, but no
 * runtime could be checked here (ONNX Runtime's node binding takes no map input). */
void infer_ml_cast_map(infer_ctx *c)
{
	static const name_elem cast_to[] = {{"TO_FLOAT", DT_FLOAT}, {"TO_STRING", DT_STRING}, {"TO_INT64", DT_INT64}};
	const tinfo *m = map_in(c, 0);
	if (m && m->key && m->key != DT_INT64)
		tr_error(c, "input '%s' has %s keys, must be INT64", in_name(c, 0), dtype_name(m->key));
	if (m && m->elem && m->elem != DT_STRING && m->elem != DT_FLOAT)
		tr_error(c, "input '%s' maps to %s, must be STRING or FLOAT", in_name(c, 0), dtype_name(m->elem));
	const char *form = attr_s(c, "map_form", "DENSE");
	if (strcmp(form, "DENSE") && strcmp(form, "SPARSE"))
		tr_error(c, "map_form '%s' is not DENSE or SPARSE", form);
	const char *to = attr_s(c, "cast_to", "TO_FLOAT");
	for (size_t k = 0; k < sizeof cast_to / sizeof cast_to[0]; k++) {
		if (!strcmp(to, cast_to[k].name)) {
			set_out_elem(c, 0, cast_to[k].elem);
			return;
		}
	}
	tr_error(c, "cast_to '%s' is not TO_FLOAT, TO_STRING or TO_INT64", to);
}

/* DictVectorizer: a map looked up through a vocabulary of the key's type; the output
 * holds the map's value type. Its shape is [1, C] in the schema's text but (V) in
 * onnx's python reference for one map: not claimed (onnx's inference gives the type
 * only too). */
void infer_ml_dict_vectorizer(infer_ctx *c)
{
	int32_t ns = attr_len(c, "string_vocabulary"), ni = attr_len(c, "int64_vocabulary");
	int32_t key = 0;
	if (ns >= 0 && ni >= 0)
		tr_error(c, "only one of 'int64_vocabulary' and 'string_vocabulary' may be set");
	else if (ns < 0 && ni < 0)
		tr_error(c, "one of 'int64_vocabulary' and 'string_vocabulary' is required");
	else
		key = ns >= 0 ? DT_STRING : DT_INT64;
	const tinfo *m = map_in(c, 0);
	if (m && m->key && key && m->key != key)
		tr_error(c, "input '%s' has %s keys but the vocabulary is %s", in_name(c, 0), dtype_name(m->key),
			 dtype_name(key));
	set_out_elem(c, 0, m ? m->elem : 0);
}

/* ZipMap: one map per row of scores, keyed by the class labels. */
void infer_ml_zipmap(infer_ctx *c)
{
	int32_t n;
	int32_t key = class_labels(c, "classlabels_int64s", "classlabels_strings", &n);
	const tinfo *x = in_tensor(c, 0);
	if (x && x->elem && x->elem != DT_FLOAT)
		tr_error(c, "input '%s' is %s, must be FLOAT", in_name(c, 0), dtype_name(x->elem));
	if (x && x->rank >= 0 && x->rank != 1 && x->rank != 2)
		tr_error(c, "input '%s' %s must be [N, C] or [C]", in_name(c, 0), fmt_shape(c, x));
	else if (x && x->rank >= 1 && n >= 0) {
		dim f = dim_resolve(c->syms, x->dims[x->rank - 1]);
		if (f.kind == DIM_KNOWN && f.v != n)
			tr_error(c, "input '%s' %s has %lld scores per row for %d class labels", in_name(c, 0),
				 fmt_shape(c, x), (long long)f.v, n);
	}
	tinfo s = tinfo_unknown();
	s.kind = TK_SEQUENCE;
	s.inner = TK_MAP;
	s.elem = DT_FLOAT;
	s.key = key;
	set_out_info(c, 0, &s);
}

/* ---- FeatureVectorizer ----------------------------------------------------------- */

/* The inputs, each cut or padded to its inputdimensions entry, side by side: FLOAT
 * [N, sum]. N is the first input's leading dim when it is 2-D; a 1-D input is [1, C]
 * for the spec and ONNX Runtime but [C, 1] for the python reference: N unknown. */
void infer_ml_feature_vectorizer(infer_ctx *c)
{
	const int64_t *dims;
	int32_t n;
	dim total = dim_unknown();
	if (attr_ints(c, "inputdimensions", &dims, &n) && n == in_count(c)) {
		int64_t sum = 0;
		bool ok = true;
		for (int32_t k = 0; k < n && ok; k++) {
			if (dims[k] < 0 || __builtin_add_overflow(sum, dims[k], &sum)) {
				tr_error(c, "inputdimensions[%d] is %lld", k, (long long)dims[k]);
				ok = false;
			}
		}
		if (ok)
			total = dim_known(sum);
	}
	dim d[2] = {dim_unknown(), total};
	if (in_rank(c, 0) == 2)
		d[0] = in_tensor(c, 0)->dims[0];
	set_out(c, 0, DT_FLOAT, 2, d);
}

/* ---- LabelEncoder ---------------------------------------------------------------- */

/* One family of LabelEncoder attributes (keys_* or values_*): the element type the
 * one set stands for (its tensor's for *_tensor; 0 for an invalid one) and its
 * length (-1 unknown). None set, or two: reported, elem -1. */
typedef struct le_attr {
	int32_t elem;
	int64_t len;
} le_attr;

static le_attr le_family(infer_ctx *c, const char *prefix, bool with_tensor)
{
	static const name_elem lists[] = {{"strings", DT_STRING}, {"int64s", DT_INT64}, {"floats", DT_FLOAT}};
	char name[32];
	le_attr found = {0, -1};
	int32_t count = 0;
	for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++) {
		snprintf(name, sizeof name, "%s_%s", prefix, lists[k].name);
		int32_t n = attr_len(c, name);
		if (n >= 0) {
			found = (le_attr){lists[k].elem, n};
			count++;
		}
	}
	snprintf(name, sizeof name, "%s_tensor", prefix);
	const tensor_view *t = with_tensor ? attr_tensor(c, name) : NULL;
	if (t) {
		found = (le_attr){dtype_valid(t->dtype) ? t->dtype : 0, t->count};
		count++;
	}
	if (count != 1) {
		tr_error(c, count ? "only one of the '%s_*' attributes may be set" : "one of the '%s_*' attributes is required",
			 prefix);
		return (le_attr){-1, -1};
	}
	return found;
}

/* The i-th key maps to the i-th value, so there are as many of each; version 4's
 * default_tensor is one value of the values' type. */
static void label_encoder(infer_ctx *c, bool with_tensor)
{
	le_attr keys = le_family(c, "keys", with_tensor), values = le_family(c, "values", with_tensor);
	int32_t e = in_elem(c, 0);
	if (keys.elem > 0 && e && e != keys.elem)
		tr_error(c, "input '%s' is %s but the keys are %s", in_name(c, 0), dtype_name(e), dtype_name(keys.elem));
	if (keys.len >= 0 && values.len >= 0 && keys.len != values.len)
		tr_error(c, "%lld keys for %lld values", (long long)keys.len, (long long)values.len);
	const tensor_view *d = with_tensor ? attr_tensor(c, "default_tensor") : NULL;
	if (d && d->dtype) {
		if (values.elem > 0 && d->dtype != values.elem)
			tr_error(c, "default_tensor is %s, the values are %s", dtype_name(d->dtype),
				 dtype_name(values.elem));
		if (d->rank != 1 || d->count != 1)
			tr_error(c, "default_tensor must hold one value in one dimension");
	}
	tr_same_shape(c, 0, in_tensor(c, 0), values.elem > 0 ? values.elem : 0);
}

/* Version 1: classes_strings maps strings to their index and back. */
void infer_ml_label_encoder1(infer_ctx *c) { swap_string_int64(c); }
/* 2: keys_* / values_* lists; 4: also keys_tensor / values_tensor (any of their types). */
void infer_ml_label_encoder2(infer_ctx *c) { label_encoder(c, false); }
void infer_ml_label_encoder4(infer_ctx *c) { label_encoder(c, true); }

/* ---- linear models ----------------------------------------------------------------- */

/* Y: one label per row; Z: FLOAT [N, E], E the number of intercepts (one score per
 * class), except one intercept for two labels, which ONNX Runtime widens to two
 * scores. Other combinations leave E unknown. */
void infer_ml_linear_classifier(infer_ctx *c)
{
	int32_t nlabels;
	int32_t label = class_labels(c, "classlabels_ints", "classlabels_strings", &nlabels);
	dim n;
	if (!batch_of_1d_2d(c, &n)) {
		set_out_elem(c, 0, label);
		set_out_elem(c, 1, DT_FLOAT);
		return;
	}
	int32_t ni = attr_len(c, "intercepts");
	dim e = dim_unknown();
	if (ni > 0 && ni == nlabels)
		e = dim_known(ni);
	else if (ni == 1 && nlabels == 2)
		e = dim_known(2);
	dim z[2] = {n, e};
	set_out(c, 0, label, 1, &n);
	set_out(c, 1, DT_FLOAT, 2, z);
}

/* FLOAT [N, targets] for [N, F]. A 1-D input is [1, targets] for ONNX Runtime but
 * (targets) for the python reference: only the type then. */
void infer_ml_linear_regressor(infer_ctx *c)
{
	dim t = count_attr(c, "targets");
	if (!attr_has(c, "targets"))
		t = dim_known(1);
	if (in_rank(c, 0) != 2) {
		set_out_elem(c, 0, DT_FLOAT);
		return;
	}
	dim d[2] = {in_tensor(c, 0)->dims[0], t};
	set_out(c, 0, DT_FLOAT, 2, d);
}

/* ---- OneHotEncoder ------------------------------------------------------------------ */

/* FLOAT, the input's shape with one more axis as long as the category list. */
void infer_ml_one_hot_encoder(infer_ctx *c)
{
	int32_t ns = attr_len(c, "cats_strings"), ni = attr_len(c, "cats_int64s");
	dim cats = dim_unknown();
	int32_t e = in_elem(c, 0);
	if (ns >= 0 && ni >= 0) {
		tr_error(c, "only one of 'cats_int64s' and 'cats_strings' may be set");
	} else if (ns < 0 && ni < 0) {
		tr_error(c, "one of 'cats_int64s' and 'cats_strings' is required");
	} else {
		cats = dim_known(ns >= 0 ? ns : ni);
		if (e && (ns >= 0) != (e == DT_STRING))
			tr_error(c, "input '%s' is %s but the categories are %s", in_name(c, 0), dtype_name(e),
				 ns >= 0 ? "strings" : "integers");
	}
	int32_t r = in_rank(c, 0);
	if (r < 0) {
		set_out_elem(c, 0, DT_FLOAT);
		return;
	}
	dim *d = dims_alloc(c, r + 1);
	if (!d)
		return;
	for (int32_t k = 0; k < r; k++)
		d[k] = in_tensor(c, 0)->dims[k];
	d[r] = cats;
	set_out(c, 0, DT_FLOAT, r + 1, d);
}

/* ---- SVM ------------------------------------------------------------------------------ */

/* Y: one label per row of [N, F]; Z: FLOAT [N, ?]: its width depends on the kernel,
 * the class count and whether probabilities are asked for (ONNX Runtime gives pairwise
 * votes for 4 classes without prob_a: 6 columns). 1-D inputs: types only, the spec
 * does not say how they are read. */
void infer_ml_svm_classifier(infer_ctx *c)
{
	int32_t nlabels;
	int32_t label = class_labels(c, "classlabels_ints", "classlabels_strings", &nlabels);
	if (in_rank(c, 0) != 2) {
		set_out_elem(c, 0, label);
		set_out_elem(c, 1, DT_FLOAT);
		return;
	}
	dim n = in_tensor(c, 0)->dims[0];
	dim z[2] = {n, dim_unknown()};
	set_out(c, 0, label, 1, &n);
	set_out(c, 1, DT_FLOAT, 2, z);
}

/* One score per row: FLOAT [N, 1] (ONNX Runtime; the spec's single target). */
void infer_ml_svm_regressor(infer_ctx *c)
{
	if (in_rank(c, 0) != 2) {
		set_out_elem(c, 0, DT_FLOAT);
		return;
	}
	dim d[2] = {in_tensor(c, 0)->dims[0], dim_known(1)};
	set_out(c, 0, DT_FLOAT, 2, d);
}

/* ---- trees ---------------------------------------------------------------------------- */

/* Version 3 gives double-precision twins (*_as_tensor) of the float lists: one of
 * each pair at most. */
static void one_of_each_pair(infer_ctx *c, const char *const *names, size_t n)
{
	char twin[64];
	for (size_t k = 0; k < n; k++) {
		snprintf(twin, sizeof twin, "%s_as_tensor", names[k]);
		if (attr_has(c, names[k]) && attr_has(c, twin))
			tr_error(c, "only one of '%s' and '%s' may be set", names[k], twin);
	}
}

/* Y: the top label per row; Z: FLOAT [N, number of labels]. */
void infer_ml_tree_ensemble_classifier(infer_ctx *c)
{
	static const char *const pairs[] = {"nodes_values", "nodes_hitrates", "class_weights", "base_values"};
	one_of_each_pair(c, pairs, sizeof pairs / sizeof pairs[0]);
	int32_t nlabels;
	int32_t label = class_labels(c, "classlabels_int64s", "classlabels_strings", &nlabels);
	dim n;
	if (!batch_of_2d(c, &n)) {
		set_out_elem(c, 0, label);
		set_out_elem(c, 1, DT_FLOAT);
		return;
	}
	dim z[2] = {n, nlabels >= 0 ? dim_known(nlabels) : dim_unknown()};
	set_out(c, 0, label, 1, &n);
	set_out(c, 1, DT_FLOAT, 2, z);
}

/* FLOAT [N, n_targets]. */
void infer_ml_tree_ensemble_regressor(infer_ctx *c)
{
	static const char *const pairs[] = {"nodes_values", "nodes_hitrates", "target_weights", "base_values"};
	one_of_each_pair(c, pairs, sizeof pairs / sizeof pairs[0]);
	dim n, t = count_attr(c, "n_targets");
	if (!batch_of_2d(c, &n)) {
		set_out_elem(c, 0, DT_FLOAT);
		return;
	}
	dim d[2] = {n, t};
	set_out(c, 0, DT_FLOAT, 2, d);
}

/* TreeEnsemble (5): the input's type, [N, n_targets]. The thresholds and the leaf
 * weights are tensors of the input's type; one target id per leaf weight. */
void infer_ml_tree_ensemble(infer_ctx *c)
{
	static const char *const typed[] = {"nodes_splits", "leaf_weights", "membership_values"};
	int32_t e = in_elem(c, 0);
	if (e && e != DT_FLOAT && e != DT_DOUBLE && e != DT_FLOAT16)
		tr_error(c, "input '%s' is %s, must be FLOAT, DOUBLE or FLOAT16", in_name(c, 0), dtype_name(e));
	for (size_t k = 0; k < sizeof typed / sizeof typed[0]; k++) {
		const tensor_view *t = attr_tensor(c, typed[k]);
		if (t && e && t->dtype != e)
			tr_error(c, "attribute '%s' is %s, the input is %s", typed[k],
				 dtype_valid(t->dtype) ? dtype_name(t->dtype) : "invalid", dtype_name(e));
	}
	const tensor_view *w = attr_tensor(c, "leaf_weights");
	int32_t nt = attr_len(c, "leaf_targetids");
	if (w && w->rank == 1 && nt >= 0 && w->count != nt)
		tr_error(c, "%d leaf_targetids for %lld leaf_weights", nt, (long long)w->count);
	dim n, t = count_attr(c, "n_targets");
	if (!batch_of_2d(c, &n)) {
		set_out_elem(c, 0, e);
		return;
	}
	dim d[2] = {n, t};
	set_out(c, 0, e, 2, d);
}
