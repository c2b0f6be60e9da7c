#!/usr/bin/env python3
"""onnxshape's inferred shapes against ONNX Runtime's real ones, one node per model.

For every case below: the model is written with python3-onnx, `onnxshape infer
--ignore-declared` infers it, ONNX Runtime (tests/ort/run_shapes.js) runs it on the
inputs given here, and every output is compared:
  exact          every dim known and equal to the runtime's
  consistent     same rank, every known dim equal, some symbolic or unknown
  unknown        no rank claimed
  contradiction  a wrong rank, a wrong size or a wrong element type: the test fails
Cases ONNX Runtime refuses to run are listed and not compared.

The cases cover the ai.onnx.ml operators, the string operators, TfIdfVectorizer and
the signal generators (rules_ml.c, rules_string.c, rules_signal.c).

usage: shapes_vs_ort.py ONNXSHAPE ORT_DIR WORK_DIR
"""
import sys

import onnx

import ort_compare
from onnx import TensorProto as T
from onnx import helper as h

ML = "ai.onnx.ml"
NP_TYPES = {T.FLOAT: "float32", T.INT64: "int64", T.INT32: "int32", T.STRING: "string", T.UINT8: "uint8"}
ORT_TYPES = {**NP_TYPES, T.DOUBLE: "float64", T.INT16: "int16", T.BOOL: "bool"}
WORDS = ["monday", "Tuesday", "a,b", "hello world", "", "o n n x", "x.y.z", "MONDAY"]


def data_for(elem, count):
    if elem == T.STRING:
        return [WORDS[i % len(WORDS)] for i in range(count)]
    if elem in (T.INT64, T.INT32):
        return [i % 3 for i in range(count)]
    if elem == T.UINT8:
        return [i % 256 for i in range(count)]
    return [round(i * 0.37 - 1.0, 3) for i in range(count)]


def case(name, op, inputs, outputs, attrs=None, domain=ML, opsets=(("", 20), (ML, 3)), inits=()):
    """inputs: [(name, elem, dims)] graph inputs; inits: [TensorProto] initializers."""
    return dict(name=name, op=op, inputs=inputs, outputs=outputs, attrs=attrs or {}, domain=domain,
                opsets=opsets, inits=list(inits))


def i64(name, dims, vals):
    return h.make_tensor(name, T.INT64, dims, vals)


TREE_C = dict(nodes_treeids=[0, 0, 0], nodes_nodeids=[0, 1, 2], nodes_featureids=[0, 0, 0],
              nodes_values=[0.5, 0, 0], nodes_modes=["BRANCH_LEQ", "LEAF", "LEAF"], nodes_truenodeids=[1, 0, 0],
              nodes_falsenodeids=[2, 0, 0], class_treeids=[0, 0], class_nodeids=[1, 2], class_ids=[0, 1],
              class_weights=[0.2, 0.8])
TREE_R = dict(nodes_treeids=[0, 0, 0], nodes_nodeids=[0, 1, 2], nodes_featureids=[0, 0, 0],
              nodes_values=[0.5, 0, 0], nodes_modes=["BRANCH_LEQ", "LEAF", "LEAF"], nodes_truenodeids=[1, 0, 0],
              nodes_falsenodeids=[2, 0, 0], target_treeids=[0, 0], target_nodeids=[1, 2], target_ids=[0, 1],
              target_weights=[0.2, 0.8])
TFIDF = dict(min_gram_length=2, max_gram_length=2, max_skip_count=0, mode="TF", ngram_counts=[0, 4],
             ngram_indexes=[0, 1, 2, 3, 4, 5, 6], pool_int64s=[2, 3, 5, 4, 5, 6, 7, 8, 6, 7])
SVC4 = dict(classlabels_ints=[0, 1, 2, 3], coefficients=[1., -1., 1., -1.] * 3, support_vectors=[1., 2., 3.] * 4,
            vectors_per_class=[1, 1, 1, 1], rho=[0.1] * 6, kernel_type="RBF", kernel_params=[0.1, 0, 3])

CASES = [
    case("afe_2d", "ArrayFeatureExtractor", [("x", T.FLOAT, [3, 4]), ("i", T.INT64, [2])], ["z"]),
    case("afe_1d", "ArrayFeatureExtractor", [("x", T.FLOAT, [5]), ("i", T.INT64, [2])], ["z"]),
    case("afe_3d", "ArrayFeatureExtractor", [("x", T.FLOAT, [2, 3, 5]), ("i", T.INT64, [2, 2])], ["z"]),
    case("afe_scalar_index", "ArrayFeatureExtractor", [("x", T.FLOAT, [3, 4]), ("i", T.INT64, [])], ["z"]),
    case("afe_strings", "ArrayFeatureExtractor", [("x", T.STRING, [2, 4]), ("i", T.INT64, [3])], ["z"]),
    case("binarizer", "Binarizer", [("x", T.FLOAT, [3, 4, 5])], ["y"], dict(threshold=1.0)),
    case("category_mapper", "CategoryMapper", [("x", T.INT64, [2, 3])], ["y"],
         dict(cats_int64s=[1, 2], cats_strings=["a", "b"], default_string="x")),
    case("category_mapper_strings", "CategoryMapper", [("x", T.STRING, [5])], ["y"],
         dict(cats_int64s=[1, 2], cats_strings=["monday", "a,b"], default_int64=-1)),
    case("feature_vectorizer", "FeatureVectorizer", [("a", T.FLOAT, [4, 3]), ("b", T.FLOAT, [4, 2])], ["y"],
         dict(inputdimensions=[3, 2])),
    case("feature_vectorizer_1d", "FeatureVectorizer", [("a", T.FLOAT, [3]), ("b", T.FLOAT, [2])], ["y"],
         dict(inputdimensions=[3, 2])),
    case("imputer", "Imputer", [("x", T.FLOAT, [4, 3])], ["y"], dict(imputed_value_floats=[0.0], replaced_value_float=1.0)),
    case("label_encoder_2", "LabelEncoder", [("x", T.STRING, [5])], ["y"],
         dict(keys_strings=["monday", "a,b"], values_int64s=[1, 2])),
    case("label_encoder_to_float", "LabelEncoder", [("x", T.INT64, [2, 3])], ["y"],
         dict(keys_int64s=[0, 1], values_floats=[0.5, 1.5])),
    case("linear_classifier_3", "LinearClassifier", [("x", T.FLOAT, [4, 3])], ["y", "z"],
         dict(classlabels_strings=["a", "b", "c"], coefficients=[1.] * 9, intercepts=[0.5, 1., 2.])),
    case("linear_classifier_binary", "LinearClassifier", [("x", T.FLOAT, [4, 3])], ["y", "z"],
         dict(classlabels_ints=[0, 1], coefficients=[1., 2., 3.], intercepts=[0.5])),
    case("linear_classifier_1d", "LinearClassifier", [("x", T.FLOAT, [3])], ["y", "z"],
         dict(classlabels_ints=[0, 1], coefficients=[1., 2., 3.], intercepts=[0.5])),
    case("linear_regressor", "LinearRegressor", [("x", T.FLOAT, [4, 3])], ["y"],
         dict(coefficients=[1., 2., 3., 4., 5., 6.], targets=2)),
    case("linear_regressor_1d", "LinearRegressor", [("x", T.FLOAT, [3])], ["y"],
         dict(coefficients=[1., 2., 3., 4., 5., 6.], targets=2)),
    case("normalizer", "Normalizer", [("x", T.FLOAT, [4, 3])], ["y"], dict(norm="L2")),
    case("one_hot_encoder", "OneHotEncoder", [("x", T.INT64, [2, 3])], ["y"], dict(cats_int64s=[0, 1, 2, 4])),
    case("normalizer_1d", "Normalizer", [("x", T.FLOAT, [3])], ["y"], dict(norm="MAX")),
    case("one_hot_encoder_strings", "OneHotEncoder", [("x", T.STRING, [4])], ["y"],
         dict(cats_strings=["monday", "Tuesday", "x"])),
    case("scaler", "Scaler", [("x", T.INT32, [4, 3])], ["y"], dict(offset=[1., 2., 3.], scale=[2., 2., 2.])),
    case("svm_classifier", "SVMClassifier", [("x", T.FLOAT, [4, 3])], ["y", "z"], SVC4),
    case("svm_regressor", "SVMRegressor", [("x", T.FLOAT, [4, 3])], ["y"],
         dict(coefficients=[1., 1.], support_vectors=[1., 2., 3., 4., 5., 6.], n_supports=2, rho=[0.1],
              kernel_type="RBF", kernel_params=[0.1, 0, 3])),
    case("tree_classifier", "TreeEnsembleClassifier", [("x", T.FLOAT, [4, 3])], ["y", "z"],
         dict(classlabels_int64s=[0, 1], **TREE_C)),
    case("tree_classifier_strings", "TreeEnsembleClassifier", [("x", T.FLOAT, [4, 3])], ["y", "z"],
         dict(classlabels_strings=["a", "b", "c"], **TREE_C)),
    case("tree_regressor", "TreeEnsembleRegressor", [("x", T.FLOAT, [4, 3])], ["y"], dict(n_targets=2, **TREE_R)),
    case("tree_ensemble_5", "TreeEnsemble", [("x", T.FLOAT, [4, 3])], ["y"],
         dict(n_targets=2, tree_roots=[0], nodes_modes=h.make_tensor("m", T.UINT8, [1], [0]), nodes_featureids=[0],
              nodes_splits=h.make_tensor("s", T.FLOAT, [1], [0.5]), nodes_truenodeids=[0], nodes_trueleafs=[1],
              nodes_falsenodeids=[1], nodes_falseleafs=[1], leaf_targetids=[0, 1],
              leaf_weights=h.make_tensor("w", T.FLOAT, [2], [1., 2.])),
         opsets=(("", 20), (ML, 5))),
    # ---- strings ----
    case("string_normalizer", "StringNormalizer", [("x", T.STRING, [4])], ["y"], domain="",
         attrs=dict(stopwords=["monday"], case_change_action="LOWER", locale="C")),
    case("string_normalizer_all_dropped", "StringNormalizer", [("x", T.STRING, [2])], ["y"], domain="",
         attrs=dict(stopwords=["monday", "tuesday"], locale="C")),
    case("string_normalizer_nostop", "StringNormalizer", [("x", T.STRING, [1, 6])], ["y"], domain="",
         attrs=dict(case_change_action="UPPER", locale="C")),
    case("tfidf_1d", "TfIdfVectorizer", [("x", T.INT32, [12])], ["y"], TFIDF, domain=""),
    case("tfidf_2d", "TfIdfVectorizer", [("x", T.INT64, [2, 6])], ["y"], TFIDF, domain=""),
    case("regex_full_match", "RegexFullMatch", [("x", T.STRING, [2, 3])], ["y"], dict(pattern="[a-z]+"), domain=""),
    case("string_concat", "StringConcat", [("x", T.STRING, [2, 3]), ("y", T.STRING, [3])], ["z"], domain=""),
    case("string_split", "StringSplit", [("x", T.STRING, [2, 2])], ["y", "z"], dict(maxsplit=2), domain=""),
    case("string_split_maxsplit0", "StringSplit", [("x", T.STRING, [2, 2])], ["y", "z"],
         dict(delimiter=",", maxsplit=0), domain=""),
    # ---- signal ----
    case("hann_window", "HannWindow", [], ["y"], domain="", inits=[i64("size", [], [10])]),
    case("hamming_window_symmetric", "HammingWindow", [], ["y"], dict(periodic=0, output_datatype=T.DOUBLE),
         domain="", inits=[i64("size", [], [10])]),
    case("blackman_window", "BlackmanWindow", [], ["y"], domain="", inits=[i64("size", [], [7])]),
    case("mel_weight_matrix", "MelWeightMatrix", [], ["y"], domain="",
         inits=[i64("bins", [], [8]), i64("dft", [], [16]), i64("rate", [], [8192]),
                h.make_tensor("lo", T.FLOAT, [], [0.0]), h.make_tensor("hi", T.FLOAT, [], [4096.0])]),
]


def node_inputs(c):
    return [n for n, _, _ in c["inputs"]] + [t.name for t in c["inits"]]


def build(c, path):
    node = h.make_node(c["op"], node_inputs(c), c["outputs"], domain=c["domain"], **c["attrs"])
    ins = [h.make_tensor_value_info(n, e, d) for n, e, d in c["inputs"]]
    outs = [h.make_value_info(o, onnx.TypeProto()) for o in c["outputs"]]
    g = h.make_graph([node], c["name"], ins, outs, initializer=c["inits"])
    m = h.make_model(g, opset_imports=[h.make_opsetid(d, v) for d, v in c["opsets"]])
    m.ir_version = 9
    onnx.save(m, path)


def feeds(c):
    out = {}
    for n, e, d in c["inputs"]:
        count = 1
        for x in d:
            count *= x
        out[n] = {"type": NP_TYPES[e], "dims": d, "data": data_for(e, count)}
    return out


def main():
    tool, ort_dir, work = sys.argv[1:4]
    return ort_compare.compare(tool, ort_dir, work, CASES, build, feeds, ORT_TYPES, "shapes vs ONNX Runtime", (28, 3), False)


if __name__ == "__main__":
    sys.exit(main())
