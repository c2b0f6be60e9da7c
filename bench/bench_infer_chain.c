/* bench_infer_chain.c: inference time per node on chains of broadcasting nodes.
 *
 * Builds, in memory, chains of 1,000 / 10,000 / 100,000 (and, with an argument, more)
 * nodes: x (N, 64) flows through Add with a (64,) bias, Mul with a (1, 64) scale,
 * Sub with a scalar, Relu..., each node broadcasting; then times load + infer (best
 * of 3 runs) and prints the time per node. Linear inference means a flat column.
 * Not a test: it prints figures, it does not judge them.
 *
 * usage: bench_infer_chain [max_nodes]
 */
#define _POSIX_C_SOURCE 200809L
#include "mb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *ops[] = {"Add", "Mul", "Sub", "Relu"};
static const char *consts[] = {"bias", "scale", "shift", NULL};

static double run(int nodes, int *unknown)
{
	double best = 1e30;
	for (int rep = 0; rep < 3; rep++) {
		mb *b = mb_new(13);
		mb_input(b, "x", DT_FLOAT, "N,64");
		mb_init(b, "bias", DT_FLOAT, "64");
		mb_init(b, "scale", DT_FLOAT, "1,64");
		mb_init(b, "shift", DT_FLOAT, "");
		char in[32] = "x", out[32], args[80];
		for (int i = 0; i < nodes; i++) {
			snprintf(out, sizeof out, "v%d", i);
			const char *c = consts[i % 4];
			if (c)
				snprintf(args, sizeof args, "%s,%s", in, c);
			else
				snprintf(args, sizeof args, "%s", in);
			mb_node(b, ops[i % 4], args, out);
			strcpy(in, out);
		}
		mb_output(b, in, 0, NULL);
		double t0 = now();
		osh_model *m = mb_infer(b); /* packs (untimed below), loads and infers */
		double t = now() - t0;
		if (!m) {
			fprintf(stderr, "inference failed\n");
			exit(1);
		}
		*unknown = mb_count(m, "unknown-op");
		osh_model_free(m);
		if (t < best)
			best = t;
	}
	return best;
}

int main(int argc, char **argv)
{
	int max = argc > 1 ? atoi(argv[1]) : 100000;
	printf("%10s %12s %14s %10s\n", "nodes", "seconds", "us per node", "unknown");
	for (int n = 1000; n <= max; n *= 10) {
		int unknown = 0;
		double t = run(n, &unknown);
		printf("%10d %12.4f %14.3f %10d\n", n, t, t * 1e6 / n, unknown);
	}
	return 0;
}
