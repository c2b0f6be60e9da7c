/* test_rules_rnn.c: RNN, GRU and LSTM, one table row per one-node model (see
 * tests/support/rule_case.h). Shapes from Operators.md / Changelog.md:
 *   X (seq, batch, input)            layout 1: (batch, seq, input)
 *   W (dirs, G * hidden, input), R (dirs, G * hidden, hidden), B (dirs, 2 * G * hidden)
 *   Y (seq, dirs, batch, hidden)     layout 1: (batch, seq, dirs, hidden)
 *   Y_h, Y_c (dirs, batch, hidden)   layout 1: (batch, dirs, hidden)
 * with G = 1 (RNN), 3 (GRU), 4 (LSTM) and dirs = 2 for direction=bidirectional. The
 * layout-1 and bidirectional rows were also checked against onnx 1.12's
 * shape_inference. The schema leaves hidden_size optional and the rule reads it from
 * the weights, but ONNX Runtime's kernels require it: a row without it is also that
 * attribute-error. */
#include <criterion/criterion.h>

#include "rule_case.h"

static const rule_case rnn_cases[] = {
	{"RNN forward", 7, "RNN", "x,w,r", "y,yh", .decls = "x:5,3,4|w:1,6,4|r:1,6,6", .attrs = "i:hidden_size=6",
	 .expect = {"FLOAT (5, 1, 3, 6)", "FLOAT (1, 3, 6)"}},
	/* no hidden_size attribute: R's last dim says it */
	{"RNN hidden_size from R", 14, "RNN", "x,w,r", "y,yh", .decls = "x:5,3,4|w:1,6,4|r:1,6,6",
	 .expect = {"FLOAT (5, 1, 3, 6)", "FLOAT (1, 3, 6)"}, .diag = "attribute-error"},
	/* bidirectional + layout 1 (checked with onnx shape_inference: (5,3,2,6), (5,2,6)) */
	{"RNN bidirectional layout 1", 14, "RNN", "x,w,r", "y,yh", .decls = "x:5,3,4|w:2,6,4|r:2,6,6",
	 .attrs = "i:hidden_size=6|s:direction=bidirectional|i:layout=1",
	 .expect = {"FLOAT (5, 3, 2, 6)", "FLOAT (5, 2, 6)"}},
	{"RNN reverse, symbolic seq and batch", 22, "RNN", "x,w,r", "y,yh", .decls = "x:S,B,4|w:1,6,4|r:1,6,6",
	 .attrs = "s:direction=reverse", .expect = {"FLOAT (S, 1, B, 6)", "FLOAT (1, B, 6)"},
	 .diag = "attribute-error"},
	/* batch from sequence_lens (batch) and initial_h (dirs, batch, hidden) */
	{"RNN batch from sequence_lens", 7, "RNN", "x,w,r,,sl", "y,yh", .decls = "x:5,?,4|w:1,6,4|r:1,6,6|sl:INT32:3",
	 .expect = {"FLOAT (5, 1, 3, 6)", "FLOAT (1, 3, 6)"}, .diag = "attribute-error"},
	{"RNN batch from initial_h", 7, "RNN", "x,w,r,,,h0", "y,yh", .decls = "x:5,?,4|w:1,6,4|r:1,6,6|h0:1,3,6",
	 .expect = {"FLOAT (5, 1, 3, 6)", "FLOAT (1, 3, 6)"}, .diag = "attribute-error"},
	/* layout 1: initial_h is (batch, dirs, hidden) */
	{"RNN layout 1 batch from initial_h", 14, "RNN", "x,w,r,,,h0", "y,yh",
	 .decls = "x:?,5,4|w:2,6,4|r:2,6,6|h0:3,2,6", .attrs = "i:layout=1|s:direction=bidirectional",
	 .expect = {"FLOAT (3, 5, 2, 6)", "FLOAT (3, 2, 6)"}, .diag = "attribute-error"},
	/* only Y_h wanted: the empty first output */
	{"RNN only Y_h", 7, "RNN", "x,w,r", ",yh", .decls = "x:5,3,4|w:1,6,4|r:1,6,6",
	 .expect = {"missing", "FLOAT (1, 3, 6)"}, .diag = "attribute-error"},
	/* opset 1: Y has the same shape whatever output_sequence says */
	{"RNN-1 output_sequence", 1, "RNN", "x,w,r", "y,yh", .decls = "x:5,3,4|w:1,6,4|r:1,6,6",
	 .attrs = "i:hidden_size=6|i:output_sequence=1", .expect = {"FLOAT (5, 1, 3, 6)", "FLOAT (1, 3, 6)"}},
	{"RNN double", 14, "RNN", "x,w,r", "y,yh", .decls = "x:DOUBLE:5,3,4|w:DOUBLE:1,6,4|r:DOUBLE:1,6,6",
	 .expect = {"DOUBLE (5, 1, 3, 6)", "DOUBLE (1, 3, 6)"}, .diag = "attribute-error"},
	/* layout is opset 14's: on opset 7 it is an attribute-error of the schema, and
	 * runtimes differ, so nothing is claimed */
	{"RNN-7 with layout=1", 7, "RNN", "x,w,r", "y,yh", .decls = "x:5,3,4|w:1,6,4|r:1,6,6", .attrs = "i:layout=1",
	 .expect = {"FLOAT (rank unknown)", "FLOAT (rank unknown)"}, .diag = "attribute-error"},
	{"RNN direction disagrees with W", 7, "RNN", "x,w,r", "y,yh", .decls = "x:5,3,4|w:2,6,4|r:2,6,6",
	 .attrs = "i:hidden_size=6", .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"RNN hidden_size disagrees with R", 7, "RNN", "x,w,r", "y,yh", .decls = "x:5,3,4|w:1,6,4|r:1,6,6",
	 .attrs = "i:hidden_size=5", .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"RNN input_size disagrees", 7, "RNN", "x,w,r", "y,yh", .decls = "x:5,3,4|w:1,6,7|r:1,6,6",
	 .attrs = "i:hidden_size=6", .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"RNN X not 3-D", 7, "RNN", "x,w,r", "y,yh", .decls = "x:5,4|w:1,6,4|r:1,6,6", .attrs = "i:hidden_size=6",
	 .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	/* direction is forward, reverse or bidirectional: the schema says so */
	{"RNN bad direction", 7, "RNN", "x,w,r", "y,yh", .decls = "x:5,3,4|w:1,6,4|r:1,6,6",
	 .attrs = "s:direction=sideways", .expect = {"FLOAT (rank unknown)"}, .diag = "attribute-error"},
};

static const rule_case gru_cases[] = {
	/* W (1, 3 * 5, 4) */
	{"GRU defaults", 7, "GRU", "x,w,r", "y,yh", .decls = "x:7,2,4|w:1,15,4|r:1,15,5", .attrs = "i:hidden_size=5",
	 .expect = {"FLOAT (7, 1, 2, 5)", "FLOAT (1, 2, 5)"}},
	/* hidden_size from W alone: 15 / 3 */
	{"GRU hidden from W", 14, "GRU", "x,w,r", "y,yh", .decls = "x:7,2,4|w:1,15,4|r:*",
	 .expect = {"FLOAT (7, 1, 2, 5)", "FLOAT (1, 2, 5)"}, .diag = "attribute-error"},
	/* hidden_size from B alone: 30 / (2 * 3) */
	{"GRU hidden from B", 3, "GRU", "x,w,r,b", "y,yh", .decls = "x:7,2,4|w:*|r:*|b:2,30",
	 .attrs = "s:direction=bidirectional", .expect = {"FLOAT (7, 2, 2, 5)", "FLOAT (2, 2, 5)"},
	 .diag = "attribute-error"},
	{"GRU-1 with its 'foward' default", 1, "GRU", "x,w,r", "y,yh", .decls = "x:7,2,4|w:1,15,4|r:1,15,5",
	 .attrs = "s:direction=foward", .expect = {"FLOAT (7, 1, 2, 5)", "FLOAT (1, 2, 5)"},
	 .diag = "attribute-error"},
	{"GRU layout 1", 22, "GRU", "x,w,r", "y,yh", .decls = "x:2,7,4|w:1,15,4|r:1,15,5", .attrs = "i:layout=1",
	 .expect = {"FLOAT (2, 7, 1, 5)", "FLOAT (2, 1, 5)"}, .diag = "attribute-error"},
	{"GRU W not a multiple of 3", 7, "GRU", "x,w,r", "y,yh", .decls = "x:7,2,4|w:1,16,4|r:*",
	 .attrs = "i:hidden_size=5", .expect = {"FLOAT (rank unknown)"}, .diag = "shape-error"},
	/* a symbolic batch bound by initial_h */
	{"GRU symbolic batch bound", 7, "GRU", "x,w,r,,,h0", "y,yh", .decls = "x:7,N,4|w:1,15,4|r:1,15,5|h0:1,2,5",
	 .expect = {"FLOAT (7, 1, 2, 5)", "FLOAT (1, 2, 5)"}, .diag = "attribute-error"},
};

static const rule_case lstm_cases[] = {
	/* W (1, 4 * 5, 4) */
	{"LSTM defaults", 7, "LSTM", "x,w,r", "y,yh,yc", .decls = "x:7,2,4|w:1,20,4|r:1,20,5",
	 .attrs = "i:hidden_size=5", .expect = {"FLOAT (7, 1, 2, 5)", "FLOAT (1, 2, 5)", "FLOAT (1, 2, 5)"}},
	/* checked with onnx shape_inference: (2,7,2,5), (2,2,5), (2,2,5) */
	{"LSTM bidirectional layout 1", 14, "LSTM", "x,w,r", "y,yh,yc", .decls = "x:2,7,4|w:2,20,4|r:2,20,5",
	 .attrs = "i:hidden_size=5|i:layout=1|s:direction=bidirectional",
	 .expect = {"FLOAT (2, 7, 2, 5)", "FLOAT (2, 2, 5)", "FLOAT (2, 2, 5)"}},
	/* Y omitted: only the states */
	{"LSTM without Y", 7, "LSTM", "x,w,r", ",yh,yc", .decls = "x:7,2,4|w:1,20,4|r:1,20,5",
	 .expect = {"missing", "FLOAT (1, 2, 5)", "FLOAT (1, 2, 5)"}, .diag = "attribute-error"},
	/* hidden_size from the peepholes P (dirs, 3 * hidden) and B (dirs, 8 * hidden) */
	{"LSTM hidden from P", 7, "LSTM", "x,w,r,b,,,,p", "y,yh,yc", .decls = "x:7,2,4|w:*|r:*|b:*|p:1,15",
	 .expect = {"FLOAT (7, 1, 2, 5)", "FLOAT (1, 2, 5)", "FLOAT (1, 2, 5)"}, .diag = "attribute-error"},
	{"LSTM hidden from B", 22, "LSTM", "x,w,r,b", "y,yh,yc", .decls = "x:7,2,4|w:*|r:*|b:1,40",
	 .expect = {"FLOAT (7, 1, 2, 5)", "FLOAT (1, 2, 5)", "FLOAT (1, 2, 5)"}, .diag = "attribute-error"},
	{"LSTM initial_c disagrees", 7, "LSTM", "x,w,r,,,h0,c0", "y,yh,yc",
	 .decls = "x:7,2,4|w:1,20,4|r:1,20,5|h0:1,2,5|c0:1,3,5", .attrs = "i:hidden_size=5",
	 .expect = {"FLOAT (rank unknown)", NULL, "FLOAT (rank unknown)"}, .diag = "shape-error"},
	{"LSTM nothing known", 7, "LSTM", "x,w,r", "y,yh,yc", .decls = "x:*|w:*|r:*",
	 .expect = {"FLOAT (?, 1, ?, ?)", "FLOAT (1, ?, ?)", "FLOAT (1, ?, ?)"}, .diag = "attribute-error"},
};

Test(rules_rnn, rnn) { RULE_CASES(rnn_cases); }
Test(rules_rnn, gru) { RULE_CASES(gru_cases); }
Test(rules_rnn, lstm) { RULE_CASES(lstm_cases); }
