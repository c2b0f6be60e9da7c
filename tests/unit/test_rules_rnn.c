/* test_rules_rnn.c: RNN, GRU and LSTM, one table row per one-node model (see
 * test_rules_nn_case.h). Shapes from Operators.md / Changelog.md:
 *   X (seq, batch, input)            layout 1: (batch, seq, input)
 *   W (dirs, G * hidden, input), R (dirs, G * hidden, hidden), B (dirs, 2 * G * hidden)
 *   Y (seq, dirs, batch, hidden)     layout 1: (batch, seq, dirs, hidden)
 *   Y_h, Y_c (dirs, batch, hidden)   layout 1: (batch, dirs, hidden)
 * with G = 1 (RNN), 3 (GRU), 4 (LSTM) and dirs = 2 for direction=bidirectional. The
 * layout-1 and bidirectional rows were also checked against onnx 1.12's
 * shape_inference. */
#include "test_rules_nn_case.h"

/* A row plus the third output (LSTM's Y_c). */
typedef struct rnn_case {
	nn_case k;
	const char *expect3;
} rnn_case;

static void rnn_check_all(const rnn_case *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const nn_case *k = &rows[i].k;
		/* The schema leaves hidden_size optional and the rule reads it from the
		 * weights, but ONNX Runtime's kernels require it: a row without it is also
		 * that attribute-error. */
		nn_case without = *k;
		if (!k->diag && (!k->attrs || !strstr(k->attrs, "hidden_size")))
			without.diag = "attribute-error";
		nn_check(&without);
		if (!rows[i].expect3)
			continue;
		osh_model *m = nn_build(k);
		char names[256], *f[4];
		int nf = nn_split(k->outputs, ',', names, sizeof names, f, 4);
		cr_assert_eq(nf, 3, "%s: three outputs expected", k->what);
		cr_expect_str_eq(mb_type(m, f[2]), rows[i].expect3, "%s (%s-%lld): third output", k->what, k->op,
				 (long long)k->opset);
		osh_model_free(m);
	}
}

static const rnn_case rnn_cases[] = {
	{.k = {"RNN forward", 7, "RNN", "x,w,r", "x:5,3,4|w:1,6,4|r:1,6,6", .attrs = "i:hidden_size=6", .outputs = "y,yh",
	  .expect = "FLOAT (5, 1, 3, 6)", .expect2 = "FLOAT (1, 3, 6)"}},
	/* no hidden_size attribute: R's last dim says it */
	{.k = {"RNN hidden_size from R", 14, "RNN", "x,w,r", "x:5,3,4|w:1,6,4|r:1,6,6", .outputs = "y,yh",
	  .expect = "FLOAT (5, 1, 3, 6)", .expect2 = "FLOAT (1, 3, 6)"}},
	/* bidirectional + layout 1 (checked with onnx shape_inference: (5,3,2,6), (5,2,6)) */
	{.k = {"RNN bidirectional layout 1", 14, "RNN", "x,w,r", "x:5,3,4|w:2,6,4|r:2,6,6",
	  .attrs = "i:hidden_size=6|s:direction=bidirectional|i:layout=1", .outputs = "y,yh",
	  .expect = "FLOAT (5, 3, 2, 6)", .expect2 = "FLOAT (5, 2, 6)"}},
	{.k = {"RNN reverse, symbolic seq and batch", 22, "RNN", "x,w,r", "x:S,B,4|w:1,6,4|r:1,6,6",
	  .attrs = "s:direction=reverse", .outputs = "y,yh", .expect = "FLOAT (S, 1, B, 6)",
	  .expect2 = "FLOAT (1, B, 6)"}},
	/* batch from sequence_lens (batch) and initial_h (dirs, batch, hidden) */
	{.k = {"RNN batch from sequence_lens", 7, "RNN", "x,w,r,,sl", "x:5,?,4|w:1,6,4|r:1,6,6|sl:INT32:3",
	  .outputs = "y,yh", .expect = "FLOAT (5, 1, 3, 6)", .expect2 = "FLOAT (1, 3, 6)"}},
	{.k = {"RNN batch from initial_h", 7, "RNN", "x,w,r,,,h0", "x:5,?,4|w:1,6,4|r:1,6,6|h0:1,3,6", .outputs = "y,yh",
	  .expect = "FLOAT (5, 1, 3, 6)", .expect2 = "FLOAT (1, 3, 6)"}},
	/* layout 1: initial_h is (batch, dirs, hidden) */
	{.k = {"RNN layout 1 batch from initial_h", 14, "RNN", "x,w,r,,,h0", "x:?,5,4|w:2,6,4|r:2,6,6|h0:3,2,6",
	  .attrs = "i:layout=1|s:direction=bidirectional", .outputs = "y,yh", .expect = "FLOAT (3, 5, 2, 6)",
	  .expect2 = "FLOAT (3, 2, 6)"}},
	/* only Y_h wanted: the empty first output */
	{.k = {"RNN only Y_h", 7, "RNN", "x,w,r", "x:5,3,4|w:1,6,4|r:1,6,6", .outputs = ",yh",
	  .expect = "missing", .expect2 = "FLOAT (1, 3, 6)"}},
	/* opset 1: Y has the same shape whatever output_sequence says */
	{.k = {"RNN-1 output_sequence", 1, "RNN", "x,w,r", "x:5,3,4|w:1,6,4|r:1,6,6",
	  .attrs = "i:hidden_size=6|i:output_sequence=1", .outputs = "y,yh", .expect = "FLOAT (5, 1, 3, 6)",
	  .expect2 = "FLOAT (1, 3, 6)"}},
	{.k = {"RNN double", 14, "RNN", "x,w,r", "x:DOUBLE:5,3,4|w:DOUBLE:1,6,4|r:DOUBLE:1,6,6", .outputs = "y,yh",
	  .expect = "DOUBLE (5, 1, 3, 6)", .expect2 = "DOUBLE (1, 3, 6)"}},
	/* layout is opset 14's: on opset 7 it is an attribute-error of the schema, and
	 * runtimes differ, so nothing is claimed */
	{.k = {"RNN-7 with layout=1", 7, "RNN", "x,w,r", "x:5,3,4|w:1,6,4|r:1,6,6", .attrs = "i:layout=1", .outputs = "y,yh",
	  .expect = "FLOAT (rank unknown)", .expect2 = "FLOAT (rank unknown)", .diag = "attribute-error"}},
	{.k = {"RNN direction disagrees with W", 7, "RNN", "x,w,r", "x:5,3,4|w:2,6,4|r:2,6,6", .attrs = "i:hidden_size=6", .outputs = "y,yh",
	  .expect = "FLOAT (rank unknown)", .diag = "shape-error"}},
	{.k = {"RNN hidden_size disagrees with R", 7, "RNN", "x,w,r", "x:5,3,4|w:1,6,4|r:1,6,6", .attrs = "i:hidden_size=5",
	  .outputs = "y,yh", .expect = "FLOAT (rank unknown)", .diag = "shape-error"}},
	{.k = {"RNN input_size disagrees", 7, "RNN", "x,w,r", "x:5,3,4|w:1,6,7|r:1,6,6", .attrs = "i:hidden_size=6", .outputs = "y,yh",
	  .expect = "FLOAT (rank unknown)", .diag = "shape-error"}},
	{.k = {"RNN X not 3-D", 7, "RNN", "x,w,r", "x:5,4|w:1,6,4|r:1,6,6", .attrs = "i:hidden_size=6", .outputs = "y,yh",
	  .expect = "FLOAT (rank unknown)", .diag = "shape-error"}},
	/* direction is forward, reverse or bidirectional: the schema says so */
	{.k = {"RNN bad direction", 7, "RNN", "x,w,r", "x:5,3,4|w:1,6,4|r:1,6,6", .attrs = "s:direction=sideways",
	  .outputs = "y,yh", .expect = "FLOAT (rank unknown)", .diag = "attribute-error"}},
};

static const rnn_case gru_cases[] = {
	/* W (1, 3 * 5, 4) */
	{.k = {"GRU defaults", 7, "GRU", "x,w,r", "x:7,2,4|w:1,15,4|r:1,15,5", .attrs = "i:hidden_size=5",
	  .outputs = "y,yh", .expect = "FLOAT (7, 1, 2, 5)", .expect2 = "FLOAT (1, 2, 5)"}},
	/* hidden_size from W alone: 15 / 3 */
	{.k = {"GRU hidden from W", 14, "GRU", "x,w,r", "x:7,2,4|w:1,15,4|r:*", .outputs = "y,yh",
	  .expect = "FLOAT (7, 1, 2, 5)", .expect2 = "FLOAT (1, 2, 5)"}},
	/* hidden_size from B alone: 30 / (2 * 3) */
	{.k = {"GRU hidden from B", 3, "GRU", "x,w,r,b", "x:7,2,4|w:*|r:*|b:2,30", .attrs = "s:direction=bidirectional",
	  .outputs = "y,yh", .expect = "FLOAT (7, 2, 2, 5)", .expect2 = "FLOAT (2, 2, 5)"}},
	{.k = {"GRU-1 with its 'foward' default", 1, "GRU", "x,w,r", "x:7,2,4|w:1,15,4|r:1,15,5",
	  .attrs = "s:direction=foward", .outputs = "y,yh", .expect = "FLOAT (7, 1, 2, 5)",
	  .expect2 = "FLOAT (1, 2, 5)"}},
	{.k = {"GRU layout 1", 22, "GRU", "x,w,r", "x:2,7,4|w:1,15,4|r:1,15,5", .attrs = "i:layout=1", .outputs = "y,yh",
	  .expect = "FLOAT (2, 7, 1, 5)", .expect2 = "FLOAT (2, 1, 5)"}},
	{.k = {"GRU W not a multiple of 3", 7, "GRU", "x,w,r", "x:7,2,4|w:1,16,4|r:*", .attrs = "i:hidden_size=5", .outputs = "y,yh",
	  .expect = "FLOAT (rank unknown)", .diag = "shape-error"}},
	/* a symbolic batch bound by initial_h */
	{.k = {"GRU symbolic batch bound", 7, "GRU", "x,w,r,,,h0", "x:7,N,4|w:1,15,4|r:1,15,5|h0:1,2,5", .outputs = "y,yh",
	  .expect = "FLOAT (7, 1, 2, 5)", .expect2 = "FLOAT (1, 2, 5)"}},
};

static const rnn_case lstm_cases[] = {
	/* W (1, 4 * 5, 4) */
	{.k = {"LSTM defaults", 7, "LSTM", "x,w,r", "x:7,2,4|w:1,20,4|r:1,20,5", .attrs = "i:hidden_size=5",
	  .outputs = "y,yh,yc", .expect = "FLOAT (7, 1, 2, 5)", .expect2 = "FLOAT (1, 2, 5)"},
	 .expect3 = "FLOAT (1, 2, 5)"},
	/* checked with onnx shape_inference: (2,7,2,5), (2,2,5), (2,2,5) */
	{.k = {"LSTM bidirectional layout 1", 14, "LSTM", "x,w,r", "x:2,7,4|w:2,20,4|r:2,20,5",
	  .attrs = "i:hidden_size=5|i:layout=1|s:direction=bidirectional", .outputs = "y,yh,yc",
	  .expect = "FLOAT (2, 7, 2, 5)", .expect2 = "FLOAT (2, 2, 5)"},
	 .expect3 = "FLOAT (2, 2, 5)"},
	/* Y omitted: only the states */
	{.k = {"LSTM without Y", 7, "LSTM", "x,w,r", "x:7,2,4|w:1,20,4|r:1,20,5", .outputs = ",yh,yc", .expect = "missing",
	  .expect2 = "FLOAT (1, 2, 5)"},
	 .expect3 = "FLOAT (1, 2, 5)"},
	/* hidden_size from the peepholes P (dirs, 3 * hidden) and B (dirs, 8 * hidden) */
	{.k = {"LSTM hidden from P", 7, "LSTM", "x,w,r,b,,,,p", "x:7,2,4|w:*|r:*|b:*|p:1,15", .outputs = "y,yh,yc",
	  .expect = "FLOAT (7, 1, 2, 5)", .expect2 = "FLOAT (1, 2, 5)"},
	 .expect3 = "FLOAT (1, 2, 5)"},
	{.k = {"LSTM hidden from B", 22, "LSTM", "x,w,r,b", "x:7,2,4|w:*|r:*|b:1,40", .outputs = "y,yh,yc",
	  .expect = "FLOAT (7, 1, 2, 5)", .expect2 = "FLOAT (1, 2, 5)"},
	 .expect3 = "FLOAT (1, 2, 5)"},
	{.k = {"LSTM initial_c disagrees", 7, "LSTM", "x,w,r,,,h0,c0", "x:7,2,4|w:1,20,4|r:1,20,5|h0:1,2,5|c0:1,3,5",
	  .attrs = "i:hidden_size=5", .outputs = "y,yh,yc", .expect = "FLOAT (rank unknown)", .diag = "shape-error"},
	 .expect3 = "FLOAT (rank unknown)"},
	{.k = {"LSTM nothing known", 7, "LSTM", "x,w,r", "x:*|w:*|r:*", .outputs = "y,yh,yc",
	  .expect = "FLOAT (?, 1, ?, ?)", .expect2 = "FLOAT (1, ?, ?)"},
	 .expect3 = "FLOAT (1, ?, ?)"},
};

Test(rules_rnn, rnn) { rnn_check_all(rnn_cases, sizeof rnn_cases / sizeof rnn_cases[0]); }
Test(rules_rnn, gru) { rnn_check_all(gru_cases, sizeof gru_cases / sizeof gru_cases[0]); }
Test(rules_rnn, lstm) { rnn_check_all(lstm_cases, sizeof lstm_cases / sizeof lstm_cases[0]); }
