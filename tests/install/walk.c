/* walk.c: a program built against the installed library (install_test.sh), through
 * pkg-config and through find_package: loads a model, infers, and prints every graph,
 * value and node with the walk API. Public header only, as any user's program.
 *
 * It also has functions of its own named as the library's internals are (arena_new,
 * from src/core/arena.c, and onnx__model_proto__unpack, which the library's
 * protobuf-c code for the ONNX schema defines): linked against libonnxshape.a it must
 * still link (no duplicate definition), and against either library the library must
 * keep calling its own. Ours count their calls; the last line says "ok" only when the
 * library made none.
 *
 * usage: walk MODEL
 */
#include <onnxshape.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

static int calls;

void *arena_new(uint64_t budget);
void *arena_new(uint64_t budget)
{
	calls++;
	return budget ? NULL : &calls;
}

void *onnx__model_proto__unpack(void *allocator, size_t len, const uint8_t *data);
void *onnx__model_proto__unpack(void *allocator, size_t len, const uint8_t *data)
{
	(void)allocator, (void)len, (void)data;
	calls++;
	return NULL;
}

static const char *const origins[] = {"undefined", "input", "initializer", "node", "outer"};

static void print_dim(const osh_dim *d)
{
	switch (d->kind) {
	case OSH_DIM_VALUE: printf("%" PRId64, d->value); break;
	case OSH_DIM_SYMBOL: printf("%s", d->symbol); break;
	default: printf("?");
	}
}

static void print_type(const osh_type *t)
{
	const char *elem = osh_elem_type_name(t->elem_type);
	printf("%s %s (", t->kind[0] ? t->kind : "?", elem ? elem : "?");
	if (t->rank < 0)
		printf("rank ?");
	for (int32_t k = 0; k < t->rank; k++) {
		printf(k ? ", " : "");
		print_dim(&t->dims[k]);
	}
	printf(")");
}

static int walk(osh_model *m)
{
	for (size_t g = 0; g < osh_model_graph_count(m); g++) {
		printf("graph %zu '%s'\n", g, osh_graph_path(m, g));
		for (size_t i = 0; i < osh_graph_value_count(m, g); i++) {
			osh_value_info v;
			if (!osh_graph_value_at(m, g, i, &v))
				return 1;
			printf("  value %s: %s%s, ", v.name, origins[v.origin], v.is_graph_output ? " output" : "");
			print_type(&v.type);
			printf("\n");
		}
		for (size_t i = 0; i < osh_graph_node_count(m, g); i++) {
			osh_node_info n;
			if (!osh_graph_node_at(m, g, i, &n))
				return 1;
			printf("  node %zu %s%s%s '%s':", i, n.domain, n.domain[0] ? "." : "", n.op_type, n.name);
			for (size_t k = 0; k < n.n_inputs; k++)
				printf(" %s", n.inputs[k][0] ? n.inputs[k] : "(none)");
			printf(" ->");
			for (size_t k = 0; k < n.n_outputs; k++)
				printf(" %s", n.outputs[k]);
			for (size_t k = 0; k < n.n_subgraphs; k++)
				printf(" [graph %zu]", n.subgraphs[k]);
			printf("\n");
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: walk MODEL\n");
		return 2;
	}
	osh_model *m;
	osh_error err;
	/* The options as a client initialises them: the version first (NULL would do). */
	osh_load_options lo = OSH_LOAD_OPTIONS_INIT;
	if (osh_model_load(&m, argv[1], &lo, &err) != OSH_OK) {
		fprintf(stderr, "%s\n", err.message);
		return 2;
	}
	int rc = osh_infer(m, NULL, &err) == OSH_OK ? walk(m) : (fprintf(stderr, "%s\n", err.message), 2);
	osh_model_free(m);
	int by_library = calls;
	/* The program's own functions are the ones it calls. */
	if (arena_new(0) != &calls || onnx__model_proto__unpack(NULL, 0, NULL) || calls != by_library + 2)
		rc = 1;
	printf("%s\n", rc ? "failed" : by_library ? "the library called the program's functions" : "ok");
	return rc || by_library;
}
