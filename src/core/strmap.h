/* strmap.h: an open-addressing hash map from strings to int32 ids, in an arena.
 *
 * Used for every name lookup (value names, symbols, operator rules) so that nothing
 * in the tool scans a list to find a name. Keys are not copied: they must outlive the
 * map (they live in the same arena). Load factor stays at most 3/4: the value table
 * of a big model is the biggest map, and a lower load factor would make its slots a
 * larger part of the index's memory.
 */
#ifndef OSH_CORE_STRMAP_H
#define OSH_CORE_STRMAP_H

#include "core/arena.h"

/* One slot: the key, its full hash and its id side by side, so that a probe reads
 * one cache line and compares strings only on a full-hash match. */
typedef struct strmap_slot {
	const char *key; /* NULL: empty */
	uint32_t hash;
	int32_t val;
} strmap_slot;

typedef struct strmap {
	arena *a;
	strmap_slot *slots;
	size_t cap; /* a power of two, or 0 */
	size_t len;
} strmap;

void strmap_init(strmap *m, arena *a);
/* Returns the id stored for key, or -1. */
int32_t strmap_get(const strmap *m, const char *key);
/* The same for the `len` bytes at key (not NUL-terminated: a name still in wire
 * bytes); *stored, when not NULL, gets the key as stored (NULL when absent). */
int32_t strmap_getn(const strmap *m, const char *key, size_t len, const char **stored);
/* The same with the bytes' hash known (strmap_prefetch returned it). */
int32_t strmap_getn_hashed(const strmap *m, const char *key, size_t len, uint32_t h, const char **stored);
/* Stores key → val unless key is present. Returns the id now stored for key (the old
 * one if it was present), or -2 when memory ran out. */
int32_t strmap_put(strmap *m, const char *key, int32_t val);
/* The id stored for key, to read or set in place: *found says whether key was
 * there; if not, it is now, with id -1 (absent to every reader) until the caller
 * sets it. One probe where a get and then a set take two. NULL when memory ran out.
 * The pointer is good until the next insertion. */
int32_t *strmap_entry(strmap *m, const char *key, bool *found);
/* The same when the caller has the key's hash already (strmap_hash(key), as
 * strmap_prefetch returns it): a long name is not hashed twice. */
int32_t *strmap_entry_hashed(strmap *m, const char *key, uint32_t h, bool *found);
/* Overwrites or inserts. Returns false when memory ran out. */
bool strmap_set(strmap *m, const char *key, int32_t val);

/* Starts bringing into the cache the slot where the `len` bytes at key are probed
 * first, so that looking the key up or inserting it a little later does not wait
 * for memory (a big map's slots are far bigger than the cache). Changes nothing.
 * Returns the bytes' hash, for strmap_entry_hashed. */
uint32_t strmap_prefetch(const strmap *m, const char *key, size_t len);

/* The second step of a look-up fetched ahead: once the slot strmap_prefetch asked
 * for is in the cache, starts bringing in the key it points at, when its hash is h,
 * for the string comparison that confirms the match. Changes nothing. */
void strmap_prefetch_key(const strmap *m, uint32_t h);

/* Makes room for n keys in all, so that inserting them never rehashes (each rehash
 * leaves the old arrays in the arena). Returns false when memory ran out. */
bool strmap_reserve(strmap *m, size_t n);

uint32_t strmap_hash(const char *s);
/* The hash of len bytes: strmap_hashn(s, strlen(s)) == strmap_hash(s). */
uint32_t strmap_hashn(const char *s, size_t len);

#endif
