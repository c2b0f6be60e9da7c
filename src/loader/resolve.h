/* resolve.h: the value each node input of a graph names, found without changing
 * anything, for a range of the graph's nodes: index.c (resolve_inputs) finds a big
 * graph's on two threads, and then, on its own, settles the names the graph does
 * not define and notes the consumers, in node order.
 */
#ifndef OSH_LOADER_RESOLVE_H
#define OSH_LOADER_RESOLVE_H

#include "core/model.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

/* An input whose name is not in the graph's value map: an outer scope's, or
 * nobody's; index.c decides which. */
#define RESOLVE_LATER INT32_MIN

/* Sets nodes[lo, hi)'s inputs from their names: each its value id, -1 for "",
 * RESOLVE_LATER when g's map does not hold the name; the nodes with done[ni] set
 * (done may be NULL) are skipped, their inputs set already. Reads everything else
 * only, so two ranges may be resolved at once. False when a name could not be read
 * (decode_node read them all before: it cannot happen). */
bool resolve_range(const osh_model *m, graph *g, const uint8_t *done, int32_t lo, int32_t hi);

/* Input k of node ni's name. */
bool resolve_input_name(const osh_model *m, const graph *g, int32_t ni, int32_t k, const char **name,
			size_t *len);

/* A graph's nodes resolved by two threads, a stretch of RESOLVE_CHUNK nodes
 * (core/tuning.h) at a time: the caller's from the front, in node order, a thread of
 * the job's own from the back, until they meet. Which does more is decided as they
 * go: the second core is sometimes busy with other work (a writer's copy), and a
 * fixed share would have one thread wait for the other. */

typedef struct resolve_job {
	const osh_model *m;
	graph *g;
	const uint8_t *done; /* resolve_range's */
	pthread_mutex_t mu;
	int32_t front, back; /* [0, front) taken by the caller, [back, nnodes) by the thread */
	bool ok;
	pthread_t thread;
} resolve_job;

/* Starts resolving g's nodes from the back on another thread; false when no thread
 * could be started (nothing was done, j needs no join). */
bool resolve_job_start(resolve_job *j, const osh_model *m, graph *g, const uint8_t *done);
/* The caller's next stretch [*lo, *hi), from the front; false when the two met. */
bool resolve_job_take(resolve_job *j, int32_t *lo, int32_t *hi);
/* Waits for the thread: false when a range it resolved failed. */
bool resolve_job_join(resolve_job *j);

#endif
