/* test_rules_signal.c: the window generators, MelWeightMatrix and ImageDecoder.
 * Expected shapes from Operators.md: a window is [size] ("The output has the shape:
 * [size]"; the examples use size 10), MelWeightMatrix is
 * [floor(dft_length / 2) + 1, num_mel_bins] (example: dft_length 16, 8 bins: [9, 8]),
 * ImageDecoder is channel-last (H, W, C), C = 1 for Grayscale (RGB's 3 is the
 * spec's, but onnx's python reference keeps an RGBA image's 4: C is not expected). */
#include <criterion/criterion.h>

#include "mb.h"

#include <string.h>

static osh_model *run(mb *b)
{
	osh_model *m = mb_infer(b);
	cr_assert_not_null(m);
	return m;
}

/* `periodic` changes the values, not the length; output_datatype the type. */
Test(rules_signal, windows_from_a_known_size)
{
	static const char *ops[] = {"BlackmanWindow", "HammingWindow", "HannWindow"};
	for (size_t i = 0; i < 3; i++) {
		mb *b = mb_new(17);
		mb_init_ints(b, "size", "", (int64_t[]){10});
		mb_node(b, ops[i], "size", "w");
		mb_node(b, ops[i], "size", "symmetric");
		mb_attr_i(b, "periodic", 0);
		mb_node(b, ops[i], "size", "d");
		mb_attr_i(b, "output_datatype", DT_DOUBLE);
		mb_output(b, "w", 0, NULL);
		mb_output(b, "symmetric", 0, NULL);
		mb_output(b, "d", 0, NULL);
		osh_model *m = run(b);
		cr_expect_str_eq(mb_type(m, "w"), "FLOAT (10)", "%s", ops[i]);
		cr_expect_str_eq(mb_type(m, "symmetric"), "FLOAT (10)", "%s", ops[i]);
		cr_expect_str_eq(mb_type(m, "d"), "DOUBLE (10)", "%s", ops[i]);
		cr_expect_eq(osh_model_has_errors(m), false);
		osh_model_free(m);
	}
}

/* A size from a shape keeps its symbol; a size only known at run time is a fresh
 * symbol (rank 1 all the same). */
Test(rules_signal, window_size_symbolic_or_unknown)
{
	mb *b = mb_new(17);
	mb_input(b, "x", DT_FLOAT, "N");
	mb_input(b, "n", DT_INT32, "");
	mb_init_ints(b, "zero", "1", (int64_t[]){0});
	mb_node(b, "Shape", "x", "shp");
	mb_node(b, "Squeeze", "shp,zero", "len");
	mb_node(b, "HannWindow", "len", "w");
	mb_node(b, "HannWindow", "n", "wn");
	mb_output(b, "w", 0, NULL);
	mb_output(b, "wn", 0, NULL);
	osh_model *m = run(b);
	cr_expect_str_eq(mb_type(m, "w"), "FLOAT (N)");
	const char *wn = mb_type(m, "wn");
	cr_expect(strncmp(wn, "FLOAT (", 7) == 0 && !strchr(wn, ',') && strcmp(wn, "FLOAT (?)") &&
			  strcmp(wn, "FLOAT (rank unknown)"),
		  "wn is %s", wn);
	osh_model_free(m);
}

Test(rules_signal, window_errors)
{
	mb *b = mb_new(17);
	mb_init_ints(b, "neg", "", (int64_t[]){-1});
	mb_init_ints(b, "vec", "2", (int64_t[]){3, 4});
	mb_init_ints(b, "ten", "", (int64_t[]){10});
	mb_input(b, "f", DT_FLOAT, "");
	mb_node(b, "BlackmanWindow", "neg", "a");
	mb_node(b, "BlackmanWindow", "vec", "b");
	mb_node(b, "BlackmanWindow", "f", "c");
	mb_node(b, "BlackmanWindow", "ten", "d");
	mb_attr_i(b, "output_datatype", DT_STRING);
	mb_output(b, "a", 0, NULL);
	mb_output(b, "b", 0, NULL);
	mb_output(b, "c", 0, NULL);
	mb_output(b, "d", 0, NULL);
	osh_model *m = run(b);
	cr_expect_eq(mb_count(m, "shape-error"), 4);
	cr_expect_str_eq(mb_type(m, "a"), "FLOAT (rank unknown)");
	cr_expect_str_eq(mb_type(m, "d"), "? (10)");
	osh_model_free(m);
}

Test(rules_signal, mel_weight_matrix)
{
	mb *b = mb_new(17);
	mb_init_ints(b, "bins", "", (int64_t[]){8});
	mb_init_ints(b, "dft", "", (int64_t[]){16});
	mb_init_ints(b, "odd", "", (int64_t[]){15});
	mb_init_ints(b, "rate", "", (int64_t[]){8192});
	mb_init_floats(b, "lo", "", (float[]){0});
	mb_init_floats(b, "hi", "", (float[]){4096});
	mb_input(b, "nb", DT_INT64, "");
	mb_node(b, "MelWeightMatrix", "bins,dft,rate,lo,hi", "w");
	mb_node(b, "MelWeightMatrix", "bins,odd,rate,lo,hi", "w_odd");
	mb_attr_i(b, "output_datatype", DT_DOUBLE);
	mb_node(b, "MelWeightMatrix", "nb,dft,rate,lo,hi", "w_nb");
	mb_output(b, "w", 0, NULL);
	mb_output(b, "w_odd", 0, NULL);
	mb_output(b, "w_nb", 0, NULL);
	osh_model *m = run(b);
	cr_expect_str_eq(mb_type(m, "w"), "FLOAT (9, 8)");
	cr_expect_str_eq(mb_type(m, "w_odd"), "DOUBLE (8, 8)"); /* floor(15 / 2) + 1 */
	const char *nb = mb_type(m, "w_nb");
	cr_expect(strncmp(nb, "FLOAT (9, ", 10) == 0 && strcmp(nb, "FLOAT (9, ?)"), "w_nb is %s", nb);
	cr_expect_eq(osh_model_has_errors(m), false);
	osh_model_free(m);
}

/* "UINT8 (a, b, c)" where a, b and c are symbols (neither numbers nor "?"). */
static bool three_symbols(const char *t)
{
	char buf[256];
	if (strncmp(t, "UINT8 (", 7) || strlen(t) >= sizeof buf)
		return false;
	strcpy(buf, t + 7);
	char *end = strrchr(buf, ')');
	if (!end)
		return false;
	*end = 0;
	int n = 0;
	for (char *tok = strtok(buf, ", "); tok; tok = strtok(NULL, ", "), n++)
		if ((tok[0] >= '0' && tok[0] <= '9') || !strcmp(tok, "?"))
			return false;
	return n == 3;
}

Test(rules_signal, image_decoder)
{
	mb *b = mb_new(20);
	mb_input(b, "bytes", DT_UINT8, "L");
	mb_input(b, "bad", DT_FLOAT, "L");
	mb_node(b, "ImageDecoder", "bytes", "rgb");
	mb_node(b, "ImageDecoder", "bytes", "gray");
	mb_attr_s(b, "pixel_format", "Grayscale");
	mb_node(b, "ImageDecoder", "bytes", "bgr");
	mb_attr_s(b, "pixel_format", "BGR");
	mb_node(b, "ImageDecoder", "bytes", "rgba");
	mb_attr_s(b, "pixel_format", "RGBA");
	mb_node(b, "ImageDecoder", "bad", "f");
	mb_input(b, "two_d", DT_UINT8, "2,L");
	mb_node(b, "ImageDecoder", "two_d", "g");
	const char *outs[] = {"rgb", "gray", "bgr", "rgba", "f", "g"};
	for (size_t i = 0; i < 6; i++)
		mb_output(b, outs[i], 0, NULL);
	osh_model *m = run(b);
	const char *gray = mb_type(m, "gray");
	const char *colour[] = {mb_type(m, "rgb"), mb_type(m, "bgr")};
	for (int i = 0; i < 2; i++)
		cr_expect(three_symbols(colour[i]), "%s", colour[i]); /* rank 3, no size claimed */
	size_t n = strlen(gray);
	cr_expect(!strncmp(gray, "UINT8 (", 7) && n > 4 && !strcmp(gray + n - 4, ", 1)"), "gray is %s", gray);
	cr_expect_str_eq(mb_type(m, "rgba"), "UINT8 (rank unknown)");
	cr_expect_eq(mb_count(m, "shape-error"), 2);
	cr_expect_eq(mb_count(m, "attribute-error"), 1); /* RGBA */
	osh_model_free(m);
}
