/* test_rules_nms.c: NonMaxSuppression, one table row per one-node model (see
 * tests/support/rule_case.h).
 *
 * From Operators.md: boxes (B, S, 4), scores (B, C, S) give
 * selected_indices (num_selected, 3) INT64, num_selected data-dependent (a fresh
 * symbol, printed "unk__K"), 0 when max_output_boxes_per_class is 0 or absent ("Default
 * to 0, which means no output").
 */
#include <criterion/criterion.h>

#include "rule_case.h"

static const rule_case nms_cases[] = {
	{"data-dependent count", 11, "NonMaxSuppression", "b,s,m", "y", .decls = "b:1,6,4|s:1,1,6|m:INT64:1",
	 .expect = {"INT64 (unk__0, 3)"}},
	{"opset 10, count given", 10, "NonMaxSuppression", "b,s,m", "y", .decls = "b:2,6,4|s:2,3,6", .ints = "m:1:3",
	 .expect = {"INT64 (unk__0, 3)"}},
	{"max_output_boxes_per_class absent", 11, "NonMaxSuppression", "b,s", "y", .decls = "b:1,6,4|s:1,1,6",
	 .expect = {"INT64 (0, 3)"}},
	{"max_output_boxes_per_class 0", 11, "NonMaxSuppression", "b,s,m", "y", .decls = "b:1,6,4|s:1,1,6",
	 .ints = "m::0", .expect = {"INT64 (0, 3)"}},
	{"no classes", 11, "NonMaxSuppression", "b,s,m", "y", .decls = "b:1,6,4|s:1,0,6", .ints = "m::5",
	 .expect = {"INT64 (0, 3)"}},
	{"boxes not 4 wide", 11, "NonMaxSuppression", "b,s,m", "y", .decls = "b:1,6,5|s:1,1,6|m:INT64:1",
	 .expect = {"INT64 (rank unknown)"}, .diag = "shape-error"},
	{"boxes and scores disagree", 11, "NonMaxSuppression", "b,s,m", "y", .decls = "b:1,6,4|s:1,1,7|m:INT64:1",
	 .expect = {"INT64 (rank unknown)"}, .diag = "shape-error"},
};

Test(rules_nms, non_max_suppression) { RULE_CASES(nms_cases); }

/* Every input known (initializers here; --input-data in practice): the selection is
 * run. Boxes and expected counts are Operators.md's NonMaxSuppression examples
 * (suppress_by_IOU selects boxes 3, 0, 5; with score_threshold 0.4, boxes 3 and 0;
 * center_point_box the same boxes as centres); where the spec leaves the outcome
 * open, the count stays a symbol. */
#define CORNERS "b:1,6,4:0,0,1,1,0,0.1,1,1.1,0,-0.1,1,0.9,0,10,1,11,0,10.1,1,11.1,0,100,1,101"
#define CENTRES "b:1,6,4:0.5,0.5,1,1,0.5,0.6,1,1,0.5,0.4,1,1,0.5,10.5,1,1,0.5,10.6,1,1,0.5,100.5,1,1"
#define SCORES "s:1,1,6:0.9,0.75,0.6,0.95,0.5,0.3"
static const rule_case nms_value_cases[] = {
	{"suppress by IoU", 11, "NonMaxSuppression", "b,s,m,i,t", "y", .ints = "m::3",
	 .floats = CORNERS "|" SCORES "|i::0.5|t::0", .expect = {"INT64 (3, 3)"}},
	{"max_output_boxes_per_class caps it", 11, "NonMaxSuppression", "b,s,m,i,t", "y", .ints = "m::2",
	 .floats = CORNERS "|" SCORES "|i::0.5|t::0", .expect = {"INT64 (2, 3)"}},
	{"score threshold", 11, "NonMaxSuppression", "b,s,m,i,t", "y", .ints = "m::3",
	 .floats = CORNERS "|" SCORES "|i::0.5|t::0.4", .expect = {"INT64 (2, 3)"}},
	{"centre-point boxes", 11, "NonMaxSuppression", "b,s,m,i,t", "y", .ints = "m::3",
	 .floats = CENTRES "|" SCORES "|i::0.5|t::0", .attrs = "i:center_point_box=1", .expect = {"INT64 (3, 3)"}},
	{"no iou_threshold: any overlap suppresses", 11, "NonMaxSuppression", "b,s,m", "y", .ints = "m::6",
	 .floats = CORNERS "|" SCORES, .expect = {"INT64 (3, 3)"}},
	{"equal scores on different boxes: open", 11, "NonMaxSuppression", "b,s,m,i", "y", .ints = "m::3",
	 .floats = CORNERS "|s:1,1,6:0.5,0.5,0.5,0.5,0.5,0.5|i::0.5", .expect = {"INT64 (unk__0, 3)"}},
	{"a score at the threshold: open", 11, "NonMaxSuppression", "b,s,m,i,t", "y", .ints = "m::3",
	 .floats = CORNERS "|" SCORES "|i::0.5|t::0.75", .expect = {"INT64 (unk__0, 3)"}},
};

Test(rules_nms, count_from_known_content) { RULE_CASES(nms_value_cases); }
