/* resolve.c: see resolve.h.
 *
 * Invariant: nothing here writes but the inputs arrays of the nodes in the range it
 * was given; the value map, the value table and the node table are only read, and
 * nobody writes them while a range is being resolved (index.c).
 */
#include "loader/resolve.h"
#include "core/quiet_thread.h"
#include "core/tuning.h"
#include "loader/decode_node.h"

#include <string.h>

static const char *str(const char *s) { return s ? s : ""; }

/* Whether stored is the len (> 0) bytes at name. The first bytes are compared here:
 * most guesses that miss (resolve_input) differ there, without a call. */
static bool name_is(const char *stored, const char *name, size_t len)
{
	return stored && stored[0] == name[0] && !strncmp(stored, name, len) && stored[len] == '\0';
}

/* The value id of input name (len bytes, not terminated, with strmap_hash `hash`)
 * of node ni of g: -1 for "", RESOLVE_LATER when g's map does not hold it.
 * *next_init: the value after the initializer an input named last, a guess at the
 * next one. */
static int32_t resolve_input(const graph *g, int32_t ni, const char *name, size_t len, uint32_t hash,
			     int32_t *next_init)
{
	if (!len)
		return -1;
	/* Exporters list the weights in the order the layers use them: the next
	 * initializer is a better guess than a hash probe, which misses the cache on
	 * a big model (two-thirds of a CNN's inputs are weights). Names are unique
	 * among a graph's initializers, so a match is the answer. */
	int32_t c = *next_init;
	if (c < g->nvalues && g->values[c].origin == VAL_INITIALIZER && name_is(g->values[c].name, name, len)) {
		*next_init = c + 1;
		return c;
	}
	/* Most inputs are an output of the node just before (chains, residual blocks):
	 * its names are in cache, the map's slot and key often are not. */
	if (ni > 0) {
		const node *prev = &g->nodes[ni - 1];
		for (int32_t k = 0; k < prev->noutputs; k++) {
			int32_t o = prev->outputs[k];
			if (o >= 0 && name_is(g->values[o].name, name, len))
				return o;
		}
	}
	int32_t id = strmap_getn_hashed(&g->names, name, len, hash, NULL);
	if (id < 0)
		return RESOLVE_LATER;
	if (g->values[id].origin == VAL_INITIALIZER)
		*next_init = id + 1;
	return id;
}

/* A walk over the input names of g's nodes, node by node: a decoded node's are
 * still in its bytes. */
typedef struct input_walk {
	int32_t ni, k;
	size_t pos;
	bool failed; /* a name could not be read: the walk is over */
	const uint8_t *done; /* nodes passed over (resolve_range's), or NULL */
} input_walk;

static bool next_input(const osh_model *m, const graph *g, int32_t end, input_walk *w, const char **name,
		       size_t *len)
{
	for (; !w->failed && w->ni < end; w->ni++, w->k = 0, w->pos = 0) {
		const node *n = &g->nodes[w->ni];
		if (w->k == n->ninputs || (w->done && w->done[w->ni]))
			continue;
		w->k++;
		if (n->proto) {
			*name = str(n->proto->input[w->k - 1]);
			*len = strlen(*name);
			return true;
		}
		w->failed = !decode_next_input(m->src.wire_nodes.bytes + m->src.wire_nodes.off[w->ni],
					       m->src.wire_nodes.len[w->ni], &w->pos, name, len);
		return !w->failed;
	}
	return false;
}

bool resolve_input_name(const osh_model *m, const graph *g, int32_t ni, int32_t k, const char **name,
			size_t *len)
{
	input_walk w = {.ni = ni};
	for (int32_t i = 0; i <= k; i++)
		if (!next_input(m, g, ni + 1, &w, name, len))
			return false;
	return true;
}

/* Each name is hashed and its slot in the value map fetched LOOKUP_AHEAD inputs
 * ahead of its use (core/tuning.h). The map is far bigger than the cache on a big
 * graph, and a third of a transformer's inputs are neither the initializer nor the
 * node resolve_input guesses first: fetched ahead, the cache misses of their probes
 * overlap. */

bool resolve_range(const osh_model *m, graph *g, const uint8_t *done, int32_t lo, int32_t hi)
{
	struct {
		const char *name;
		size_t len;
		uint32_t hash;
	} ring[LOOKUP_AHEAD];
	size_t head = 0, queued = 0;
	input_walk front = {.ni = lo, .done = done};
	int32_t next_init = 0;
	for (int32_t ni = lo; ni < hi; ni++) {
		node *n = &g->nodes[ni];
		if (done && done[ni])
			continue;
		for (int32_t k = 0; k < n->ninputs; k++) {
			const char *name;
			size_t len;
			while (queued < LOOKUP_AHEAD && next_input(m, g, hi, &front, &name, &len)) {
				size_t at = (head + queued++) % LOOKUP_AHEAD;
				ring[at].name = name, ring[at].len = len;
				ring[at].hash = strmap_prefetch(&g->names, name, len);
				/* Halfway: its slot has arrived; the key it points at is next. */
				if (queued > LOOKUP_AHEAD / 2)
					strmap_prefetch_key(&g->names,
							    ring[(head + queued - 1 - LOOKUP_AHEAD / 2) % LOOKUP_AHEAD].hash);
			}
			if (!queued)
				return false;
			n->inputs[k] = resolve_input(g, ni, ring[head].name, ring[head].len, ring[head].hash, &next_init);
			head = (head + 1) % LOOKUP_AHEAD, queued--;
		}
	}
	return true;
}

bool resolve_job_take(resolve_job *j, int32_t *lo, int32_t *hi)
{
	pthread_mutex_lock(&j->mu);
	*lo = j->front;
	*hi = j->back - j->front > RESOLVE_CHUNK ? j->front + RESOLVE_CHUNK : j->back;
	j->front = *hi;
	pthread_mutex_unlock(&j->mu);
	return *hi > *lo;
}

/* The thread's next stretch, from the back. */
static bool take_back(resolve_job *j, int32_t *lo, int32_t *hi)
{
	pthread_mutex_lock(&j->mu);
	*hi = j->back;
	*lo = j->back - j->front > RESOLVE_CHUNK ? j->back - RESOLVE_CHUNK : j->front;
	j->back = *lo;
	pthread_mutex_unlock(&j->mu);
	return *hi > *lo;
}

static void *run(void *arg)
{
	resolve_job *j = arg;
	int32_t lo, hi;
	bool ok = true;
	while (ok && take_back(j, &lo, &hi))
		ok = resolve_range(j->m, j->g, j->done, lo, hi);
	j->ok = ok;
	return NULL;
}

bool resolve_job_start(resolve_job *j, const osh_model *m, graph *g, const uint8_t *done)
{
	*j = (resolve_job){.m = m, .g = g, .done = done, .back = g->nnodes};
	if (pthread_mutex_init(&j->mu, NULL) != 0)
		return false;
	bool started = quiet_thread_start(&j->thread, run, j) == 0;
	if (!started)
		pthread_mutex_destroy(&j->mu);
	return started;
}

bool resolve_job_join(resolve_job *j)
{
	pthread_join(j->thread, NULL);
	pthread_mutex_destroy(&j->mu);
	return j->ok;
}
