/* The operators and statements of the rules language: the C counterpart of dsl/runtime.py (arith, compare,
 * contains, index, slice, field, iterate and the list statements), with the same charges. */
#include "rp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_ITEMS RP_MAX_ITEMS
#define MAX_TEXT 100000
#define EXACT_INT (1LL << 53)   /* ints a double holds exactly: int / int and mixed int-float work below it */

int rp_cmp_int_flt(int64_t i, double f);

/* ------------------------------------------------------------------ the generator */
/* rp_below past its common case: the draw `x` is at or above 2^64 - n. */
uint64_t rp_below_unbiased(uint64_t *state, uint64_t n, uint64_t x)
{
    uint64_t r = (0 - n) % n;   /* 2^64 mod n: draws at or above 2^64 - r would bias the result */
    for (;;) {
        if (r == 0 || x < 0 - r) return x % n;
        x = rp_next64(state);
    }
}

double rp_random(uint64_t *state) { return (double)(rp_next64(state) >> 11) / 9007199254740992.0; }

/* ------------------------------------------------------------------ numbers */
rv rp_number_error(rp_ctx *C, int32_t where)
{
    rp_bail(C, RP_BAIL_RULE, "number out of range", where);
    return rv_null();
}

static rv finite_or_error(rp_ctx *C, double f, int32_t where)
{
    if (!isfinite(f)) return rp_number_error(C, where);
    return rv_flt(f);
}

static int as_double(rp_ctx *C, rv v, double *out, int32_t where)
{
    if (v.t == T_FLT) { *out = v.u.f; return 1; }
    *out = (double)v.u.i;   /* rounded to nearest, as Python's float(int) */
    (void)C; (void)where;
    return 1;
}

/* CPython's float divmod: Python's `//` and `%` of floats, to the last bit. */
static void float_divmod(double vx, double wx, double *floordiv, double *mod)
{
    double div;
    *mod = fmod(vx, wx);
    div = (vx - *mod) / wx;
    if (*mod) {
        if ((wx < 0) != (*mod < 0)) { *mod += wx; div -= 1.0; }
    } else {
        *mod = copysign(0.0, wx);
    }
    if (div) {
        *floordiv = floor(div);
        if (div - *floordiv > 0.5) *floordiv += 1.0;
    } else {
        *floordiv = copysign(0.0, vx / wx);
    }
}

/* The checks and the charge of joining two texts of `a` and `b` characters: the joined one's characters, or
 * -1 on a bail. */
int64_t rp_text_add_chars(rp_ctx *C, int64_t a, int64_t b, int32_t where)
{
    if (a + b > MAX_TEXT) { rp_bail(C, RP_BAIL_LIMIT, "text too long", where); return -1; }
    return rp_built(C, a + b, where) ? a + b : -1;
}

/* The characters of `v`, one side of a `+` whose other side is a text: -1 with `+`'s own bail when `v` is no
 * text (`left`: the side it is on). */
int64_t rp_text_operand_chars(rp_ctx *C, rv v, int left, int32_t where)
{
    if (v.t == T_STR) return rp_text_of(v.u.i).nchars;
    rv text = rv_str(RP_EMPTY_TEXT);   /* only the operands' types decide the bail */
    rv_drop(left ? rp_arith(C, OP_ADD, v, text, where) : rp_arith(C, OP_ADD, text, v, where));
    if (!C->err) rp_bail(C, RP_BAIL_NATIVE, "a text's operand", where);
    return -1;
}

static rv text_join2(rp_ctx *C, int64_t a, int64_t b, int32_t where)
{
    rp_text x = rp_text_of(a), y = rp_text_of(b);
    if (rp_text_add_chars(C, x.nchars, y.nchars, where) < 0) return rv_null();
    char *buf = malloc((size_t)(x.nbytes + y.nbytes + 1));
    if (!buf) { rp_bail(C, RP_BAIL_MEMORY, "out of memory", where); return rv_null(); }
    rp_memcpy(buf, x.bytes, (size_t)x.nbytes);
    rp_memcpy(buf + x.nbytes, y.bytes, (size_t)y.nbytes);
    int64_t id = rp_intern(C, buf, x.nbytes + y.nbytes);
    free(buf);
    return id < 0 ? rv_null() : rv_str(id);
}

rv rp_arith(rp_ctx *C, int op, rv a, rv b, int32_t where)
{
    int na = a.t == T_INT || a.t == T_FLT, nb = b.t == T_INT || b.t == T_FLT;
    if (na && nb) {
        if ((op == OP_DIV || op == OP_FLOORDIV || op == OP_MOD) &&
                ((b.t == T_INT && b.u.i == 0) || (b.t == T_FLT && b.u.f == 0.0))) {
            rp_bail(C, RP_BAIL_RULE, "division by zero", where);
            return rv_null();
        }
        if (a.t == T_INT && b.t == T_INT) {
            int64_t x = a.u.i, y = b.u.i, r;
            switch (op) {
            case OP_ADD: if (__builtin_add_overflow(x, y, &r)) break; return rv_int(r);
            case OP_SUB: if (__builtin_sub_overflow(x, y, &r)) break; return rv_int(r);
            case OP_MUL: if (__builtin_mul_overflow(x, y, &r)) break; return rv_int(r);
            case OP_DIV:
                if (y == -1) { if (x == INT64_MIN) break; return rv_int(-x); }
                if (x % y == 0) return rv_int(x / y);
                if (x >= EXACT_INT || x <= -EXACT_INT || y >= EXACT_INT || y <= -EXACT_INT) break;
                return finite_or_error(C, (double)x / (double)y, where);
            case OP_FLOORDIV:
                if (y == -1) { if (x == INT64_MIN) break; return rv_int(-x); }
                r = x / y;
                if (x % y != 0 && ((x < 0) != (y < 0))) r--;
                return rv_int(r);
            case OP_MOD:
                if (y == -1) return rv_int(0);
                r = x % y;
                if (r != 0 && ((r < 0) != (y < 0))) r += y;
                return rv_int(r);
            }
            rp_bail(C, RP_BAIL_NATIVE, "an int past 64 bits", where);
            return rv_null();
        }
        double x, y, q, m;   /* an int mixed with a float is rounded to a float first, as Python does */
        as_double(C, a, &x, where);
        as_double(C, b, &y, where);
        switch (op) {
        case OP_ADD: return finite_or_error(C, x + y, where);
        case OP_SUB: return finite_or_error(C, x - y, where);
        case OP_MUL: return finite_or_error(C, x * y, where);
        case OP_DIV: return finite_or_error(C, x / y, where);
        case OP_FLOORDIV: float_divmod(x, y, &q, &m); return finite_or_error(C, q, where);
        default: float_divmod(x, y, &q, &m); return finite_or_error(C, m, where);
        }
    }
    if (op == OP_ADD && a.t == b.t && a.t == T_STR) return text_join2(C, a.u.i, b.u.i, where);
    if (op == OP_ADD && a.t == b.t && a.t == T_LIST) {
        rp_list *x = a.u.l, *y = b.u.l;
        if (x->len + y->len > MAX_ITEMS) { rp_bail(C, RP_BAIL_LIMIT, "list too long", where); return rv_null(); }
        if (!rp_built(C, x->len + y->len, where)) return rv_null();
        rp_list *l = rp_list_new(C, x->len + y->len);
        if (!l) return rv_null();
        for (int64_t i = 0; i < x->len; i++) l->items[i] = rv_ref(x->items[i]);
        for (int64_t i = 0; i < y->len; i++) l->items[x->len + i] = rv_ref(y->items[i]);
        l->len = x->len + y->len;
        return rv_list(l);
    }
    if (op == OP_MUL && a.t == T_LIST && b.t == T_INT) {
        int64_t n = b.u.i;
        if (n < 0) { rp_bail(C, RP_BAIL_RULE, "negative repetition", where); return rv_null(); }
        rp_list *x = a.u.l;
        if (x->len == 0) { rp_list *l = rp_list_new(C, 0); return l ? rv_list(l) : rv_null(); }
        int64_t size = rp_size(C, a, MAX_ITEMS, where);
        if (C->err) return rv_null();
        __int128 items = (__int128)n * size;
        if (items > MAX_ITEMS) { rp_bail(C, RP_BAIL_RULE, "repetition too long", where); return rv_null(); }
        if (!rp_built(C, (int64_t)items, where)) return rv_null();
        rp_list *l = rp_list_new(C, n * x->len);
        if (!l) return rv_null();
        for (int64_t k = 0; k < n; k++)
            for (int64_t i = 0; i < x->len; i++) {
                l->items[l->len++] = rp_clone(C, x->items[i]);
                if (C->err) { rp_list_free(l); return rv_null(); }
            }
        return rv_list(l);
    }
    rp_bail(C, RP_BAIL_RULE, "operand types", where);
    return rv_null();
}

rv rp_negate(rp_ctx *C, rv a, int32_t where)
{
    if (a.t == T_INT) {
        if (a.u.i == INT64_MIN) { rp_bail(C, RP_BAIL_NATIVE, "an int past 64 bits", where); return rv_null(); }
        return rv_int(-a.u.i);
    }
    if (a.t == T_FLT) return rv_flt(-a.u.f);
    rp_bail(C, RP_BAIL_RULE, "cannot negate", where);
    return rv_null();
}

/* ------------------------------------------------------------------ ordering */
static int num_order(rv a, rv b)
{
    if (a.t == T_INT && b.t == T_INT) return (a.u.i > b.u.i) - (a.u.i < b.u.i);
    if (a.t == T_FLT && b.t == T_FLT) return (a.u.f > b.u.f) - (a.u.f < b.u.f);
    if (a.t == T_INT) return rp_cmp_int_flt(a.u.i, b.u.f);
    return -rp_cmp_int_flt(b.u.i, a.u.f);
}

int rp_order(rp_ctx *C, rv a, rv b, int32_t where)
{
    int na = a.t == T_INT || a.t == T_FLT, nb = b.t == T_INT || b.t == T_FLT;
    if (na && nb) return num_order(a, b);
    if (a.t == T_STR && b.t == T_STR) {
        int64_t c = rp_text_compare(a.u.i, b.u.i);
        return (c > 0) - (c < 0);
    }
    if (a.t == T_LIST && b.t == T_LIST) {
        rp_list *x = a.u.l, *y = b.u.l;
        int64_t n = x->len < y->len ? x->len : y->len;
        for (int64_t i = 0; i < n; i++)
            if (!rp_equal(x->items[i], y->items[i])) return rp_order(C, x->items[i], y->items[i], where);
        return (x->len > y->len) - (x->len < y->len);
    }
    rp_bail(C, RP_BAIL_RULE, "items that do not compare", where);
    return 0;
}

int rp_compare(rp_ctx *C, int op, rv a, rv b, int32_t where)
{
    int na = a.t == T_INT || a.t == T_FLT, nb = b.t == T_INT || b.t == T_FLT;
    if (!((na && nb) || (a.t == b.t && (a.t == T_STR || a.t == T_LIST)))) {
        rp_bail(C, RP_BAIL_RULE, "cannot compare", where);
        return -1;
    }
    if (a.t == T_LIST && !rp_scan(C, a, where)) return -1;
    int c = rp_order(C, a, b, where);
    if (C->err) return -1;
    switch (op) {
    case OP_LT: return c < 0;
    case OP_LE: return c <= 0;
    case OP_GT: return c > 0;
    default: return c >= 0;
    }
}

int rp_contains(rp_ctx *C, rv container, rv item, int32_t where)
{
    if (container.t == T_LIST) {
        if (!rp_scan(C, container, where)) return -1;
        rp_list *l = container.u.l;
        for (int64_t i = 0; i < l->len; i++)
            if (rp_equal(item, l->items[i])) return 1;
        return 0;
    }
    if (container.t == T_MAP) return item.t == T_STR && rp_map_find(container.u.m, item.u.i) >= 0;
    if (container.t == T_STR && item.t == T_STR) {
        rp_text hay = rp_text_of(container.u.i), needle = rp_text_of(item.u.i);
        if (!rp_spend(C, hay.nchars, where)) return -1;
        if (needle.nbytes == 1) return memchr(hay.bytes, needle.bytes[0], (size_t)hay.nbytes) != NULL;   /* a mark in a map's text */
        for (int64_t at = 0; at + needle.nbytes <= hay.nbytes; at++)
            if (memcmp(hay.bytes + at, needle.bytes, (size_t)needle.nbytes) == 0) return 1;
        return 0;
    }
    rp_bail(C, RP_BAIL_RULE, "`in` needs a list, map or string", where);
    return -1;
}

/* ------------------------------------------------------------------ texts by characters */
/* The byte offset of character `k` of a text (k may be its length: the end). */
static int64_t char_offset(rp_text t, int64_t k)
{
    if (t.nchars == t.nbytes) return k;
    int64_t at = 0;
    for (int64_t seen = 0; at < t.nbytes; at++) {
        if (((unsigned char)t.bytes[at] & 0xC0) != 0x80) {
            if (seen == k) return at;
            seen++;
        }
    }
    return at;
}

static rv text_part(rp_ctx *C, int64_t id, int64_t from, int64_t to)
{
    rp_text t = rp_text_of(id);
    int64_t a = char_offset(t, from), b = char_offset(t, to);
    int64_t out = rp_intern(C, t.bytes + a, b - a);
    return out < 0 ? rv_null() : rv_str(out);
}

/* ------------------------------------------------------------------ reading parts of values */
rv rp_index(rp_ctx *C, rv obj, rv key, int32_t where)
{
    if (obj.t == T_STR && key.t == T_INT) {   /* a character of an ASCII text, the short way */
        int64_t id = rp_ascii_char(obj.u.i, key.u.i);
        if (id >= 0) return rv_str(id);
    }
    if (obj.t == T_LIST || obj.t == T_STR) {
        if (key.t != T_INT) { rp_bail(C, RP_BAIL_RULE, "index type", where); return rv_null(); }
        rp_text t = obj.t == T_STR ? rp_text_of(obj.u.i) : (rp_text){0};
        int64_t n = obj.t == T_LIST ? obj.u.l->len : t.nchars;
        int64_t k = key.u.i;
        if (k < -n || k >= n) { rp_bail(C, RP_BAIL_RULE, "index out of range", where); return rv_null(); }
        if (k < 0) k += n;
        if (obj.t == T_LIST) return obj.u.l->items[k];
        /* an interned text: borrowed or not, it needs no drop; a character of an ASCII text is its byte k */
        if (t.nchars == t.nbytes) {
            int64_t id = rp_intern(C, t.bytes + k, 1);
            return id < 0 ? rv_null() : rv_str(id);
        }
        return text_part(C, obj.u.i, k, k + 1);
    }
    if (obj.t == T_MAP) {
        if (key.t != T_STR) { rp_bail(C, RP_BAIL_RULE, "map key type", where); return rv_null(); }
        int64_t at = rp_map_find(obj.u.m, key.u.i);
        if (at < 0) { rp_bail(C, RP_BAIL_RULE, "no such key", where); return rv_null(); }
        return obj.u.m->vals[at];
    }
    rp_bail(C, RP_BAIL_RULE, "cannot index", where);
    return rv_null();
}

static int64_t clamp_bound(rv b, int64_t n, int64_t dflt)
{
    if (b.t == T_NULL) return dflt;
    int64_t k = b.u.i;
    if (k < 0) { k += n; if (k < 0) k = 0; }
    else if (k > n) k = n;
    return k;
}

rv rp_slice(rp_ctx *C, rv obj, rv lo, rv hi, int32_t where)
{
    if (obj.t != T_LIST && obj.t != T_STR) { rp_bail(C, RP_BAIL_RULE, "cannot slice", where); return rv_null(); }
    if ((lo.t != T_NULL && lo.t != T_INT) || (hi.t != T_NULL && hi.t != T_INT)) {
        rp_bail(C, RP_BAIL_RULE, "slice bounds", where);
        return rv_null();
    }
    int64_t n = obj.t == T_LIST ? obj.u.l->len : rp_text_of(obj.u.i).nchars;
    int64_t a = clamp_bound(lo, n, 0), b = clamp_bound(hi, n, n);
    int64_t len = b > a ? b - a : 0;
    if (!rp_built(C, len, where)) return rv_null();
    if (obj.t == T_STR) return len ? text_part(C, obj.u.i, a, b) : rv_str(RP_EMPTY_TEXT);
    rp_list *l = rp_list_new(C, len);
    if (!l) return rv_null();
    for (int64_t i = 0; i < len; i++) l->items[i] = rv_ref(obj.u.l->items[a + i]);
    l->len = len;
    return rv_list(l);
}

rv rp_map_field(rp_ctx *C, rv obj, int64_t name, int32_t where)
{
    if (obj.t == T_MAP) {
        int64_t at = rp_map_find(obj.u.m, name);
        if (at >= 0) return obj.u.m->vals[at];
        rp_bail(C, RP_BAIL_RULE, "no such field", where);
        return rv_null();
    }
    rp_bail(C, RP_BAIL_RULE, "no field", where);
    return rv_null();
}

rv rp_field(rp_ctx *C, rv obj, int64_t name, int32_t where)
{
    if (obj.t == T_MAP) return rv_ref(rp_map_field(C, obj, name, where));
    if (obj.t == T_STR) {
        const rp_model *M = C->M;
        int32_t c = obj.u.i < M->ncomponent_texts ? M->component_of_text[obj.u.i] : -1;
        if (c < 0) { rp_bail(C, RP_BAIL_RULE, "not a component", where); return rv_null(); }
        for (int32_t p = 0; p < M->nprops; p++) {
            if (M->prop_names[p] != name) continue;
            rv v = M->props[(int64_t)p * M->ncomponents + c];
            if (v.t == T_NULL && v.pad) break;
            return rp_copy(C, v, where);
        }
        rp_bail(C, RP_BAIL_RULE, "no such property", where);
        return rv_null();
    }
    rp_bail(C, RP_BAIL_RULE, "no field", where);
    return rv_null();
}

rv rp_iterate_any(rp_ctx *C, rv v, int32_t where)
{
    if (v.t == T_LIST) {
        if (!rp_spend(C, v.u.l->len, where)) return rv_null();
        return rv_ref(v);
    }
    if (v.t == T_MAP) {
        if (!rp_spend(C, v.u.m->len, where)) return rv_null();
        return rp_map_sorted_keys(C, v.u.m);
    }
    if (v.t == T_STR) {
        rp_text t = rp_text_of(v.u.i);
        if (!rp_spend(C, t.nchars, where)) return rv_null();
        rp_list *l = rp_list_new(C, t.nchars);
        if (!l) return rv_null();
        for (int64_t k = 0; k < t.nchars; k++) {
            rv c = text_part(C, v.u.i, k, k + 1);
            if (C->err) { rp_list_free(l); return rv_null(); }
            l->items[l->len++] = c;
        }
        return rv_list(l);
    }
    rp_bail(C, RP_BAIL_RULE, "cannot iterate", where);
    return rv_null();
}

int rp_unpack(rp_ctx *C, rv item, int64_t count, int32_t where)
{
    if (item.t != T_LIST || item.u.l->len != count) { rp_bail(C, RP_BAIL_RULE, "cannot unpack", where); return 0; }
    return 1;
}

/* ------------------------------------------------------------------ statements */
int rp_assign_item(rp_ctx *C, rv obj, rv key, rv value, int32_t where)
{
    if (obj.t == T_LIST) {
        int64_t n = obj.u.l->len;
        if (key.t != T_INT || key.u.i < -n || key.u.i >= n) {
            rp_bail(C, RP_BAIL_RULE, "cannot assign at that index", where);
            rv_drop(value);
            return 0;
        }
        int64_t k = key.u.i < 0 ? key.u.i + n : key.u.i;
        rv_set(&obj.u.l->items[k], value);
        return 1;
    }
    if (obj.t == T_MAP) {
        if (key.t != T_STR) { rp_bail(C, RP_BAIL_RULE, "map key type", where); rv_drop(value); return 0; }
        return rp_map_put(C, obj.u.m, key.u.i, value);
    }
    rp_bail(C, RP_BAIL_RULE, "cannot assign into that", where);
    rv_drop(value);
    return 0;
}

rp_list *rp_checked_list(rp_ctx *C, rv v, int32_t where)
{
    if (v.t != T_LIST) { rp_bail(C, RP_BAIL_RULE, "not a list", where); return NULL; }
    return v.u.l;
}

rv rp_take(rp_ctx *C, rp_list *l, rv item, int32_t where)
{
    if (!rp_scan(C, rv_list(l), where)) return rv_null();
    for (int64_t i = 0; i < l->len; i++) {
        if (rp_equal(l->items[i], item)) {
            rv out = l->items[i];
            memmove(l->items + i, l->items + i + 1, (size_t)(l->len - i - 1) * sizeof(rv));
            l->len--;
            return out;
        }
    }
    rp_bail(C, RP_BAIL_RULE, "not in the list", where);
    return rv_null();
}

int rp_prepend(rp_ctx *C, rp_list *l, rv item, int32_t where)
{
    if (!rp_spend(C, l->len, where)) { rv_drop(item); return 0; }
    return rp_list_insert0(C, l, item);
}

int rp_shuffle(rp_ctx *C, rp_list *l, int32_t where)
{
    if (!rp_spend(C, l->len, where)) return 0;
    C->drew = 1;
    for (int64_t i = l->len - 1; i > 0; i--) {
        int64_t j = (int64_t)rp_below(&C->rng, (uint64_t)i + 1);
        rv t = l->items[i]; l->items[i] = l->items[j]; l->items[j] = t;
    }
    return 1;
}

rv rp_draw_take(rp_ctx *C, rv n, rp_list *src, int32_t where)
{
    if (n.t != T_INT || n.u.i < 0) { rp_bail(C, RP_BAIL_RULE, "draw count", where); return rv_null(); }
    int64_t k = n.u.i;
    if (k > src->len) { rp_bail(C, RP_BAIL_RULE, "not enough to draw", where); return rv_null(); }
    if (!rp_spend(C, src->len, where)) return rv_null();
    rp_list *taken = rp_list_new(C, k);
    if (!taken) return rv_null();
    rp_memcpy(taken->items, src->items, (size_t)k * sizeof(rv));
    taken->len = k;
    memmove(src->items, src->items + k, (size_t)(src->len - k) * sizeof(rv));
    src->len -= k;
    return rv_list(taken);
}

int rp_extend(rp_ctx *C, rp_list *dst, rv items)
{
    rp_list *l = items.u.l;
    for (int64_t i = 0; i < l->len; i++)
        if (!rp_list_push(C, dst, rv_ref(l->items[i]))) return 0;
    return 1;
}

rv rp_iterate_copy(rp_ctx *C, rv v, int32_t where)
{
    rv items = rp_iterate(C, v, where);
    if (C->err || v.t != T_LIST) return items;
    rp_list *l = rp_list_copy_shallow(C, items.u.l);
    rv_drop(items);
    return l ? rv_list(l) : rv_null();
}

int64_t rp_repeat_count(rp_ctx *C, rv n, int32_t where)
{
    if (n.t != T_INT || n.u.i < 0) { rp_bail(C, RP_BAIL_RULE, "repeat count", where); return -1; }
    return n.u.i;
}

/* rp_fire when the log is full: it doubles. */
int rp_fire_grow(rp_ctx *C, int32_t rule)
{
    int32_t cap = C->cfired ? C->cfired * 2 : 16;
    int32_t *f = realloc(C->fired, (size_t)cap * sizeof(int32_t));
    if (!f) { rp_bail(C, RP_BAIL_MEMORY, "out of memory", -1); return 0; }
    C->fired = f; C->cfired = cap;
    C->fired[C->nfired++] = rule;
    return 1;
}

/* ------------------------------------------------------------------ text forms (str, join) */
/* Python's repr of a float, whose digits are the shortest that read back to it.  The shortest correctly
 * rounded digits read back exactly when the float's rounding interval is symmetric, which it is for every
 * float but a power of two; for those the text is left to the Python engine. */
int rp_float_text(rp_ctx *C, double f, char *out, int32_t where)
{
    if (f == 0.0) { strcpy(out, signbit(f) ? "-0.0" : "0.0"); return 1; }
    int e2;
    double m = frexp(f, &e2);
    if (fabs(m) == 0.5) { rp_bail(C, RP_BAIL_NATIVE, "text of a power of two", where); return 0; }
    char buf[40];
    int p;
    for (p = 1; p <= 17; p++) {
        snprintf(buf, sizeof buf, "%.*e", p - 1, f);
        if (strtod(buf, NULL) == f) break;
    }
    /* buf: [-]d[.ddd]e[+-]xx */
    char digits[24]; int nd = 0; int neg = buf[0] == '-';
    const char *s = buf + neg;
    for (; *s && *s != 'e'; s++) if (*s != '.') digits[nd++] = *s;
    while (nd > 1 && digits[nd - 1] == '0') nd--;
    int exp10 = atoi(s + 1);
    int decpt = exp10 + 1;
    char *o = out;
    if (neg) *o++ = '-';
    if (decpt <= -4 || decpt > 16) {
        *o++ = digits[0];
        if (nd > 1) { *o++ = '.'; rp_memcpy(o, digits + 1, (size_t)nd - 1); o += nd - 1; }
        sprintf(o, "e%c%02d", exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
        return 1;
    }
    if (decpt <= 0) {
        *o++ = '0'; *o++ = '.';
        for (int k = 0; k < -decpt; k++) *o++ = '0';
        rp_memcpy(o, digits, (size_t)nd); o += nd;
    } else if (decpt >= nd) {
        rp_memcpy(o, digits, (size_t)nd); o += nd;
        for (int k = 0; k < decpt - nd; k++) *o++ = '0';
        *o++ = '.'; *o++ = '0';
    } else {
        rp_memcpy(o, digits, (size_t)decpt); o += decpt;
        *o++ = '.';
        rp_memcpy(o, digits + decpt, (size_t)(nd - decpt)); o += nd - decpt;
    }
    *o = 0;
    return 1;
}

/* ------------------------------------------------------------------ loops without the list */
/* `for x in range(...)`: the range's checks and charges (built, then walked), without making the list.
 * The number of items, or -1 with a bail; `*lo` gets the first. */
int64_t rp_range_loop(rp_ctx *C, rv a, rv b, int32_t nargs, int64_t *lo, int32_t where)
{
    int64_t first = 0, last;
    if (nargs == 1) {
        if (a.t != T_INT) { rp_bail(C, RP_BAIL_RULE, "range() needs ints", where); return -1; }
        last = a.u.i;
    } else {
        if (a.t != T_INT || b.t != T_INT) { rp_bail(C, RP_BAIL_RULE, "range() needs ints", where); return -1; }
        first = a.u.i; last = b.u.i;
    }
    __int128 n = (__int128)last - first;
    if (n > MAX_ITEMS) { rp_bail(C, RP_BAIL_RULE, "range() too long", where); return -1; }
    if (n < 0) n = 0;
    *lo = first;
    return rp_built(C, (int64_t)n, where) && rp_spend(C, (int64_t)n, where) ? (int64_t)n : -1;
}

/* rp_iterate_view_try's loop off its common case: what rp_iterate walks, held (a new reference), its items and
 * their number in `*walk` and `*count`. */
rv rp_iterate_view(rp_ctx *C, rv v, const rv **walk, int64_t *count, int32_t where)
{
    rv held = rp_iterate(C, v, where);
    if (C->err) return rv_null();
    *walk = held.u.l->items;
    *count = held.u.l->len;
    return held;
}

/* A comprehension over `obj[lo:hi]`: a list's slice is walked where it lies (charged as made and walked);
 * a text's is made (its characters), and handed back to be dropped.  `*items` and `*n` are what to walk. */
rv rp_slice_view(rp_ctx *C, rv obj, rv lo, rv hi, const rv **items, int64_t *n, int32_t where)
{
    *items = NULL;
    *n = 0;
    if (obj.t == T_LIST && (lo.t == T_NULL || lo.t == T_INT) && (hi.t == T_NULL || hi.t == T_INT)) {
        int64_t len = obj.u.l->len;
        int64_t a = lo.t == T_NULL ? 0 : lo.u.i, b = hi.t == T_NULL ? len : hi.u.i;
        if (a < 0) { a += len; if (a < 0) a = 0; } else if (a > len) a = len;
        if (b < 0) { b += len; if (b < 0) b = 0; } else if (b > len) b = len;
        int64_t count = b > a ? b - a : 0;
        if (!rp_built(C, count, where) || !rp_spend(C, count, where)) return rv_null();
        *items = obj.u.l->items + a;
        *n = count;
        return rv_null();
    }
    rv part = rp_slice(C, obj, lo, hi, where);
    if (C->err) return rv_null();
    rv walked = rp_iterate(C, part, where);
    rv_drop(part);
    if (C->err) return rv_null();
    *items = walked.u.l->items;
    *n = walked.u.l->len;
    return walked;
}

/* The seats an `announce ... to` names: a seat or a list of seats, each 0..players-1. */
int rp_seats_check(rp_ctx *C, rv to, int32_t where)
{
    const rv *items = to.t == T_LIST ? to.u.l->items : &to;
    int64_t n = to.t == T_LIST ? to.u.l->len : 1;
    for (int64_t i = 0; i < n; i++)
        if (items[i].t != T_INT || items[i].u.i < 0 || items[i].u.i >= C->S->flow.players) {
            rp_bail(C, RP_BAIL_RULE, "announce to no seat", where);
            return 0;
        }
    return 1;
}
