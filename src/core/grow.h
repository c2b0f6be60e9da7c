/* grow.h: arrays that grow by doubling, on the heap or in an arena.
 *
 * Every growable array of the library and the tool gets its new capacity here: its
 * capacity doubled (a first one when it has none) until it holds what is asked, so n
 * appends cost O(n) copies in all. The capacity never passes the limit of the type
 * that counts it (INT32_MAX for the IR's tables, whose ids are int32_t) nor SIZE_MAX
 * bytes: an array that would is refused as an allocation that failed is, and a
 * refusal leaves the array and its capacity as they were.
 */
#ifndef OSH_CORE_GROW_H
#define OSH_CORE_GROW_H

#include "core/arena.h"

#include <stddef.h>
#include <stdint.h>

/* The capacity for `need` elements of `size` bytes: cap when it holds them, else cap
 * (first, >= 1, when cap is 0) doubled until it does, at most `max` elements and
 * SIZE_MAX bytes. 0 when need is past those. */
size_t grow_capacity(size_t cap, size_t need, size_t first, size_t max, size_t size);

/* The heap array p (*cap elements) with room for need: p itself when it has it, else
 * p realloc'd (*cap updated). NULL when memory ran out (p is then untouched). */
void *grow_heap(void *p, size_t *cap, size_t need, size_t first, size_t size);

/* A full arena array p (*cap elements, all kept) with room for one more: a copy with
 * the capacity doubled (first when 0) and the new tail zeroed; the old block is
 * abandoned (arena_grow). NULL when memory ran out (*cap is then untouched). */
void *grow_arena(arena *a, void *p, size_t *cap, size_t first, size_t size);
/* The same for a table counted by int32_t. */
void *grow_arena_i32(arena *a, void *p, int32_t *cap, int32_t first, size_t size);

#endif
