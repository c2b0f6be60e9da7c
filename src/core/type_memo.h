/* type_memo.h: a small, lossy table keyed by a node type's string pointers.
 *
 * Passes ask the same question of every node of a type: its rule (infer.c), whether
 * it broadcasts (lint.c), its row in the operator counts (emit/summary.c). The loader
 * interns the op types and domains of the nodes it decodes (decode_node.c), so the
 * nodes of a type share pointers, and a pointer compare replaces a hash probe and
 * strcmps. A hit is right whatever the pointers' origin: the answer depends on the
 * strings alone, which do not change while a table lives. Nodes protobuf-c unpacked
 * (subgraphs, function bodies, a rewritten model) have strings of their own: they
 * take slots until the probes find no room, and then the caller answers without the
 * table. The caller keeps the answers, one per slot, in an array of its own.
 */
#ifndef OSH_CORE_TYPE_MEMO_H
#define OSH_CORE_TYPE_MEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TYPE_MEMO_PROBES 8

/* A node type as the memo tells types apart; a key whose op_type is NULL is an
 * empty slot. Fields a question does not depend on are left 0. */
typedef struct type_key {
	const char *op_type, *domain;
	int64_t opset;
} type_key;

/* k's slot among keys[0..nslots) (nslots a power of two): its own (*found true), or
 * the empty one it now takes (k written there; the caller fills the answer); -1 when
 * the probes find neither (*found false). */
static inline int32_t type_memo_slot(type_key *keys, int32_t nslots, type_key k, bool *found)
{
	size_t at = (size_t)(((uint64_t)(uintptr_t)k.op_type * 0x9e3779b97f4a7c15u) >> 40);
	*found = false;
	for (int probe = 0; probe < TYPE_MEMO_PROBES; probe++) {
		int32_t i = (int32_t)((at + (size_t)probe) & (size_t)(nslots - 1));
		type_key *e = &keys[i];
		if (e->op_type == k.op_type && e->domain == k.domain && e->opset == k.opset) {
			*found = true;
			return i;
		}
		if (!e->op_type) {
			*e = k;
			return i;
		}
	}
	return -1;
}

#endif
