/* test_rules_ml.c: the ai.onnx.ml operators. Expected types come from the examples
 * of Operators-ml.md where it has one, otherwise from ONNX Runtime 1.30 (npm
 * onnxruntime-node, run on the same node with the attributes written here; noted
 * "ORT"; tests/ort/shapes_vs_ort.py runs most of them again) and, where sources
 * disagree, from what all allow: a 1-D input to LinearRegressor is [1, T] for ORT and
 * (T) for onnx's python reference, so only the type is expected. Maps cannot be fed
 * to ORT's node binding: CastMap, DictVectorizer and ZipMap follow the schemas. */
#include <criterion/criterion.h>

#include "core/model.h"
#include "mb.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static mb *ml(int64_t version)
{
	mb *b = mb_new(17);
	mb_opset(b, "ai.onnx.ml", version);
	return b;
}

/* A node of the ai.onnx.ml domain whose outputs are declared as graph outputs
 * without a type (so what is read back is what inference found). */
static void ml_node(mb *b, const char *op, const char *ins, const char *outs)
{
	mb_node(b, op, ins, outs);
	mb_node_domain(b, "ai.onnx.ml");
	char buf[256];
	snprintf(buf, sizeof buf, "%s", outs);
	for (char *p = strtok(buf, ","); p; p = strtok(NULL, ","))
		mb_output(b, p, 0, NULL);
}

static osh_model *run(mb *b)
{
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	return m;
}

/* What inference holds for a value (the key of a map is not in the public API). */
static const tinfo *info(osh_model *m, const char *name)
{
	int32_t id = strmap_get(&m->main->names, name);
	cr_assert(id >= 0, "no value %s", name);
	return &m->main->values[id].ti;
}

/* ---- ArrayFeatureExtractor ---- */

Test(rules_ml, array_feature_extractor)
{
	mb *b = ml(1);
	mb_input(b, "x", DT_FLOAT, "3,4");
	mb_input(b, "y", DT_INT64, "2");
	mb_input(b, "v", DT_FLOAT, "5");
	mb_input(b, "t", DT_FLOAT, "2,3,5");
	mb_input(b, "i22", DT_INT64, "2,2");
	mb_input(b, "s", DT_STRING, "N,4");
	mb_input(b, "ik", DT_INT64, "K");
	mb_input(b, "i0", DT_INT64, "");
	ml_node(b, "ArrayFeatureExtractor", "x,y", "z");     /* Operators-ml.md example: (3, 2) */
	ml_node(b, "ArrayFeatureExtractor", "v,y", "z1");    /* ORT: [1, 2] */
	ml_node(b, "ArrayFeatureExtractor", "t,i22", "z3");  /* ORT: [2, 3, 4] */
	ml_node(b, "ArrayFeatureExtractor", "s,ik", "zs");
	ml_node(b, "ArrayFeatureExtractor", "x,i0", "zscalar");
	osh_model *m = run(b);
	cr_expect_str_eq(mb_type(m, "z"), "FLOAT (3, 2)");
	cr_expect_str_eq(mb_type(m, "z1"), "FLOAT (1, 2)");
	cr_expect_str_eq(mb_type(m, "z3"), "FLOAT (2, 3, 4)");
	cr_expect_str_eq(mb_type(m, "zs"), "STRING (N, K)");
	cr_expect_str_eq(mb_type(m, "zscalar"), "FLOAT (3, 1)");
	cr_expect_eq(mb_count(m, "shape-error"), 0);
	osh_model_free(m);
}

Test(rules_ml, array_feature_extractor_errors)
{
	mb *b = ml(1);
	mb_input(b, "x", DT_FLOAT, "3,4");
	mb_input(b, "i", DT_INT32, "2");
	mb_input(b, "s", DT_FLOAT, "");
	mb_input(b, "y", DT_INT64, "2");
	ml_node(b, "ArrayFeatureExtractor", "x,i", "z");
	ml_node(b, "ArrayFeatureExtractor", "s,y", "zs");
	osh_model *m = run(b);
	cr_expect_eq(mb_count(m, "shape-error"), 2);
	cr_expect_str_eq(mb_type(m, "z"), "FLOAT (3, 2)");
	cr_expect_str_eq(mb_type(m, "zs"), "FLOAT (rank unknown)");
	osh_model_free(m);
}

/* ---- same-shape transforms ---- */

Test(rules_ml, elementwise_transforms)
{
	mb *b = ml(1);
	mb_input(b, "x", DT_FLOAT, "3,4,5");
	mb_input(b, "i", DT_INT32, "N,3");
	mb_input(b, "l", DT_INT64, "N,3");
	mb_input(b, "v", DT_DOUBLE, "3");
	ml_node(b, "Binarizer", "x", "bin"); /* Operators-ml.md example */
	mb_attr_f(b, "threshold", 1.0f);
	ml_node(b, "Scaler", "i", "scaled");
	mb_attr_floats(b, "offset", 3, (float[]){1, 2, 3});
	mb_attr_floats(b, "scale", 3, (float[]){2, 2, 2});
	ml_node(b, "Imputer", "l", "imputed");
	mb_attr_ints(b, "imputed_value_int64s", 1, (int64_t[]){0});
	ml_node(b, "Normalizer", "v", "norm"); /* ORT: [3], FLOAT */
	mb_attr_s(b, "norm", "L2");
	osh_model *m = run(b);
	cr_expect_str_eq(mb_type(m, "bin"), "FLOAT (3, 4, 5)");
	cr_expect_str_eq(mb_type(m, "scaled"), "FLOAT (N, 3)");
	cr_expect_str_eq(mb_type(m, "imputed"), "INT64 (N, 3)");
	cr_expect_str_eq(mb_type(m, "norm"), "FLOAT (3)");
	cr_expect_eq(mb_count(m, "shape-error"), 0);
	osh_model_free(m);
}

/* Per-feature lists have 1 entry or one per feature (the last dim). */
Test(rules_ml, per_feature_lists)
{
	mb *b = ml(1);
	mb_input(b, "x", DT_FLOAT, "N,3");
	ml_node(b, "Scaler", "x", "s");
	mb_attr_floats(b, "offset", 2, (float[]){1, 2});
	ml_node(b, "Imputer", "x", "i");
	mb_attr_floats(b, "imputed_value_floats", 4, (float[]){1, 2, 3, 4});
	ml_node(b, "Scaler", "x", "s2"); /* offset and scale differ in length */
	mb_attr_floats(b, "offset", 3, (float[]){1, 2, 3});
	mb_attr_floats(b, "scale", 1, (float[]){2});
	osh_model *m = run(b);
	cr_expect_eq(mb_count(m, "shape-error"), 3);
	cr_expect_str_eq(mb_type(m, "s"), "FLOAT (N, 3)");
	osh_model_free(m);
}

Test(rules_ml, category_mapper_swaps_strings_and_integers)
{
	mb *b = ml(1);
	mb_input(b, "i", DT_INT64, "2,3");
	mb_input(b, "s", DT_STRING, "N");
	mb_input(b, "f", DT_FLOAT, "2");
	const char *cats[] = {"a", "b"};
	ml_node(b, "CategoryMapper", "i", "to_s"); /* ORT: string [2, 3] */
	mb_attr_ints(b, "cats_int64s", 2, (int64_t[]){1, 2});
	mb_attr_strings(b, "cats_strings", 2, cats);
	ml_node(b, "CategoryMapper", "s", "to_i");
	mb_attr_ints(b, "cats_int64s", 2, (int64_t[]){1, 2});
	mb_attr_strings(b, "cats_strings", 2, cats);
	ml_node(b, "CategoryMapper", "f", "bad"); /* FLOAT in */
	mb_attr_ints(b, "cats_int64s", 2, (int64_t[]){1, 2});
	mb_attr_strings(b, "cats_strings", 2, cats);
	ml_node(b, "CategoryMapper", "i", "uneven"); /* the two sides of the mapping differ */
	mb_attr_ints(b, "cats_int64s", 3, (int64_t[]){1, 2, 3});
	mb_attr_strings(b, "cats_strings", 2, cats);
	osh_model *m = run(b);
	cr_expect_str_eq(mb_type(m, "to_s"), "STRING (2, 3)");
	cr_expect_str_eq(mb_type(m, "to_i"), "INT64 (N)");
	cr_expect_str_eq(mb_type(m, "bad"), "? (2)");
	cr_expect_str_eq(mb_type(m, "uneven"), "STRING (2, 3)");
	cr_expect_eq(mb_count(m, "shape-error"), 2);
	osh_model_free(m);
}

/* ---- maps ---- */

Test(rules_ml, maps_in_cast_map_and_dict_vectorizer)
{
	mb *b = ml(1);
	mb_input_map(b, "m", DT_INT64, DT_STRING);
	mb_input_map(b, "sf", DT_STRING, DT_FLOAT);
	mb_input_map(b, "id", DT_INT64, DT_DOUBLE);
	const char *vocab[] = {"a", "c", "b", "z"};
	ml_node(b, "CastMap", "m", "cast");
	mb_attr_s(b, "cast_to", "TO_INT64");
	ml_node(b, "CastMap", "m", "cast_default");
	ml_node(b, "DictVectorizer", "sf", "dv");
	mb_attr_strings(b, "string_vocabulary", 4, vocab);
	ml_node(b, "DictVectorizer", "id", "dvi");
	mb_attr_ints(b, "int64_vocabulary", 2, (int64_t[]){1, 2});
	osh_model *m = run(b);
	/* the map input as declared: key and value types */
	cr_expect_str_eq(mb_type(m, "sf"), "map FLOAT (rank unknown)");
	cr_expect_eq(info(m, "sf")->key, DT_STRING);
	/* CastMap: the type only (as onnx's own inference) */
	cr_expect_str_eq(mb_type(m, "cast"), "INT64 (rank unknown)");
	cr_expect_str_eq(mb_type(m, "cast_default"), "FLOAT (rank unknown)");
	/* DictVectorizer: the map's value type; [1, C] (schema text) vs (V) (reference) */
	cr_expect_str_eq(mb_type(m, "dv"), "FLOAT (rank unknown)");
	cr_expect_str_eq(mb_type(m, "dvi"), "DOUBLE (rank unknown)");
	cr_expect_eq(mb_count(m, "shape-error"), 0);
	osh_model_free(m);
}

Test(rules_ml, map_errors)
{
	mb *b = ml(1);
	mb_input_map(b, "sm", DT_STRING, DT_FLOAT);
	mb_input_map(b, "good", DT_INT64, DT_FLOAT);
	mb_input(b, "t", DT_FLOAT, "3");
	ml_node(b, "CastMap", "sm", "c1"); /* keys must be INT64 */
	ml_node(b, "CastMap", "t", "c2");  /* not a map */
	ml_node(b, "CastMap", "good", "c3");
	mb_attr_s(b, "cast_to", "TO_DOUBLE");
	ml_node(b, "DictVectorizer", "sm", "d1"); /* string keys, integer vocabulary */
	mb_attr_ints(b, "int64_vocabulary", 1, (int64_t[]){1});
	osh_model *m = run(b);
	cr_expect_eq(mb_count(m, "shape-error"), 3);
	cr_expect_eq(mb_count(m, "attribute-error"), 1); /* TO_DOUBLE */
	osh_model_free(m);
}

/* ZipMap: one map per row; key from the labels, value FLOAT. */
Test(rules_ml, zipmap_is_a_sequence_of_maps)
{
	mb *b = ml(1);
	mb_input(b, "x", DT_FLOAT, "N,3");
	const char *labels[] = {"a", "b", "c"};
	ml_node(b, "ZipMap", "x", "zs");
	mb_attr_strings(b, "classlabels_strings", 3, labels);
	ml_node(b, "ZipMap", "x", "zi");
	mb_attr_ints(b, "classlabels_int64s", 3, (int64_t[]){1, 2, 3});
	ml_node(b, "ZipMap", "x", "bad");
	mb_attr_ints(b, "classlabels_int64s", 2, (int64_t[]){1, 2});
	mb_input(b, "x3", DT_FLOAT, "1,2,3");
	ml_node(b, "ZipMap", "x3", "rank3"); /* [N, C] or [C] only */
	mb_attr_ints(b, "classlabels_int64s", 3, (int64_t[]){1, 2, 3});
	osh_model *m = run(b);
	const tinfo *zs = info(m, "zs"), *zi = info(m, "zi");
	cr_expect_eq(zs->kind, TK_SEQUENCE);
	cr_expect_eq(zs->inner, TK_MAP);
	cr_expect_eq(zs->key, DT_STRING);
	cr_expect_eq(zs->elem, DT_FLOAT);
	cr_expect_eq(zi->key, DT_INT64);
	cr_expect_str_eq(mb_type(m, "zi"), "sequence FLOAT (rank unknown)");
	cr_expect_eq(mb_count(m, "shape-error"), 2); /* 3 scores per row for 2 labels; rank 3 */
	osh_model_free(m);
}

/* ---- FeatureVectorizer ---- */

Test(rules_ml, feature_vectorizer)
{
	mb *b = ml(1);
	mb_input(b, "a", DT_FLOAT, "4,3");
	mb_input(b, "c", DT_INT64, "4,2");
	mb_input(b, "v", DT_FLOAT, "3");
	mb_input(b, "w", DT_FLOAT, "2");
	ml_node(b, "FeatureVectorizer", "a,c", "y"); /* ORT: float [4, 5] */
	mb_attr_ints(b, "inputdimensions", 2, (int64_t[]){3, 2});
	ml_node(b, "FeatureVectorizer", "v,w", "y1"); /* ORT [1, 5], reference [3, 5] */
	mb_attr_ints(b, "inputdimensions", 2, (int64_t[]){3, 2});
	ml_node(b, "FeatureVectorizer", "a,c", "cut"); /* cut/padded to the sizes given */
	mb_attr_ints(b, "inputdimensions", 2, (int64_t[]){1, 7});
	ml_node(b, "FeatureVectorizer", "a,c", "overflow"); /* the sum does not fit int64 */
	mb_attr_ints(b, "inputdimensions", 2, (int64_t[]){INT64_MAX, 1});
	osh_model *m = run(b);
	cr_expect_str_eq(mb_type(m, "overflow"), "FLOAT (4, ?)");
	cr_expect_eq(mb_count(m, "shape-error"), 1);
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT (4, 5)");
	cr_expect_str_eq(mb_type(m, "y1"), "FLOAT (?, 5)");
	cr_expect_str_eq(mb_type(m, "cut"), "FLOAT (4, 8)");
	osh_model_free(m);
}

/* ---- LabelEncoder: key and value types per version ---- */

Test(rules_ml, label_encoder_versions)
{
	const char *keys[] = {"a", "b", "c"};
	mb *b = ml(4);
	mb_input(b, "s", DT_STRING, "5");
	mb_input(b, "i", DT_INT64, "2,N");
	ml_node(b, "LabelEncoder", "s", "to_i"); /* Operators-ml.md example: int64 (5) */
	mb_attr_strings(b, "keys_strings", 3, keys);
	mb_attr_ints(b, "values_int64s", 3, (int64_t[]){0, 1, 2});
	mb_attr_i(b, "default_int64", 42);
	ml_node(b, "LabelEncoder", "i", "to_f");
	mb_attr_ints(b, "keys_int64s", 2, (int64_t[]){1, 2});
	mb_attr_floats(b, "values_floats", 2, (float[]){0.5f, 1.5f});
	ml_node(b, "LabelEncoder", "s", "to_i16"); /* example tensor_based_label_encoder: int16 (5) */
	mb_attr_tensor_zeros(b, "keys_tensor", DT_STRING, "3");
	mb_attr_tensor_zeros(b, "values_tensor", DT_INT16, "3");
	osh_model *m = run(b);
	cr_expect_str_eq(mb_type(m, "to_i"), "INT64 (5)");
	cr_expect_str_eq(mb_type(m, "to_f"), "FLOAT (2, N)");
	cr_expect_str_eq(mb_type(m, "to_i16"), "INT16 (5)");
	cr_expect_eq(mb_count(m, "shape-error"), 0);
	osh_model_free(m);

	/* version 1: classes_strings, string <-> int64 */
	b = ml(1);
	mb_input(b, "s", DT_STRING, "5");
	mb_input(b, "i", DT_INT64, "3");
	ml_node(b, "LabelEncoder", "s", "a");
	mb_attr_strings(b, "classes_strings", 3, keys);
	ml_node(b, "LabelEncoder", "i", "c");
	mb_attr_strings(b, "classes_strings", 3, keys);
	m = run(b);
	cr_expect_str_eq(mb_type(m, "a"), "INT64 (5)");
	cr_expect_str_eq(mb_type(m, "c"), "STRING (3)");
	osh_model_free(m);
}

Test(rules_ml, label_encoder_errors)
{
	const char *keys[] = {"a", "b"};
	/* ai.onnx.ml 3 is LabelEncoder-2: values_tensor does not exist yet */
	mb *b = ml(3);
	mb_input(b, "s", DT_STRING, "5");
	mb_input(b, "f", DT_FLOAT, "5");
	ml_node(b, "LabelEncoder", "s", "t");
	mb_attr_strings(b, "keys_strings", 2, keys);
	mb_attr_tensor_zeros(b, "values_tensor", DT_INT16, "2");
	ml_node(b, "LabelEncoder", "f", "wrong_key"); /* float input, string keys */
	mb_attr_strings(b, "keys_strings", 2, keys);
	mb_attr_ints(b, "values_int64s", 2, (int64_t[]){1, 2});
	ml_node(b, "LabelEncoder", "s", "two");
	mb_attr_strings(b, "keys_strings", 2, keys);
	mb_attr_ints(b, "values_int64s", 2, (int64_t[]){1, 2});
	mb_attr_floats(b, "values_floats", 2, (float[]){1, 2});
	ml_node(b, "LabelEncoder", "s", "uneven"); /* 2 keys, 3 values */
	mb_attr_strings(b, "keys_strings", 2, keys);
	mb_attr_ints(b, "values_int64s", 3, (int64_t[]){1, 2, 3});
	osh_model *m = run(b);
	cr_expect_eq(mb_count(m, "shape-error"), 4);
	cr_expect_str_eq(mb_type(m, "uneven"), "INT64 (5)");
	cr_expect_str_eq(mb_type(m, "t"), "? (5)");
	cr_expect_str_eq(mb_type(m, "wrong_key"), "INT64 (5)");
	cr_expect_str_eq(mb_type(m, "two"), "? (5)");
	osh_model_free(m);

	/* version 4: default_tensor is one value of the values' type */
	b = ml(4);
	mb_input(b, "s", DT_STRING, "5");
	ml_node(b, "LabelEncoder", "s", "ok");
	mb_attr_strings(b, "keys_strings", 2, keys);
	mb_attr_tensor_zeros(b, "values_tensor", DT_INT16, "2");
	mb_attr_tensor_zeros(b, "default_tensor", DT_INT16, "1");
	ml_node(b, "LabelEncoder", "s", "bad_default");
	mb_attr_strings(b, "keys_strings", 2, keys);
	mb_attr_tensor_zeros(b, "values_tensor", DT_INT16, "2");
	mb_attr_tensor_zeros(b, "default_tensor", DT_INT64, "2");
	m = run(b);
	cr_expect_eq(mb_count(m, "shape-error"), 2);
	cr_expect_str_eq(mb_type(m, "ok"), "INT16 (5)");
	cr_expect_str_eq(mb_type(m, "bad_default"), "INT16 (5)");
	osh_model_free(m);
}

/* ---- linear models ---- */

Test(rules_ml, linear_classifier)
{
	const char *labels[] = {"a", "b", "c"};
	mb *b = ml(1);
	mb_input(b, "x", DT_FLOAT, "4,3");
	mb_input(b, "v", DT_FLOAT, "3");
	mb_input(b, "n", DT_DOUBLE, "N,3");
	ml_node(b, "LinearClassifier", "x", "y3,z3"); /* ORT: string [4], float [4, 3] */
	mb_attr_strings(b, "classlabels_strings", 3, labels);
	mb_attr_floats(b, "coefficients", 9, (float[]){1, 1, 1, 1, 1, 1, 1, 1, 1});
	mb_attr_floats(b, "intercepts", 3, (float[]){0.5f, 1, 2});
	ml_node(b, "LinearClassifier", "x", "yb,zb"); /* ORT: int64 [4], float [4, 2] */
	mb_attr_ints(b, "classlabels_ints", 2, (int64_t[]){0, 1});
	mb_attr_floats(b, "coefficients", 3, (float[]){1, 2, 3});
	mb_attr_floats(b, "intercepts", 1, (float[]){0.5f});
	ml_node(b, "LinearClassifier", "v", "y1,z1"); /* ORT: [1], [1, 2]; spec: [C] is [1, C] */
	mb_attr_ints(b, "classlabels_ints", 2, (int64_t[]){0, 1});
	mb_attr_floats(b, "coefficients", 3, (float[]){1, 2, 3});
	mb_attr_floats(b, "intercepts", 1, (float[]){0.5f});
	ml_node(b, "LinearClassifier", "n", "yn,zn"); /* no intercepts: score count unknown */
	mb_attr_ints(b, "classlabels_ints", 3, (int64_t[]){0, 1, 2});
	mb_attr_floats(b, "coefficients", 9, (float[]){1, 1, 1, 1, 1, 1, 1, 1, 1});
	osh_model *m = run(b);
	cr_expect_str_eq(mb_type(m, "y3"), "STRING (4)");
	cr_expect_str_eq(mb_type(m, "z3"), "FLOAT (4, 3)");
	cr_expect_str_eq(mb_type(m, "yb"), "INT64 (4)");
	cr_expect_str_eq(mb_type(m, "zb"), "FLOAT (4, 2)");
	cr_expect_str_eq(mb_type(m, "y1"), "INT64 (1)");
	cr_expect_str_eq(mb_type(m, "z1"), "FLOAT (1, 2)");
	cr_expect_str_eq(mb_type(m, "yn"), "INT64 (N)");
	cr_expect_str_eq(mb_type(m, "zn"), "FLOAT (N, ?)");
	cr_expect_eq(mb_count(m, "shape-error"), 0);
	osh_model_free(m);
}

Test(rules_ml, classifier_labels_must_be_one_kind)
{
	const char *labels[] = {"a", "b"};
	mb *b = ml(1);
	mb_input(b, "x", DT_FLOAT, "4,3");
	ml_node(b, "LinearClassifier", "x", "y,z");
	mb_attr_strings(b, "classlabels_strings", 2, labels);
	mb_attr_ints(b, "classlabels_ints", 2, (int64_t[]){0, 1});
	mb_attr_floats(b, "coefficients", 6, (float[]){1, 1, 1, 1, 1, 1});
	mb_attr_floats(b, "intercepts", 2, (float[]){1, 1});
	ml_node(b, "LinearClassifier", "x", "y2,z2");
	mb_attr_floats(b, "coefficients", 6, (float[]){1, 1, 1, 1, 1, 1});
	osh_model *m = run(b);
	cr_expect_eq(mb_count(m, "shape-error"), 2);
	cr_expect_str_eq(mb_type(m, "y"), "? (4)");
	osh_model_free(m);
}

Test(rules_ml, linear_regressor)
{
	mb *b = ml(1);
	mb_input(b, "x", DT_FLOAT, "4,3");
	mb_input(b, "i", DT_INT32, "N,3");
	mb_input(b, "v", DT_FLOAT, "3");
	ml_node(b, "LinearRegressor", "x", "y"); /* ORT: [4, 2] */
	mb_attr_floats(b, "coefficients", 6, (float[]){1, 2, 3, 4, 5, 6});
	mb_attr_i(b, "targets", 2);
	ml_node(b, "LinearRegressor", "i", "y_default"); /* targets defaults to 1 */
	mb_attr_floats(b, "coefficients", 3, (float[]){1, 2, 3});
	ml_node(b, "LinearRegressor", "v", "y1"); /* ORT [1, 2], reference (2): type only */
	mb_attr_floats(b, "coefficients", 6, (float[]){1, 2, 3, 4, 5, 6});
	mb_attr_i(b, "targets", 2);
	osh_model *m = run(b);
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT (4, 2)");
	cr_expect_str_eq(mb_type(m, "y_default"), "FLOAT (N, 1)");
	cr_expect_str_eq(mb_type(m, "y1"), "FLOAT (rank unknown)");
	osh_model_free(m);
}

Test(rules_ml, one_hot_encoder)
{
	const char *cats[] = {"x", "y", "z"};
	mb *b = ml(1);
	mb_input(b, "i", DT_INT64, "2,3");
	mb_input(b, "s", DT_STRING, "N");
	ml_node(b, "OneHotEncoder", "i", "y"); /* ORT and the reference: [2, 3, 4] */
	mb_attr_ints(b, "cats_int64s", 4, (int64_t[]){1, 2, 3, 4});
	ml_node(b, "OneHotEncoder", "s", "ys");
	mb_attr_strings(b, "cats_strings", 3, cats);
	ml_node(b, "OneHotEncoder", "s", "bad"); /* strings in, integer categories */
	mb_attr_ints(b, "cats_int64s", 4, (int64_t[]){1, 2, 3, 4});
	osh_model *m = run(b);
	cr_expect_str_eq(mb_type(m, "y"), "FLOAT (2, 3, 4)");
	cr_expect_str_eq(mb_type(m, "ys"), "FLOAT (N, 3)");
	cr_expect_eq(mb_count(m, "shape-error"), 1);
	osh_model_free(m);
}

/* ---- SVM ---- */

/* SVMClassifier's score width depends on the model (ORT: 6 columns for 4 classes
 * without probabilities, 4 with): only N is claimed. */
Test(rules_ml, svm)
{
	mb *b = ml(1);
	mb_input(b, "x", DT_FLOAT, "4,3");
	mb_input(b, "v", DT_FLOAT, "3");
	ml_node(b, "SVMClassifier", "x", "y,z");
	mb_attr_ints(b, "classlabels_ints", 4, (int64_t[]){0, 1, 2, 3});
	mb_attr_ints(b, "vectors_per_class", 4, (int64_t[]){1, 1, 1, 1});
	mb_attr_s(b, "kernel_type", "RBF");
	ml_node(b, "SVMRegressor", "x", "r"); /* ORT: [4, 1] */
	mb_attr_i(b, "n_supports", 2);
	ml_node(b, "SVMRegressor", "v", "r1");
	mb_attr_i(b, "n_supports", 2);
	osh_model *m = run(b);
	cr_expect_str_eq(mb_type(m, "y"), "INT64 (4)");
	cr_expect_str_eq(mb_type(m, "z"), "FLOAT (4, ?)");
	cr_expect_str_eq(mb_type(m, "r"), "FLOAT (4, 1)");
	cr_expect_str_eq(mb_type(m, "r1"), "FLOAT (rank unknown)");
	osh_model_free(m);
}

/* ---- trees ---- */

Test(rules_ml, tree_ensembles)
{
	const char *labels[] = {"a", "b", "c"};
	mb *b = ml(3);
	mb_input(b, "x", DT_FLOAT, "4,3");
	mb_input(b, "n", DT_DOUBLE, "N,3");
	ml_node(b, "TreeEnsembleClassifier", "x", "yb,zb"); /* ORT: int64 [4], float [4, 2] */
	mb_attr_ints(b, "classlabels_int64s", 2, (int64_t[]){0, 1});
	ml_node(b, "TreeEnsembleClassifier", "n", "ys,zs"); /* ORT: string [4], float [4, 3] */
	mb_attr_strings(b, "classlabels_strings", 3, labels);
	ml_node(b, "TreeEnsembleRegressor", "x", "r"); /* ORT: [4, 2] */
	mb_attr_i(b, "n_targets", 2);
	ml_node(b, "TreeEnsembleRegressor", "x", "r_unset");
	osh_model *m = run(b);
	cr_expect_str_eq(mb_type(m, "yb"), "INT64 (4)");
	cr_expect_str_eq(mb_type(m, "zb"), "FLOAT (4, 2)");
	cr_expect_str_eq(mb_type(m, "ys"), "STRING (N)");
	cr_expect_str_eq(mb_type(m, "zs"), "FLOAT (N, 3)");
	cr_expect_str_eq(mb_type(m, "r"), "FLOAT (4, 2)");
	cr_expect_str_eq(mb_type(m, "r_unset"), "FLOAT (4, ?)");
	cr_expect_eq(mb_count(m, "shape-error"), 0);
	cr_expect_eq(mb_count(m, "deprecated"), 0);
	osh_model_free(m);
}

/* Version 3's *_as_tensor twins: one of each pair. */
Test(rules_ml, tree_ensemble_as_tensor_twins)
{
	mb *b = ml(3);
	mb_input(b, "x", DT_DOUBLE, "4,3");
	ml_node(b, "TreeEnsembleRegressor", "x", "r");
	mb_attr_i(b, "n_targets", 1);
	mb_attr_floats(b, "nodes_values", 1, (float[]){0.5f});
	mb_attr_tensor_zeros(b, "nodes_values_as_tensor", DT_DOUBLE, "1");
	ml_node(b, "TreeEnsembleRegressor", "x", "r_ok");
	mb_attr_i(b, "n_targets", 1);
	mb_attr_tensor_zeros(b, "nodes_values_as_tensor", DT_DOUBLE, "1");
	osh_model *m = run(b);
	cr_expect_eq(mb_count(m, "shape-error"), 1);
	cr_expect_str_eq(mb_type(m, "r_ok"), "FLOAT (4, 1)");
	osh_model_free(m);
}

/* ORT (onnx's checker) refuses a 1-D input: "Input 0 expected to have rank 2". */
Test(rules_ml, tree_ensembles_need_2d)
{
	mb *b = ml(3);
	mb_input(b, "v", DT_FLOAT, "3");
	ml_node(b, "TreeEnsembleClassifier", "v", "y,z");
	mb_attr_ints(b, "classlabels_int64s", 2, (int64_t[]){0, 1});
	ml_node(b, "TreeEnsembleRegressor", "v", "r");
	mb_attr_i(b, "n_targets", 2);
	osh_model *m = run(b);
	cr_expect_eq(mb_count(m, "shape-error"), 2);
	cr_expect_str_eq(mb_type(m, "y"), "INT64 (rank unknown)");
	cr_expect_str_eq(mb_type(m, "r"), "FLOAT (rank unknown)");
	osh_model_free(m);
}

/* The attributes TreeEnsemble-5 requires but its rule does not read, for a tree of
 * one node whose two branches are leaves 0 and 1 (the rest of a node's attributes,
 * nodes_splits, leaf_targetids and leaf_weights, are the test's). */
static void tree_structure(mb *b)
{
	mb_attr_ints(b, "tree_roots", 1, (int64_t[]){0});
	mb_attr_tensor_zeros(b, "nodes_modes", DT_UINT8, "1"); /* BRANCH_LEQ */
	mb_attr_ints(b, "nodes_featureids", 1, (int64_t[]){0});
	mb_attr_ints(b, "nodes_truenodeids", 1, (int64_t[]){0});
	mb_attr_ints(b, "nodes_trueleafs", 1, (int64_t[]){1});
	mb_attr_ints(b, "nodes_falsenodeids", 1, (int64_t[]){1});
	mb_attr_ints(b, "nodes_falseleafs", 1, (int64_t[]){1});
}

/* ai.onnx.ml 5: TreeEnsemble; the old operators are gone (said, still read). */
Test(rules_ml, tree_ensemble_5)
{
	mb *b = ml(5);
	mb_input(b, "x", DT_DOUBLE, "3,2");
	mb_input(b, "f", DT_FLOAT, "N,3");
	mb_input(b, "i", DT_INT64, "N,3");
	ml_node(b, "TreeEnsemble", "x", "y"); /* example tree_ensemble_single_tree: double (3, 2) */
	mb_attr_i(b, "n_targets", 2);
	tree_structure(b);
	mb_attr_tensor_zeros(b, "nodes_splits", DT_DOUBLE, "1");
	mb_attr_tensor_zeros(b, "leaf_weights", DT_DOUBLE, "2");
	mb_attr_ints(b, "leaf_targetids", 2, (int64_t[]){0, 1});
	ml_node(b, "TreeEnsembleRegressor", "f", "old");
	mb_attr_i(b, "n_targets", 1);
	ml_node(b, "TreeEnsemble", "i", "bad"); /* INT64 input: the rule's shape-error and the schema's type-error */
	mb_attr_i(b, "n_targets", 1);
	tree_structure(b);
	mb_attr_tensor_zeros(b, "nodes_splits", DT_INT64, "1"); /* of the input's type: only the input is wrong */
	mb_attr_tensor_zeros(b, "leaf_weights", DT_INT64, "2");
	mb_attr_ints(b, "leaf_targetids", 2, (int64_t[]){0, 1});
	ml_node(b, "TreeEnsemble", "f", "mixed"); /* DOUBLE weights for a FLOAT input; 1 id, 2 weights */
	mb_attr_i(b, "n_targets", 1);
	tree_structure(b);
	mb_attr_tensor_zeros(b, "nodes_splits", DT_FLOAT, "1");
	mb_attr_tensor_zeros(b, "leaf_weights", DT_DOUBLE, "2");
	mb_attr_ints(b, "leaf_targetids", 1, (int64_t[]){0});
	osh_model *m = run(b);
	cr_expect_str_eq(mb_type(m, "y"), "DOUBLE (3, 2)");
	cr_expect_str_eq(mb_type(m, "old"), "FLOAT (N, 1)");
	cr_expect_str_eq(mb_type(m, "mixed"), "FLOAT (N, 1)");
	/* TreeEnsembleClassifier-5 is deprecated with nothing to replace it: refused. */
	cr_expect_eq(mb_count(m, "op-not-in-opset"), 1);
	cr_expect_eq(mb_count(m, "shape-error"), 3);
	cr_expect_eq(mb_count(m, "type-error"), 1);
	cr_expect_eq(mb_count(m, "attribute-error"), 0);
	osh_model_free(m);
}
