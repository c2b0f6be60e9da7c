/* strmap.c: see strmap.h. FNV-1a hashing, linear probing, doubling past three-quarters full. */
#include "core/strmap.h"

#include <string.h>

void strmap_init(strmap *m, arena *a) { *m = (strmap){.a = a}; }

uint32_t strmap_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		h = (h ^ *p) * 16777619u;
	return h;
}

uint32_t strmap_hashn(const char *s, size_t len)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
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
	strmap_slot *slots = arena_array(m->a, cap, sizeof *slots);
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

static bool grow(strmap *m) { return grow_to(m, m->cap ? m->cap * 2 : 16); }

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
	if (stored)
		*stored = NULL;
	if (!m->cap)
		return -1;
	uint32_t h = strmap_hashn(key, len);
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
