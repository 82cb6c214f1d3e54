/* Containers, interned texts and value semantics: the C counterpart of dsl/runtime.py's clone, size,
 * Budget and equality.  See rp.h for the ownership rules. */
#include "rp.h"

#include <pthread.h>
#include <stdlib.h>

#define MAX_NESTING 100

/* ------------------------------------------------------------------ containers */
/* Small lists come from free lists of blocks of three sizes, kept per thread (a list may be freed on
 * another thread than made it: its block then joins that thread's list).  A thread-local variable of a loaded
 * module is found by a call (__tls_get_addr): a list made in a context takes the pool its context keeps
 * (rp_ctx_init: made on one thread, a context is used on it), one lookup a context rather than one a list. */
#define KEEP 4096
struct rp_pool {
    rp_list *blocks[RP_POOL_CLASSES];
    int32_t count[RP_POOL_CLASSES];
};
static __thread rp_pool thread_pool;

rp_pool *rp_thread_pool(void) { return &thread_pool; }

static int32_t class_of(int64_t cap) { return cap <= 4 ? 0 : cap <= 8 ? 1 : cap <= 16 ? 2 : -1; }

rp_list *rp_list_new(rp_ctx *C, int64_t cap)
{
    int32_t cls = class_of(cap);
    rp_list *l;
    if (cls >= 0) {
        rp_pool *P = C ? C->pool : &thread_pool;
        cap = 4 << cls;
        l = P->blocks[cls];
        if (l) {
            P->blocks[cls] = (rp_list *)l->items;
            P->count[cls]--;
        } else {
            l = malloc(sizeof *l + (size_t)cap * sizeof(rv));
        }
        if (l) l->items = l->inline_items;
    } else {
        l = malloc(sizeof *l);
        rv *items = l ? malloc((size_t)cap * sizeof(rv)) : NULL;
        if (!items) { free(l); l = NULL; }
        else l->items = items;
    }
    if (!l) {
        if (C) rp_bail(C, RP_BAIL_MEMORY, "out of memory", -1);
        return NULL;
    }
    l->rc = 1; l->immortal = 0; l->cls = (int16_t)cls; l->len = 0; l->cap = cap; l->size = -1;
    return l;
}

void rp_list_free(rp_list *l)
{
    for (int64_t i = 0; i < l->len; i++) rv_drop(l->items[i]);
    if (l->items != l->inline_items) free(l->items);
    int32_t cls = l->cls;
    rp_pool *P = &thread_pool;
    if (cls >= 0 && P->count[cls] < KEEP) {
        l->items = (rv *)P->blocks[cls];
        P->blocks[cls] = l;
        P->count[cls]++;
        return;
    }
    free(l);
}

static int list_room(rp_ctx *C, rp_list *l, int64_t more)
{
    if (l->len + more <= l->cap) return 1;
    int64_t cap = l->cap * 2;
    if (cap < l->len + more) cap = l->len + more;
    rv *items;
    if (l->items == l->inline_items) {   /* outgrows its block: the items move out, the header stays */
        items = malloc((size_t)cap * sizeof(rv));
        if (items) rp_memcpy(items, l->items, (size_t)l->len * sizeof(rv));
    } else {
        items = realloc(l->items, (size_t)cap * sizeof(rv));
    }
    if (!items) { rp_bail(C, RP_BAIL_MEMORY, "out of memory", -1); return 0; }
    l->items = items; l->cap = cap;
    return 1;
}

int rp_list_push(rp_ctx *C, rp_list *l, rv v)
{
    if (RP_UNLIKELY(l->len == l->cap) && !list_room(C, l, 1)) { rv_drop(v); return 0; }
    l->items[l->len++] = v;
    return 1;
}

int rp_list_insert0(rp_ctx *C, rp_list *l, rv v)
{
    if (!list_room(C, l, 1)) { rv_drop(v); return 0; }
    memmove(l->items + 1, l->items, (size_t)l->len * sizeof(rv));
    l->items[0] = v;
    l->len++;
    return 1;
}

rp_list *rp_list_copy_shallow(rp_ctx *C, const rp_list *l)
{
    rp_list *out = rp_list_new(C, l->len);
    if (!out) return NULL;
    for (int64_t i = 0; i < l->len; i++) out->items[i] = rv_ref(l->items[i]);
    out->len = l->len;
    return out;
}

rp_map *rp_map_new(rp_ctx *C, int64_t cap)
{
    rp_map *m = malloc(sizeof *m);
    if (cap < 4) cap = 4;
    int64_t *keys = m ? malloc((size_t)cap * sizeof(int64_t)) : NULL;
    rv *vals = keys ? malloc((size_t)cap * sizeof(rv)) : NULL;
    if (!vals) {
        free(keys); free(m);
        if (C) rp_bail(C, RP_BAIL_MEMORY, "out of memory", -1);
        return NULL;
    }
    m->rc = 1; m->immortal = 0; m->cls = -1; m->len = 0; m->cap = cap; m->keys = keys; m->vals = vals; m->size = -1;
    return m;
}

void rp_map_free(rp_map *m)
{
    for (int64_t i = 0; i < m->len; i++) rv_drop(m->vals[i]);
    free(m->keys); free(m->vals); free(m);
}

int64_t rp_map_find(const rp_map *m, int64_t key)
{
    for (int64_t i = 0; i < m->len; i++)
        if (m->keys[i] == key) return i;
    return -1;
}

int rp_map_put(rp_ctx *C, rp_map *m, int64_t key, rv v)
{
    int64_t at = rp_map_find(m, key);
    if (at >= 0) { rv_set(&m->vals[at], v); return 1; }
    if (m->len == m->cap) {
        int64_t cap = m->cap * 2;
        int64_t *keys = realloc(m->keys, (size_t)cap * sizeof(int64_t));
        if (keys) m->keys = keys;
        rv *vals = keys ? realloc(m->vals, (size_t)cap * sizeof(rv)) : NULL;
        if (!vals) { rv_drop(v); rp_bail(C, RP_BAIL_MEMORY, "out of memory", -1); return 0; }
        m->vals = vals; m->cap = cap;
    }
    m->keys[m->len] = key; m->vals[m->len] = v; m->len++;
    return 1;
}

static int text_order(const void *a, const void *b)
{
    int64_t c = rp_text_compare(*(const int64_t *)a, *(const int64_t *)b);
    return (c > 0) - (c < 0);
}

rv rp_map_sorted_keys(rp_ctx *C, const rp_map *m)
{
    rp_list *l = rp_list_new(C, m->len);
    if (!l) return rv_null();
    int64_t *keys = malloc((size_t)(m->len ? m->len : 1) * sizeof(int64_t));
    if (!keys) { rp_list_free(l); rp_bail(C, RP_BAIL_MEMORY, "out of memory", -1); return rv_null(); }
    rp_memcpy(keys, m->keys, (size_t)m->len * sizeof(int64_t));
    qsort(keys, (size_t)m->len, sizeof(int64_t), text_order);
    for (int64_t i = 0; i < m->len; i++) l->items[i] = rv_str(keys[i]);
    l->len = m->len;
    free(keys);
    return rv_list(l);
}

/* ------------------------------------------------------------------ interned texts */
/* Texts live in chunks that never move, so a text's bytes can be read without a lock once its id is
 * known.  Finding a text already there takes no lock either: a slot is written (with release order)
 * only after its text, and a table that grows is replaced, not freed, so a reader still probing the old
 * one reads a table that holds fewer texts, never a freed one; a text not found without the lock is
 * looked for again, and added, under it.  The module's own texts come first. */
#define CHUNK_BITS 12
#define CHUNK (1 << CHUNK_BITS)
#define MAX_CHUNKS 16384
#define MAX_TEXT_BYTES (64LL << 20)   /* bytes of texts made in play a process keeps; past them, bail */

typedef struct text_table {
    struct text_table *older;   /* the tables it replaced, kept for readers still probing them */
    int64_t n;                  /* a power of two */
    int64_t slot[];             /* open addressing: text id + 1, 0 empty */
} text_table;

static rp_text *chunks[MAX_CHUNKS];
static int64_t ntexts;
static int64_t own_texts;              /* the module's own texts (and the empty one): ids below it */
static int64_t made_bytes;
static text_table *table;
static int64_t one_byte[256];          /* a one-byte text's id + 1, 0 while it has none: its own table */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
int64_t RP_EMPTY_TEXT = -1;

static uint64_t hash_bytes(const char *s, int64_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (int64_t i = 0; i < n; i++) { h ^= (unsigned char)s[i]; h *= 1099511628211ULL; }
    return h;
}

static int64_t count_chars(const char *s, int64_t n)
{
    int64_t c = 0;
    for (int64_t i = 0; i < n; i++) c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

rp_text rp_text_of(int64_t id) { return chunks[id >> CHUNK_BITS][id & (CHUNK - 1)]; }

/* The id of the text, or -1 with `*at` the empty slot where it would go (safe without the lock). */
static int64_t table_find(const text_table *T, const char *bytes, int64_t n, uint64_t hash, int64_t *at)
{
    uint64_t mask = (uint64_t)(T->n - 1), h = hash & mask;
    for (int64_t got; (got = __atomic_load_n(&T->slot[h], __ATOMIC_ACQUIRE)); h = (h + 1) & mask) {
        rp_text t = rp_text_of(got - 1);
        if (t.nbytes == n && memcmp(t.bytes, bytes, (size_t)n) == 0) return got - 1;
    }
    *at = (int64_t)h;
    return -1;
}

static int grow_table(void)
{
    int64_t n = table ? table->n * 2 : 1024;
    text_table *fresh = calloc(1, sizeof(text_table) + (size_t)n * sizeof(int64_t));
    if (!fresh) return 0;
    fresh->older = table;
    fresh->n = n;
    for (int64_t id = 0; id < ntexts; id++) {
        rp_text t = rp_text_of(id);
        uint64_t h = hash_bytes(t.bytes, t.nbytes) & (uint64_t)(n - 1);
        while (fresh->slot[h]) h = (h + 1) & (uint64_t)(n - 1);
        fresh->slot[h] = id + 1;
    }
    __atomic_store_n(&table, fresh, __ATOMIC_RELEASE);
    return 1;
}

/* Find or add a text (the lock held); `keep` says the bytes outlive the table (the module's own), else
 * they are copied. */
static int64_t intern_locked(const char *bytes, int64_t n, uint64_t hash, int keep)
{
    if ((!table || (ntexts + 1) * 2 > table->n) && !grow_table()) return -1;
    int64_t h;
    int64_t found = table_find(table, bytes, n, hash, &h);
    if (found >= 0) return found;
    int64_t id = ntexts;
    if ((id >> CHUNK_BITS) >= MAX_CHUNKS) return -1;
    if (!chunks[id >> CHUNK_BITS]) {
        chunks[id >> CHUNK_BITS] = calloc(CHUNK, sizeof(rp_text));
        if (!chunks[id >> CHUNK_BITS]) return -1;
    }
    const char *stored = bytes;
    if (!keep) {
        if (made_bytes + n > MAX_TEXT_BYTES) return -1;
        char *copy = malloc((size_t)n + 1);
        if (!copy) return -1;
        rp_memcpy(copy, bytes, (size_t)n);
        copy[n] = 0;
        stored = copy;
        made_bytes += n;
    }
    rp_text *t = &chunks[id >> CHUNK_BITS][id & (CHUNK - 1)];
    t->bytes = stored; t->nbytes = n; t->nchars = count_chars(stored, n);
    __atomic_store_n(&ntexts, id + 1, __ATOMIC_RELEASE);
    __atomic_store_n(&table->slot[h], id + 1, __ATOMIC_RELEASE);
    if (n == 1) __atomic_store_n(&one_byte[(unsigned char)bytes[0]], id + 1, __ATOMIC_RELEASE);
    return id;
}

/* The module's own texts, in order: text k gets id k (called once, before any other text exists). */
int rp_texts_init(const unsigned char *blob, const int64_t *ends, int64_t n)
{
    pthread_mutex_lock(&lock);
    int ok = 1;
    if (ntexts == 0) {
        int64_t start = 0;
        for (int64_t k = 0; k < n && ok; k++) {
            const char *bytes = (const char *)blob + start;
            int64_t id = intern_locked(bytes, ends[k] - start, hash_bytes(bytes, ends[k] - start), 1);
            ok = id == k;
            start = ends[k];
        }
        if (ok) {
            RP_EMPTY_TEXT = intern_locked("", 0, hash_bytes("", 0), 1);
            ok = RP_EMPTY_TEXT >= 0;
            own_texts = ntexts;
        }
    }
    pthread_mutex_unlock(&lock);
    return ok;
}

/* Character k of text `id` where the text is ASCII, 0 <= k < its length and that character's text has an id: that
 * id, read from the tables (no hash, no call); else -1, and the caller takes rp_index's long way. */
int64_t rp_ascii_char(int64_t id, int64_t k)
{
    const rp_text *t = &chunks[id >> CHUNK_BITS][id & (CHUNK - 1)];
    if (t->nchars != t->nbytes || k < 0 || k >= t->nbytes) return -1;
    return __atomic_load_n(&one_byte[(unsigned char)t->bytes[k]], __ATOMIC_ACQUIRE) - 1;
}

int64_t rp_intern(rp_ctx *C, const char *bytes, int64_t nbytes)
{
    int64_t id;
    if (nbytes == 1 && (id = __atomic_load_n(&one_byte[(unsigned char)bytes[0]], __ATOMIC_ACQUIRE)))
        return id - 1;
    uint64_t hash = hash_bytes(bytes, nbytes);
    const text_table *T = __atomic_load_n(&table, __ATOMIC_ACQUIRE);
    int64_t at;
    if (T && (id = table_find(T, bytes, nbytes, hash, &at)) >= 0) return id;
    pthread_mutex_lock(&lock);
    id = intern_locked(bytes, nbytes, hash, 0);
    pthread_mutex_unlock(&lock);
    if (id < 0) rp_bail(C, RP_BAIL_NATIVE, "too many texts made in play", -1);
    return id;
}

int64_t rp_texts_made(int64_t *bytes)
{
    pthread_mutex_lock(&lock);
    int64_t made = ntexts - own_texts;
    *bytes = made_bytes;
    pthread_mutex_unlock(&lock);
    return made;
}

int64_t rp_text_compare(int64_t a, int64_t b)
{
    if (a == b) return 0;
    rp_text x = rp_text_of(a), y = rp_text_of(b);
    int64_t n = x.nbytes < y.nbytes ? x.nbytes : y.nbytes;
    int c = memcmp(x.bytes, y.bytes, (size_t)n);   /* UTF-8 byte order is code point order */
    if (c) return c;
    return (x.nbytes > y.nbytes) - (x.nbytes < y.nbytes);
}

/* ------------------------------------------------------------------ size, clone, budget */
/* The length of a list of at most four items none of which is a list or a map, else -1: what size_walk gives for
 * it one level or more above the nesting bound (as dsl.runtime._size counts such a short item in place). */
static inline int64_t short_flat(rv v)
{
    if (v.t != T_LIST || v.u.l->len > 4) return -1;
    const rv *items = v.u.l->items;
    for (int64_t i = 0; i < v.u.l->len; i++) if (rv_is_container(items[i])) return -1;
    return v.u.l->len;
}

static int64_t size_walk(rp_ctx *C, rv v, int64_t cap, int levels, int32_t where);

/* size_walk's body, written into rp_size too, so a list holding nothing nested is counted without a call. */
static inline __attribute__((always_inline)) int64_t size_walk_inline(rp_ctx *C, rv v, int64_t cap, int levels,
                                                                      int32_t where)
{
    if (!rv_is_container(v)) return 0;
    if (levels == 0) {
        rp_bail(C, RP_BAIL_LIMIT, "nesting", where);
        return cap + 1;
    }
    int64_t n = v.t == T_LIST ? v.u.l->len : v.u.m->len;
    const rv *items = v.t == T_LIST ? v.u.l->items : v.u.m->vals;
    if (n > cap) return n;
    /* n grows only by a nested walk, so the cap is checked there alone: a flat run of items costs a tag test
     * each (the walk's return is the same as checking before every item) */
    const rv *end = items + n;
    for (const rv *x = items; x < end; x++) {
        if (rv_is_container(*x)) {
            int64_t flat = levels > 1 ? short_flat(*x) : -1;   /* a pair, a place: counted here, no call */
            n += flat >= 0 ? flat : size_walk(C, *x, cap - n, levels - 1, where);
            if (C->err) return cap + 1;
            if (n > cap) return n;
        }
    }
    return n;
}

static int64_t size_walk(rp_ctx *C, rv v, int64_t cap, int levels, int32_t where)
{
    return size_walk_inline(C, v, cap, levels, where);
}

int64_t rp_size(rp_ctx *C, rv v, int64_t cap, int32_t where)
{
    if (v.t == T_LIST && v.u.l->size >= 0) return v.u.l->size;   /* a constant's, counted once */
    if (v.t == T_MAP && v.u.m->size >= 0) return v.u.m->size;
    return size_walk_inline(C, v, cap, MAX_NESTING, where);
}

int64_t rp_size_nested(rp_ctx *C, rv v, int depth, int32_t where)
{
    return size_walk(C, v, C->b->copies, MAX_NESTING - depth, where);   /* past the copies left, the charge fails */
}

/* Count a constant's size once, for every later charge of it (a constant nested too deep keeps -1: each
 * walk then bails as it must). */
void rp_freeze_size(rv v)
{
    rp_ctx C;
    memset(&C, 0, sizeof C);
    int64_t n = size_walk(&C, v, INT64_MAX, MAX_NESTING, -1);
    if (C.err) return;
    if (v.t == T_LIST) v.u.l->size = n;
    else if (v.t == T_MAP) v.u.m->size = n;
}

rv rp_clone(rp_ctx *C, rv v)
{
    if (v.t == T_LIST) {
        rp_list *src = v.u.l, *l = rp_list_new(C, src->len);
        if (!l) return rv_null();
        for (int64_t i = 0; i < src->len; i++) {
            rv item = src->items[i];
            l->items[i] = rv_is_container(item) ? rp_clone(C, item) : item;
            l->len = i + 1;
            if (C->err) { rp_list_free(l); return rv_null(); }
        }
        return rv_list(l);
    }
    if (v.t == T_MAP) {
        rp_map *src = v.u.m, *m = rp_map_new(C, src->len);
        if (!m) return rv_null();
        for (int64_t i = 0; i < src->len; i++) {
            rv item = src->vals[i];
            m->keys[i] = src->keys[i];
            m->vals[i] = rv_is_container(item) ? rp_clone(C, item) : item;
            m->len = i + 1;
            if (C->err) { rp_map_free(m); return rv_null(); }
        }
        return rv_map(m);
    }
    return v;
}

/* rp_size of a list with no cap (the budget's check follows); -1 on a bail. */
int64_t rp_size_of_list(rp_ctx *C, rv v, int32_t where)
{
    int64_t n = rp_size(C, v, C->b->iterations, where);
    return C->err ? -1 : n;
}

int rp_charge(rp_ctx *C, rv v, int32_t where)
{
    if (!rv_is_container(v)) return 1;
    int64_t n = rp_size(C, v, C->b->copies, where);
    if (C->err) return 0;
    return rp_built(C, n, where);
}

int rp_scan(rp_ctx *C, rv v, int32_t where)
{
    if (!rv_is_container(v)) return 1;
    int64_t n = rp_size(C, v, C->b->iterations, where);
    if (C->err) return 0;
    return rp_spend(C, n, where);
}

rv rp_copy(rp_ctx *C, rv v, int32_t where)
{
    if (!rv_is_container(v)) return v;
    if (!rp_charge(C, v, where)) return rv_null();
    return rp_clone(C, v);
}

/* ------------------------------------------------------------------ truth and equality */
int rp_truthy(rv v)
{
    switch (v.t) {
    case T_NULL: return 0;
    case T_BOOL: case T_INT: return v.u.i != 0;
    case T_FLT: return v.u.f != 0.0;
    case T_STR: return rp_text_of(v.u.i).nbytes != 0;
    case T_LIST: return v.u.l->len != 0;
    default: return v.u.m->len != 0;
    }
}

/* -1, 0, 1 as the int sorts before, with or after the float, exactly (as Python compares them). */
int rp_cmp_int_flt(int64_t i, double f)
{
    if (f >= 9223372036854775808.0) return -1;
    if (f < -9223372036854775808.0) return 1;
    double whole = __builtin_trunc(f);
    int64_t t = (int64_t)whole;
    if (i < t) return -1;
    if (i > t) return 1;
    double frac = f - whole;
    return frac > 0 ? -1 : frac < 0 ? 1 : 0;
}

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* A hash `==` respects: an int and the float equal to it hash alike, a bool apart from the int it is
   not equal to, a list by its items in order, a map by its entries in any order. */
uint64_t rp_hash_value(rv v)
{
    switch (v.t) {
    case T_NULL: return 1;
    case T_BOOL: return mix64((uint64_t)v.u.i ^ UINT64_C(0x2545f4914f6cdd1d));
    case T_INT: return mix64((uint64_t)v.u.i);
    case T_FLT:
        if (v.u.f == __builtin_trunc(v.u.f) && v.u.f >= -9223372036854775808.0 && v.u.f < 9223372036854775808.0)
            return mix64((uint64_t)(int64_t)v.u.f);
        { uint64_t bits; memcpy(&bits, &v.u.f, sizeof bits); return mix64(bits); }
    case T_STR: return mix64((uint64_t)v.u.i ^ UINT64_C(0x9e3779b97f4a7c15));
    case T_LIST: {
        uint64_t h = UINT64_C(0x51af3c5d);
        for (int64_t i = 0; i < v.u.l->len; i++) h = mix64(h ^ rp_hash_value(v.u.l->items[i]));
        return h;
    }
    default: {
        uint64_t h = (uint64_t)v.u.m->len;
        for (int64_t i = 0; i < v.u.m->len; i++)
            h += mix64(mix64((uint64_t)v.u.m->keys[i]) * 31 + rp_hash_value(v.u.m->vals[i]));
        return h;
    }
    }
}

int rp_equal_any(rv a, rv b)
{
    if (a.t == T_BOOL || b.t == T_BOOL) return a.t == b.t && a.u.i == b.u.i;
    switch (a.t) {
    case T_NULL: return b.t == T_NULL;
    case T_INT:
        if (b.t == T_INT) return a.u.i == b.u.i;
        if (b.t == T_FLT) return rp_cmp_int_flt(a.u.i, b.u.f) == 0;
        return 0;
    case T_FLT:
        if (b.t == T_FLT) return a.u.f == b.u.f;
        if (b.t == T_INT) return rp_cmp_int_flt(b.u.i, a.u.f) == 0;
        return 0;
    case T_STR: return b.t == T_STR && a.u.i == b.u.i;
    case T_LIST: {
        if (b.t != T_LIST) return 0;
        rp_list *x = a.u.l, *y = b.u.l;
        if (x->len != y->len) return 0;
        for (int64_t i = 0; i < x->len; i++)
            if (!rp_equal(x->items[i], y->items[i])) return 0;
        return 1;
    }
    default: {
        if (b.t != T_MAP) return 0;
        rp_map *x = a.u.m, *y = b.u.m;
        if (x->len != y->len) return 0;
        for (int64_t i = 0; i < x->len; i++) {
            int64_t k = rp_map_find(y, x->keys[i]);
            if (k < 0 || !rp_equal(x->vals[i], y->vals[k])) return 0;
        }
        return 1;
    }
    }
}

int rp_equals(rp_ctx *C, rv a, rv b, int32_t where)
{
    if (rv_is_container(a) && a.t == b.t && !rp_scan(C, a, where)) return 0;
    return rp_equal(a, b);
}
