/* strmap.c: see strmap.h. Word-at-a-time hashing, linear probing, doubling past three-quarters full. */
#include "core/strmap.h"
#include "core/grow.h"

#include <string.h>

void strmap_init(strmap *m, arena *a) { *m = (strmap){.a = a}; }

uint32_t strmap_hash(const char *s) { return strmap_hashn(s, strlen(s)); }

static uint64_t load64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

static uint64_t load32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

/* Eight bytes a step, not one: value names run to tens of bytes, and hashing them a
 * byte at a time was most of a lookup's instructions. Every byte is read exactly
 * once or twice (the tail's loads overlap) and never past len; the length seeds
 * the state, so tails read with overlap stay distinct. The final mix spreads every
 * bit into the low ones, which pick the slot. The value is no one's business but
 * the map's: nothing outside depends on it or on slot order. */
uint32_t strmap_hashn(const char *s, size_t len)
{
	const uint64_t k = 0x9e3779b97f4a7c15u;
	const unsigned char *p = (const unsigned char *)s;
	uint64_t h = (uint64_t)len * k;
	for (; len > 8; p += 8, len -= 8) {
		h = (h ^ load64(p)) * k;
		h ^= h >> 29;
	}
	uint64_t w = 0;
	if (len >= 4)
		w = load32(p) | load32(p + len - 4) << 32;
	else if (len)
		w = (uint64_t)p[0] | (uint64_t)p[len / 2] << 8 | (uint64_t)p[len - 1] << 16;
	h = (h ^ w) * k;
	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93u;
	h ^= h >> 32;
	return (uint32_t)h;
}

static size_t find(const strmap *m, const char *key, uint32_t h)
{
	size_t mask = m->cap - 1;
	size_t i = h & mask;
	while (m->slots[i].key && (m->slots[i].hash != h || strcmp(m->slots[i].key, key) != 0))
		i = (i + 1) & mask;
	return i;
}

static bool grow_to(strmap *m, size_t cap)
{
	strmap_slot *slots = arena_array_scattered(m->a, cap, sizeof *slots);
	if (!slots)
		return false;
	strmap old = *m;
	m->slots = slots, m->cap = cap;
	for (size_t i = 0; i < old.cap; i++) {
		if (!old.slots[i].key)
			continue;
		/* Keys are distinct: the first free slot of the probe is the place. */
		size_t j = old.slots[i].hash & (cap - 1);
		while (m->slots[j].key)
			j = (j + 1) & (cap - 1);
		m->slots[j] = old.slots[i];
	}
	return true;
}

static bool grow(strmap *m)
{
	size_t cap = grow_capacity(m->cap, m->cap + 1, 16, SIZE_MAX, sizeof(strmap_slot));
	return cap > m->cap && grow_to(m, cap);
}

bool strmap_reserve(strmap *m, size_t n)
{
	size_t cap = m->cap ? m->cap : 16;
	while (cap / 4 * 3 < n + 1) {
		if (cap > SIZE_MAX / 4)
			return false;
		cap *= 2;
	}
	return cap == m->cap || grow_to(m, cap);
}

int32_t strmap_get(const strmap *m, const char *key)
{
	if (!m->cap)
		return -1;
	size_t i = find(m, key, strmap_hash(key));
	return m->slots[i].key ? m->slots[i].val : -1;
}

int32_t strmap_getn(const strmap *m, const char *key, size_t len, const char **stored)
{
	return strmap_getn_hashed(m, key, len, strmap_hashn(key, len), stored);
}

int32_t strmap_getn_hashed(const strmap *m, const char *key, size_t len, uint32_t h, const char **stored)
{
	if (stored)
		*stored = NULL;
	if (!m->cap)
		return -1;
	size_t mask = m->cap - 1;
	for (size_t i = h & mask; m->slots[i].key; i = (i + 1) & mask) {
		const strmap_slot *s = &m->slots[i];
		if (s->hash == h && !strncmp(s->key, key, len) && s->key[len] == '\0') {
			if (stored)
				*stored = s->key;
			return s->val;
		}
	}
	return -1;
}

int32_t *strmap_entry(strmap *m, const char *key, bool *found) { return strmap_entry_hashed(m, key, strmap_hash(key), found); }

int32_t *strmap_entry_hashed(strmap *m, const char *key, uint32_t h, bool *found)
{
	if ((m->len + 1) > m->cap / 4 * 3 && !grow(m))
		return NULL;
	strmap_slot *s = &m->slots[find(m, key, h)];
	*found = s->key != NULL;
	if (!*found) {
		*s = (strmap_slot){.key = key, .hash = h, .val = -1};
		m->len++;
	}
	return &s->val;
}

uint32_t strmap_prefetch(const strmap *m, const char *key, size_t len)
{
	uint32_t h = strmap_hashn(key, len);
	if (m->cap)
		__builtin_prefetch(&m->slots[h & (m->cap - 1)], 1);
	return h;
}

void strmap_prefetch_key(const strmap *m, uint32_t h)
{
	if (!m->cap)
		return;
	const strmap_slot *s = &m->slots[h & (m->cap - 1)];
	if (s->key && s->hash == h)
		__builtin_prefetch(s->key);
}

static int32_t insert(strmap *m, const char *key, int32_t val, bool overwrite)
{
	bool found;
	int32_t *v = strmap_entry(m, key, &found);
	if (!v)
		return -2;
	if (!found || overwrite)
		*v = val;
	return *v;
}

int32_t strmap_put(strmap *m, const char *key, int32_t val) { return insert(m, key, val, false); }
bool strmap_set(strmap *m, const char *key, int32_t val) { return insert(m, key, val, true) != -2; }
