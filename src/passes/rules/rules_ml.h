/* rules_ml.h: the rule functions of rules_ml.c (the ai.onnx.ml operators), for
 * ops_ml.def. */
#ifndef OSH_PASSES_RULES_ML_H
#define OSH_PASSES_RULES_ML_H

#include "passes/rule_api/rule_api.h"

void infer_ml_array_feature_extractor(infer_ctx *c);
void infer_ml_binarizer(infer_ctx *c);
void infer_ml_cast_map(infer_ctx *c);
void infer_ml_category_mapper(infer_ctx *c);
void infer_ml_dict_vectorizer(infer_ctx *c);
void infer_ml_feature_vectorizer(infer_ctx *c);
void infer_ml_imputer(infer_ctx *c);
void infer_ml_label_encoder1(infer_ctx *c);
void infer_ml_label_encoder2(infer_ctx *c);
void infer_ml_label_encoder4(infer_ctx *c);
void infer_ml_linear_classifier(infer_ctx *c);
void infer_ml_linear_regressor(infer_ctx *c);
void infer_ml_normalizer(infer_ctx *c);
void infer_ml_one_hot_encoder(infer_ctx *c);
void infer_ml_svm_classifier(infer_ctx *c);
void infer_ml_svm_regressor(infer_ctx *c);
void infer_ml_scaler(infer_ctx *c);
void infer_ml_tree_ensemble_classifier(infer_ctx *c);
void infer_ml_tree_ensemble_regressor(infer_ctx *c);
/* TreeEnsembleClassifier/Regressor under ai.onnx.ml 5, where they were removed. */
void infer_ml_tree_ensemble(infer_ctx *c);
void infer_ml_zipmap(infer_ctx *c);

#endif
