/* test_rules_loss.c: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss, one table
 * row per one-node model (see tests/support/rule_case.h). From Operators.md: input/scores
 * (N, C, d1..dk), target/labels (N, d1..dk), weight (C); the loss is (N, d1..dk) with
 * reduction "none", a scalar with "sum" and "mean" (the default); log_prob has the
 * scores' shape. ignore_index never changes a shape. The "none" and "sum" rows of
 * both operators were also checked against onnx 1.12's shape_inference. */
#include <criterion/criterion.h>

#include "rule_case.h"

static const rule_case nll_cases[] = {
	{"NC, mean by default", 12, "NegativeLogLikelihoodLoss", "x,t", "l", .decls = "x:3,5|t:INT64:3",
	 .expect = {"FLOAT ()"}},
	{"NC none", 13, "NegativeLogLikelihoodLoss", "x,t", "l", .decls = "x:3,5|t:INT64:3",
	 .attrs = "s:reduction=none", .expect = {"FLOAT (3)"}},
	/* K-dimensional: (N, C, d1, d2) -> (N, d1, d2) */
	{"NCd1d2 none", 13, "NegativeLogLikelihoodLoss", "x,t", "l", .decls = "x:2,3,4,5|t:INT64:2,4,5",
	 .attrs = "s:reduction=none", .expect = {"FLOAT (2, 4, 5)"}},
	{"NCd1d2 sum with weight", 13, "NegativeLogLikelihoodLoss", "x,t,w", "l",
	 .decls = "x:2,3,4,5|t:INT64:2,4,5|w:3", .attrs = "s:reduction=sum", .expect = {"FLOAT ()"}},
	/* ignore_index is about values only */
	{"ignore_index present", 22, "NegativeLogLikelihoodLoss", "x,t", "l", .decls = "x:2,3,4|t:INT32:2,4",
	 .attrs = "s:reduction=none|i:ignore_index=-1", .expect = {"FLOAT (2, 4)"}},
	/* the target's dims fill in what the input does not know, and the other way round */
	{"dims from both inputs", 13, "NegativeLogLikelihoodLoss", "x,t", "l", .decls = "x:N,3,?,5|t:INT64:?,4,?",
	 .attrs = "s:reduction=none", .expect = {"FLOAT (N, 4, 5)"}},
	{"input rank unknown", 13, "NegativeLogLikelihoodLoss", "x,t", "l", .decls = "x:*|t:INT64:2,4",
	 .attrs = "s:reduction=none", .expect = {"FLOAT (2, 4)"}},
	{"rank unknown, reduced", 13, "NegativeLogLikelihoodLoss", "x,t", "l", .decls = "x:*|t:INT64:*",
	 .expect = {"FLOAT ()"}},
	{"double", 13, "NegativeLogLikelihoodLoss", "x,t", "l", .decls = "x:DOUBLE:2,3|t:INT64:2",
	 .attrs = "s:reduction=none", .expect = {"DOUBLE (2)"}},
	{"target rank wrong", 13, "NegativeLogLikelihoodLoss", "x,t", "l", .decls = "x:2,3,4|t:INT64:2",
	 .attrs = "s:reduction=none", .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"target dim disagrees", 13, "NegativeLogLikelihoodLoss", "x,t", "l", .decls = "x:2,3,4|t:INT64:2,5",
	 .attrs = "s:reduction=none", .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	/* ONNX Runtime does not check the weights' count: the spec's complaint. */
	{"weight is not (C)", 13, "NegativeLogLikelihoodLoss", "x,t,w", "l", .decls = "x:2,3,4|t:INT64:2,4|w:4",
	 .expect = {"FLOAT ()"}, .diag = "not-in-spec"},
	{"weight is not 1-D", 13, "NegativeLogLikelihoodLoss", "x,t,w", "l", .decls = "x:2,3,4|t:INT64:2,4|w:3,1",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"input of rank 1", 13, "NegativeLogLikelihoodLoss", "x,t", "l", .decls = "x:3|t:INT64:*",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	/* Not one the spec lists: ONNX Runtime reduces for anything but "none". */
	{"undocumented reduction", 13, "NegativeLogLikelihoodLoss", "x,t", "l", .decls = "x:2,3|t:INT64:2",
	 .attrs = "s:reduction=max", .expect = {"FLOAT ()"}},
};

Test(rules_loss, nll) { RULE_CASES(nll_cases); }

static const rule_case sce_cases[] = {
	/* onnx shape_inference: (2, 4) and (2, 3, 4) */
	{"NCd1 none with log_prob", 13, "SoftmaxCrossEntropyLoss", "x,t", "l,lp", .decls = "x:2,3,4|t:INT64:2,4",
	 .attrs = "s:reduction=none|i:ignore_index=-1", .expect = {"FLOAT (2, 4)", "FLOAT (2, 3, 4)"}},
	/* onnx shape_inference: () and (2, 3) */
	{"NC sum with log_prob", 12, "SoftmaxCrossEntropyLoss", "x,t", "l,lp", .decls = "x:2,3|t:INT32:2",
	 .attrs = "s:reduction=sum", .expect = {"FLOAT ()", "FLOAT (2, 3)"}},
	{"mean by default, weights", 13, "SoftmaxCrossEntropyLoss", "x,t,w", "l,lp",
	 .decls = "x:3,5,6,6,5|t:INT64:3,6,6,5|w:5", .expect = {"FLOAT ()", "FLOAT (3, 5, 6, 6, 5)"}},
	{"no log_prob", 13, "SoftmaxCrossEntropyLoss", "x,t", "l", .decls = "x:N,3,4|t:INT64:N,4",
	 .attrs = "s:reduction=none", .expect = {"FLOAT (N, 4)"}},
	{"log_prob with unknown labels", 13, "SoftmaxCrossEntropyLoss", "x,t", "l,lp", .decls = "x:2,3,4|t:INT64:*",
	 .attrs = "s:reduction=none", .expect = {"FLOAT (2, 4)", "FLOAT (2, 3, 4)"}},
	{"labels disagree", 13, "SoftmaxCrossEntropyLoss", "x,t", "l,lp", .decls = "x:2,3,4|t:INT64:3,4",
	 .attrs = "s:reduction=none", .expect = {"FLOAT (rank unknown)", "FLOAT (rank unknown)"},
	 .diag = "shape-error"},
};

Test(rules_loss, softmax_cross_entropy) { RULE_CASES(sce_cases); }
