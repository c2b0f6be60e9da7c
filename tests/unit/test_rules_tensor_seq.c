/* test_rules_tensor_seq.c: sequences and optionals. A sequence is described by what
 * all its elements share (element type; dims where they agree); an optional by the
 * value it may hold. Expected types are worked out by hand from Operators.md. */
#include <criterion/criterion.h>

#include "rule_case.h"

/* One sequence built from a (2, 3) and b, then read back every way. */
Test(rules_tensor_seq, construct_at_length_insert_erase)
{
	mb *b = mb_new(13);
	mb_input(b, "a", DT_FLOAT, "2,3");
	mb_input(b, "b", DT_FLOAT, "2,4");
	mb_input(b, "c", DT_FLOAT, "2,3");
	mb_init_ints(b, "pos", "", (int64_t[]){0});
	mb_node(b, "SequenceConstruct", "a,b", "s");
	mb_node(b, "SequenceConstruct", "a,c", "same");
	mb_node(b, "SequenceAt", "s,pos", "at");
	mb_node(b, "SequenceAt", "same,pos", "at_same");
	mb_node(b, "SequenceLength", "s", "len");
	mb_node(b, "SequenceInsert", "same,a", "ins");
	mb_node(b, "SequenceInsert", "same,b,pos", "ins_b");
	mb_node(b, "SequenceErase", "same", "erased");
	const char *outs[] = {"s", "same", "at", "at_same", "len", "ins", "ins_b", "erased"};
	for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++)
		mb_output(b, outs[i], 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "s"), "sequence FLOAT (2, ?)");
	cr_expect_str_eq(mb_type(m, "same"), "sequence FLOAT (2, 3)");
	cr_expect_str_eq(mb_type(m, "at"), "FLOAT (2, ?)");
	cr_expect_str_eq(mb_type(m, "at_same"), "FLOAT (2, 3)");
	cr_expect_str_eq(mb_type(m, "len"), "INT64 ()");
	cr_expect_str_eq(mb_type(m, "ins"), "sequence FLOAT (2, 3)");
	cr_expect_str_eq(mb_type(m, "ins_b"), "sequence FLOAT (2, ?)");
	cr_expect_str_eq(mb_type(m, "erased"), "sequence FLOAT (2, 3)");
	cr_expect_eq(osh_model_has_errors(m), false);
	osh_model_free(m);
}

Test(rules_tensor_seq, element_types_must_agree)
{
	mb *b = mb_new(13);
	mb_input(b, "a", DT_FLOAT, "2");
	mb_input(b, "i", DT_INT64, "2");
	mb_node(b, "SequenceConstruct", "a,i", "s");
	mb_node(b, "SequenceEmpty", "", "e");
	mb_attr_i(b, "dtype", DT_INT64);
	mb_node(b, "SequenceInsert", "e,i", "ei");
	mb_node(b, "SequenceInsert", "e,a", "bad");
	mb_output(b, "s", 0, NULL);
	mb_output(b, "e", 0, NULL);
	mb_output(b, "ei", 0, NULL);
	mb_output(b, "bad", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "e"), "sequence INT64 (rank unknown)");
	/* an empty sequence says nothing of its elements' shape */
	cr_expect_str_eq(mb_type(m, "ei"), "sequence INT64 (rank unknown)");
	cr_expect_eq(mb_count(m, "shape-error"), 2);
	osh_model_free(m);
}

/* ConcatFromSequence: the count of elements is a size fixed at run time. */
Test(rules_tensor_seq, concat_from_sequence)
{
	mb *b = mb_new(13);
	mb_input(b, "a", DT_FLOAT, "2,3");
	mb_node(b, "SequenceConstruct", "a,a", "s");
	mb_node(b, "ConcatFromSequence", "s", "cat");
	mb_attr_i(b, "axis", 0);
	mb_node(b, "ConcatFromSequence", "s", "stack");
	mb_attr_i(b, "axis", 0);
	mb_attr_i(b, "new_axis", 1);
	mb_node(b, "ConcatFromSequence", "s", "stack_last");
	mb_attr_i(b, "axis", -1);
	mb_attr_i(b, "new_axis", 1);
	mb_node(b, "ConcatFromSequence", "s", "bad");
	mb_attr_i(b, "axis", 2);
	mb_output(b, "cat", 0, NULL);
	mb_output(b, "stack", 0, NULL);
	mb_output(b, "stack_last", 0, NULL);
	mb_output(b, "bad", 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "cat"), "FLOAT (unk__0, 3)");
	cr_expect_str_eq(mb_type(m, "stack"), "FLOAT (unk__1, 2, 3)");
	cr_expect_str_eq(mb_type(m, "stack_last"), "FLOAT (2, 3, unk__2)");
	cr_expect_str_eq(mb_type(m, "bad"), "FLOAT (rank unknown)");
	cr_expect_eq(mb_count(m, "shape-error"), 1);
	osh_model_free(m);
}

static const rule_case split_to_sequence_cases[] = {
	{"no split keeps a 1", 11, "SplitToSequence", "x", "s", .decls = "x:FLOAT:6,4",
	 .expect = {"sequence FLOAT (1, 4)"}},
	{"no split, keepdims 0", 11, "SplitToSequence", "x", "s", .decls = "x:FLOAT:6,4",
	 .attrs = "i:axis=1|i:keepdims=0", .expect = {"sequence FLOAT (6)"}},
	{"scalar split dividing", 11, "SplitToSequence", "x,k", "s", .decls = "x:FLOAT:6,4", .ints = "k::2",
	 .expect = {"sequence FLOAT (2, 4)"}},
	{"scalar split, last smaller", 11, "SplitToSequence", "x,k", "s", .decls = "x:FLOAT:7,4", .ints = "k::2",
	 .expect = {"sequence FLOAT (?, 4)"}},
	{"equal sizes", 24, "SplitToSequence", "x,k", "s", .decls = "x:FLOAT:6,4", .ints = "k:2:3,3",
	 .expect = {"sequence FLOAT (3, 4)"}},
	{"different sizes", 11, "SplitToSequence", "x,k", "s", .decls = "x:FLOAT:6,4", .ints = "k:3:1,2,3",
	 .expect = {"sequence FLOAT (?, 4)"}},
	{"sizes do not add up", 11, "SplitToSequence", "x,k", "s", .decls = "x:FLOAT:6,4", .ints = "k:2:1,2",
	 .expect = {"sequence FLOAT (rank unknown)"}, .findings = 1},
	{"axis out of range", 11, "SplitToSequence", "x", "s", .decls = "x:FLOAT:6,4", .attrs = "i:axis=2",
	 .expect = {"sequence FLOAT (rank unknown)"}, .findings = 1},
};

Test(rules_tensor_seq, split_to_sequence) { RULE_CASES(split_to_sequence_cases); }

Test(rules_tensor_seq, optionals)
{
	mb *b = mb_new(18);
	mb_input(b, "x", DT_FLOAT, "2,N");
	mb_node(b, "Optional", "x", "o");
	mb_node(b, "OptionalHasElement", "o", "has");
	mb_node(b, "OptionalGetElement", "o", "got");
	mb_node(b, "OptionalGetElement", "x", "plain"); /* from 18 a tensor passes as it is */
	mb_node(b, "Optional", "", "none");              /* no input, no type: invalid */
	const char *outs[] = {"o", "has", "got", "plain", "none"};
	for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++)
		mb_output(b, outs[i], 0, NULL);
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "o"), "optional FLOAT (2, N)");
	cr_expect_str_eq(mb_type(m, "has"), "BOOL ()");
	cr_expect_str_eq(mb_type(m, "got"), "FLOAT (2, N)");
	cr_expect_str_eq(mb_type(m, "plain"), "FLOAT (2, N)");
	cr_expect_str_eq(mb_type(m, "none"), "unknown");
	cr_expect_eq(mb_count(m, "shape-error"), 1);
	osh_model_free(m);

	/* Before 18 OptionalGetElement takes optionals only. */
	b = mb_new(15);
	mb_input(b, "x", DT_FLOAT, "2");
	mb_node(b, "OptionalGetElement", "x", "got");
	mb_output(b, "got", 0, NULL);
	m = mb_infer(b);
	cr_assert_not_null(m);
	cr_expect_str_eq(mb_type(m, "got"), "unknown");
	cr_expect_eq(mb_count(m, "shape-error"), 1);
	osh_model_free(m);
}
