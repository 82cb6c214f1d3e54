/* The builtin functions of the rules language: the C counterpart of dsl/builtins.py, called through
 * `rp_call_builtin`, which charges a call's work as `dsl.builtins.invoke` does. */
#include "rp.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_ITEMS RP_MAX_ITEMS
#define MAX_TEXT 100000

int rp_cmp_int_flt(int64_t i, double f);
int rp_float_text(rp_ctx *C, double f, char *out, int32_t where);

/* linear, prepaid, sorts: as each builtin's flags in dsl.builtins (checked by the tests) */
static const unsigned char FLAGS[BI__N][3] = {
    [BI_LEN] = {0, 0, 0}, [BI_RANGE] = {1, 1, 0}, [BI_SUM] = {1, 0, 0}, [BI_MIN] = {1, 0, 0},
    [BI_MAX] = {1, 0, 0}, [BI_ABS] = {1, 0, 0}, [BI_ANY] = {1, 0, 0}, [BI_ALL] = {1, 0, 0},
    [BI_SORTED] = {1, 0, 1}, [BI_REVERSED] = {1, 0, 0}, [BI_COUNT] = {1, 0, 0}, [BI_INDEX_OF] = {1, 0, 0},
    [BI_INDEX_WHERE] = {1, 0, 0},
    [BI_UNIQUE] = {1, 0, 0}, [BI_FLATTEN] = {1, 0, 0}, [BI_STR] = {0, 0, 0}, [BI_JOIN] = {1, 1, 0},
    [BI_INT] = {1, 0, 0}, [BI_KEYS] = {1, 0, 1}, [BI_VALUES] = {1, 0, 1}, [BI_GET] = {0, 0, 0},
    [BI_ZIP] = {1, 0, 0}, [BI_REPEAT] = {1, 1, 0}, [BI_ENUMERATE] = {1, 0, 0}, [BI_ARGMAX] = {1, 0, 0},
    [BI_ARGMIN] = {1, 0, 0}, [BI_LEADER] = {1, 0, 0}, [BI_RANKS] = {1, 0, 1}, [BI_COMPONENTS] = {1, 1, 0},
    [BI_KIND] = {1, 0, 0}, [BI_IS_COMPONENT] = {1, 0, 0}, [BI_SEATS] = {1, 0, 0}, [BI_NEXT_SEAT] = {1, 0, 0},
    [BI_OTHERS] = {1, 0, 0}, [BI_CELLS] = {1, 1, 0}, [BI_CELL] = {1, 0, 0}, [BI_XY] = {1, 0, 0},
    [BI_STEP] = {1, 0, 0}, [BI_RAY] = {1, 0, 0}, [BI_NEIGHBORS] = {1, 0, 0}, [BI_DIRS] = {1, 0, 0},
    [BI_DIR_VEC] = {1, 0, 0}, [BI_PERIMETER] = {1, 0, 0}, [BI_LINE_OF] = {1, 0, 0}, [BI_OFFSET] = {1, 0, 0},
    [BI_AREA] = {1, 1, 0}, [BI_FLOOD] = {1, 1, 0}, [BI_ADJACENT] = {1, 1, 0}, [BI_NODES] = {1, 1, 0},
    [BI_REACHABLE] = {1, 1, 0}, [BI_DISTANCE] = {1, 0, 0}, [BI_REACHABLE_VIA] = {1, 0, 0},
    [BI_DISTANCE_VIA] = {1, 0, 0},
};

int rp_builtin_flags(int32_t builtin, int32_t which) { return FLAGS[builtin][which]; }

static rv fail(rp_ctx *C, int32_t where) { rp_bail(C, RP_BAIL_RULE, "builtin refused its arguments", where); return rv_null(); }

static rp_list *new_list(rp_ctx *C, int64_t cap) { return rp_list_new(C, cap); }

static int is_num(rv v) { return v.t == T_INT || v.t == T_FLT; }

static int num_less(rv a, rv b)   /* a < b for two numbers, exactly */
{
    if (a.t == T_INT && b.t == T_INT) return a.u.i < b.u.i;
    if (a.t == T_FLT && b.t == T_FLT) return a.u.f < b.u.f;
    if (a.t == T_INT) return rp_cmp_int_flt(a.u.i, b.u.f) < 0;
    return rp_cmp_int_flt(b.u.i, a.u.f) > 0;
}

static int numbers(rp_list *l)
{
    for (int64_t i = 0; i < l->len; i++) if (!is_num(l->items[i])) return 0;
    return 1;
}

static rv pair(rp_ctx *C, rv a, rv b)
{
    rp_list *l = new_list(C, 2);
    if (!l) return rv_null();
    l->items[0] = rv_ref(a); l->items[1] = rv_ref(b); l->len = 2;
    return rv_list(l);
}

static rv int_list(rp_ctx *C, const int64_t *xs, int64_t n)
{
    rp_list *l = new_list(C, n);
    if (!l) return rv_null();
    for (int64_t i = 0; i < n; i++) l->items[i] = rv_int(xs[i]);
    l->len = n;
    return rv_list(l);
}

/* ------------------------------------------------------------------ stable merge sort of values */
typedef int (*less_fn)(rp_ctx *C, rv a, rv b, int32_t where);

static int less_num(rp_ctx *C, rv a, rv b, int32_t where) { (void)C; (void)where; return num_less(a, b); }
static int less_text(rp_ctx *C, rv a, rv b, int32_t where) { (void)C; (void)where; return rp_text_compare(a.u.i, b.u.i) < 0; }
static int less_list(rp_ctx *C, rv a, rv b, int32_t where) { return rp_order(C, a, b, where) < 0; }

static void merge_sort(rp_ctx *C, rv *xs, rv *tmp, int64_t n, less_fn less, int32_t where)
{
    if (n < 2 || C->err) return;
    int64_t h = n / 2;
    merge_sort(C, xs, tmp, h, less, where);
    merge_sort(C, xs + h, tmp, n - h, less, where);
    int64_t i = 0, j = h, k = 0;
    while (i < h && j < n) {
        if (less(C, xs[j], xs[i], where)) tmp[k++] = xs[j++];   /* take the right only when strictly less */
        else tmp[k++] = xs[i++];
    }
    while (i < h) tmp[k++] = xs[i++];
    while (j < n) tmp[k++] = xs[j++];
    rp_memcpy(xs, tmp, (size_t)n * sizeof(rv));
}

/* A sorted copy of a list (shared items), or null with a bail. */
static rv sorted_copy(rp_ctx *C, rp_list *src, int32_t where)
{
    less_fn less = NULL;
    int all_num = 1, all_text = 1, all_list = 1;
    for (int64_t i = 0; i < src->len; i++) {
        int t = src->items[i].t;
        all_num &= t == T_INT || t == T_FLT;
        all_text &= t == T_STR;
        all_list &= t == T_LIST;
    }
    if (all_num) less = less_num;
    else if (all_text) less = less_text;
    else if (all_list) less = less_list;
    else return fail(C, where);
    rp_list *l = rp_list_copy_shallow(C, src);
    if (!l) return rv_null();
    rv *tmp = malloc((size_t)(l->len ? l->len : 1) * sizeof(rv));
    if (!tmp) { rp_list_free(l); rp_bail(C, RP_BAIL_MEMORY, "out of memory", where); return rv_null(); }
    merge_sort(C, l->items, tmp, l->len, less, where);
    free(tmp);
    if (C->err) { rp_list_free(l); return rv_null(); }
    return rv_list(l);
}

/* ------------------------------------------------------------------ general */
rv rp_len(rp_ctx *C, rv x, int32_t where)
{
    if (x.t == T_LIST) return rv_int(x.u.l->len);
    if (x.t == T_MAP) return rv_int(x.u.m->len);
    if (x.t == T_STR) return rv_int(rp_text_of(x.u.i).nchars);
    return fail(C, where);
}

rv rp_range(rp_ctx *C, rv a, rv b, int32_t nargs, int32_t where)
{
    int64_t lo = 0, hi;
    if (nargs == 1) { if (a.t != T_INT) return fail(C, where); hi = a.u.i; }
    else {
        if (a.t != T_INT || b.t != T_INT) return fail(C, where);
        lo = a.u.i; hi = b.u.i;
    }
    __int128 n = (__int128)hi - lo;
    if (n > MAX_ITEMS) return fail(C, where);
    if (n < 0) n = 0;
    if (!rp_built(C, (int64_t)n, where)) return rv_null();
    rp_list *l = new_list(C, (int64_t)n);
    if (!l) return rv_null();
    for (int64_t i = 0; i < (int64_t)n; i++) l->items[i] = rv_int(lo + i);
    l->len = (int64_t)n;
    return rv_list(l);
}

int rp_sum_add(rp_ctx *C, rp_sum *acc, rv x, int32_t where)
{
    if (x.t == T_INT) {
        if (!acc->floats) {
            if (__builtin_add_overflow(acc->i, x.u.i, &acc->i)) {
                rp_bail(C, RP_BAIL_NATIVE, "an int past 64 bits", where);
                return 0;
            }
        } else {
            acc->f += (double)x.u.i;
        }
        return 1;
    }
    if (x.t != T_FLT) { fail(C, where); return 0; }
    if (!acc->floats) {   /* Python adds the int so far to the first float */
        acc->floats = 1;
        acc->f = (double)acc->i + x.u.f;
        acc->c = 0.0;
    } else if (C->M->sum_compensated) {   /* Neumaier's compensated sum, as Python 3.12 and later */
        double t = acc->f + x.u.f;
        if (fabs(acc->f) >= fabs(x.u.f)) acc->c += (acc->f - t) + x.u.f;
        else acc->c += (x.u.f - t) + acc->f;
        acc->f = t;
    } else {
        acc->f += x.u.f;
    }
    return 1;
}

rv rp_sum_result(rp_ctx *C, const rp_sum *acc, int32_t where)
{
    if (!acc->floats) return rv_int(acc->i);
    double f = acc->f;
    if (acc->c != 0.0 && isfinite(acc->c)) f += acc->c;
    if (!isfinite(f)) return rp_number_error(C, where);
    return rv_flt(f);
}

static rv b_sum(rp_ctx *C, rv xs, int32_t where)
{
    if (xs.t != T_LIST || !numbers(xs.u.l)) return fail(C, where);
    rp_sum acc = {0, 0.0, 0.0, 0};
    for (int64_t i = 0; i < xs.u.l->len; i++)
        if (!rp_sum_add(C, &acc, xs.u.l->items[i], where)) return rv_null();
    return rp_sum_result(C, &acc, where);
}

int rp_fold_add_any(rp_ctx *C, rp_fold *acc, rv x, int largest, int32_t where)
{
    acc->count++;
    acc->size++;
    if (rv_is_container(x)) {
        int64_t n = rp_size_nested(C, x, 1, where);
        if (C->err) return 0;
        acc->size += n;
    }
    if (!is_num(x)) { acc->bad = 1; return 1; }   /* max() and min() refuse it once the list is made */
    if (acc->count == 1 || (largest ? num_less(acc->best, x) : num_less(x, acc->best))) acc->best = x;
    return 1;
}

static rv b_minmax(rp_ctx *C, const rv *args, int32_t nargs, int largest, int32_t where)
{
    const rv *xs; int64_t n;
    if (nargs == 1) {
        if (args[0].t != T_LIST) return fail(C, where);
        xs = args[0].u.l->items; n = args[0].u.l->len;
    } else {
        xs = args; n = 2;
    }
    if (n == 0) return fail(C, where);
    for (int64_t i = 0; i < n; i++) if (!is_num(xs[i])) return fail(C, where);
    rv best = xs[0];
    for (int64_t i = 1; i < n; i++)
        if (largest ? num_less(best, xs[i]) : num_less(xs[i], best)) best = xs[i];
    return best;
}

static rv b_abs(rp_ctx *C, rv x, int32_t where)
{
    if (x.t == T_INT) {
        if (x.u.i == INT64_MIN) { rp_bail(C, RP_BAIL_NATIVE, "an int past 64 bits", where); return rv_null(); }
        return rv_int(x.u.i < 0 ? -x.u.i : x.u.i);
    }
    if (x.t == T_FLT) return rv_flt(fabs(x.u.f));
    return fail(C, where);
}

static rv b_anyall(rp_ctx *C, rv xs, int want, int32_t where)
{
    if (xs.t != T_LIST) return fail(C, where);
    for (int64_t i = 0; i < xs.u.l->len; i++)
        if (rp_truthy(xs.u.l->items[i]) == want) return rv_bool(want);
    return rv_bool(!want);
}

static rv b_reversed(rp_ctx *C, rv xs, int32_t where)
{
    if (xs.t != T_LIST) return fail(C, where);
    rp_list *src = xs.u.l, *l = new_list(C, src->len);
    if (!l) return rv_null();
    for (int64_t i = 0; i < src->len; i++) l->items[i] = rv_ref(src->items[src->len - 1 - i]);
    l->len = src->len;
    return rv_list(l);
}

static rv b_count(rp_ctx *C, rv xs, rv value, int32_t where)
{
    if (xs.t != T_LIST) return fail(C, where);
    int64_t n = 0;
    for (int64_t i = 0; i < xs.u.l->len; i++) n += rp_equal(xs.u.l->items[i], value);
    return rv_int(n);
}

static rv b_index_of(rp_ctx *C, rv xs, rv value, int32_t where)
{
    if (xs.t != T_LIST) return fail(C, where);
    for (int64_t i = 0; i < xs.u.l->len; i++)
        if (rp_equal(xs.u.l->items[i], value)) return rv_int(i);
    return rv_int(-1);
}

static rv b_index_where(rp_ctx *C, rv xs, int32_t where)
{
    if (xs.t != T_LIST) return fail(C, where);
    for (int64_t i = 0; i < xs.u.l->len; i++)
        if (rp_truthy(xs.u.l->items[i])) return rv_int(i);
    return rv_int(-1);
}

static rv b_unique(rp_ctx *C, rv xs, int32_t where)
{
    if (xs.t != T_LIST) return fail(C, where);
    rp_list *src = xs.u.l, *l = new_list(C, src->len);
    if (!l) return rv_null();
    for (int64_t i = 0; i < src->len; i++) {
        int seen = 0;
        for (int64_t j = 0; j < l->len && !seen; j++) seen = rp_equal(l->items[j], src->items[i]);
        if (!seen) l->items[l->len++] = rv_ref(src->items[i]);
    }
    return rv_list(l);
}

static rv b_flatten(rp_ctx *C, rv xs, int32_t where)
{
    if (xs.t != T_LIST) return fail(C, where);
    rp_list *src = xs.u.l;
    int64_t total = 0;
    for (int64_t i = 0; i < src->len; i++) {
        if (src->items[i].t != T_LIST) return fail(C, where);
        total += src->items[i].u.l->len;
    }
    if (total > MAX_ITEMS) { rp_bail(C, RP_BAIL_LIMIT, "flatten too long", where); return rv_null(); }
    rp_list *l = new_list(C, total);
    if (!l) return rv_null();
    for (int64_t i = 0; i < src->len; i++) {
        rp_list *part = src->items[i].u.l;
        for (int64_t j = 0; j < part->len; j++) l->items[l->len++] = rv_ref(part->items[j]);
    }
    return rv_list(l);
}

/* An int's decimal digits (Python's str of it) written at the end of `tmp`: where they start. */
static char *int_text(int64_t x, char *end)
{
    uint64_t u = x < 0 ? 0 - (uint64_t)x : (uint64_t)x;
    char *at = end;
    do { *--at = (char)('0' + u % 10); u /= 10; } while (u);
    if (x < 0) *--at = '-';
    return at;
}

/* The text form of a scalar (str's): appended to `buf` of `cap` bytes; -1 when it does not fit. */
static int64_t text_form(rp_ctx *C, rv x, char *buf, int64_t cap, int32_t where)
{
    char tmp[64];
    const char *s = tmp;
    int64_t n;
    switch (x.t) {
    case T_NULL: s = "null"; n = 4; break;
    case T_BOOL: s = x.u.i ? "true" : "false"; n = x.u.i ? 4 : 5; break;
    case T_INT: s = int_text(x.u.i, tmp + sizeof tmp); n = tmp + sizeof tmp - s; break;
    case T_FLT: if (!rp_float_text(C, x.u.f, tmp, where)) return -1; n = (int64_t)strlen(tmp); break;
    case T_STR: { rp_text t = rp_text_of(x.u.i); s = t.bytes; n = t.nbytes; break; }
    case T_LIST: s = "list"; n = 4; break;
    default: s = "map"; n = 3; break;
    }
    if (buf) {
        if (n > cap) return -1;
        rp_memcpy(buf, s, (size_t)n);
    }
    return n;
}

static rv b_str(rp_ctx *C, rv x, int32_t where)
{
    if (x.t == T_STR) return x;
    char tmp[64];
    int64_t n = text_form(C, x, tmp, sizeof tmp, where);
    if (n < 0) return rv_null();
    int64_t id = rp_intern(C, tmp, n);
    return id < 0 ? rv_null() : rv_str(id);
}

/* The characters of str(x), or -1 on a bail: what b_str would make, unmade. */
int64_t rp_str_chars(rp_ctx *C, rv x, int32_t where)
{
    if (x.t == T_STR) return rp_text_of(x.u.i).nchars;
    return text_form(C, x, NULL, 0, where);   /* ASCII: a character a byte */
}

/* join's checks and charge of the text it makes, unmade: its characters (and bytes), or -1 on a bail. */
static int64_t join_measure(rp_ctx *C, const rv *args, int32_t nargs, int32_t where, int64_t *nbytes)
{
    int64_t sep = nargs > 1 ? -1 : RP_EMPTY_TEXT;
    if (nargs > 1) { if (args[1].t != T_STR) { fail(C, where); return -1; } sep = args[1].u.i; }
    if (args[0].t != T_LIST) { fail(C, where); return -1; }
    rp_list *l = args[0].u.l;
    rp_text s = rp_text_of(sep);
    int64_t chars = 0, bytes = 0;
    for (int64_t i = 0; i < l->len; i++) {
        rv x = l->items[i];
        if (x.t == T_STR) { rp_text t = rp_text_of(x.u.i); chars += t.nchars; bytes += t.nbytes; }
        else { int64_t n = text_form(C, x, NULL, 0, where); if (n < 0) return -1; chars += n; bytes += n; }
    }
    if (l->len > 1) { chars += s.nchars * (l->len - 1); bytes += s.nbytes * (l->len - 1); }
    if (chars > MAX_TEXT) { fail(C, where); return -1; }
    if (!rp_built(C, chars, where)) return -1;
    *nbytes = bytes;
    return chars;
}

static rv b_join(rp_ctx *C, const rv *args, int32_t nargs, int32_t where)
{
    int64_t bytes;
    if (join_measure(C, args, nargs, where, &bytes) < 0) return rv_null();
    rp_list *l = args[0].u.l;
    rp_text s = rp_text_of(nargs > 1 ? args[1].u.i : RP_EMPTY_TEXT);
    char *buf = malloc((size_t)bytes + 1);
    if (!buf) { rp_bail(C, RP_BAIL_MEMORY, "out of memory", where); return rv_null(); }
    int64_t at = 0;
    for (int64_t i = 0; i < l->len; i++) {
        if (i) { rp_memcpy(buf + at, s.bytes, (size_t)s.nbytes); at += s.nbytes; }
        at += text_form(C, l->items[i], buf + at, bytes - at, where);
    }
    int64_t id = rp_intern(C, buf, at);
    free(buf);
    return id < 0 ? rv_null() : rv_str(id);
}

static rv b_int(rp_ctx *C, rv x, int32_t where)
{
    if (x.t == T_INT) return x;
    if (x.t == T_FLT) {
        if (!isfinite(x.u.f)) return fail(C, where);
        double t = trunc(x.u.f);
        if (t >= 9223372036854775808.0 || t < -9223372036854775808.0) {
            rp_bail(C, RP_BAIL_NATIVE, "an int past 64 bits", where);
            return rv_null();
        }
        return rv_int((int64_t)t);
    }
    if (x.t == T_STR) {
        rp_text t = rp_text_of(x.u.i);
        if (t.nchars > 400) return fail(C, where);
        const char *s = t.bytes, *e = t.bytes + t.nbytes;
        while (s < e && (*s == ' ' || (*s >= '\t' && *s <= '\r'))) s++;
        while (e > s && (e[-1] == ' ' || (e[-1] >= '\t' && e[-1] <= '\r'))) e--;
        int neg = 0;
        if (s < e && (*s == '+' || *s == '-')) { neg = *s == '-'; s++; }
        if (s == e) return fail(C, where);
        __int128 v = 0;
        for (const char *p = s; p < e; p++) {
            if (*p < '0' || *p > '9') return fail(C, where);
            v = v * 10 + (*p - '0');
            if (v > ((__int128)1 << 64)) { rp_bail(C, RP_BAIL_NATIVE, "an int past 64 bits", where); return rv_null(); }
        }
        if (neg) v = -v;
        if (v > INT64_MAX || v < INT64_MIN) { rp_bail(C, RP_BAIL_NATIVE, "an int past 64 bits", where); return rv_null(); }
        return rv_int((int64_t)v);
    }
    return fail(C, where);
}

static rv b_values(rp_ctx *C, rv m, int32_t where)
{
    if (m.t != T_MAP) return fail(C, where);
    rv keys = rp_map_sorted_keys(C, m.u.m);
    if (C->err) return rv_null();
    rp_list *l = keys.u.l;
    for (int64_t i = 0; i < l->len; i++)
        l->items[i] = rv_ref(m.u.m->vals[rp_map_find(m.u.m, l->items[i].u.i)]);
    return keys;
}

static rv b_get(rv m, rv key, rv dflt)
{
    if (m.t == T_MAP) {
        if (key.t != T_STR) return rv_ref(dflt);
        int64_t at = rp_map_find(m.u.m, key.u.i);
        return rv_ref(at >= 0 ? m.u.m->vals[at] : dflt);
    }
    if (m.t == T_LIST && key.t == T_INT && key.u.i >= -m.u.l->len && key.u.i < m.u.l->len)
        return rv_ref(m.u.l->items[key.u.i < 0 ? key.u.i + m.u.l->len : key.u.i]);
    return rv_ref(dflt);
}

static rv b_zip(rp_ctx *C, rv a, rv b, int32_t where)
{
    if (a.t != T_LIST || b.t != T_LIST) return fail(C, where);
    int64_t n = a.u.l->len < b.u.l->len ? a.u.l->len : b.u.l->len;
    rp_list *l = new_list(C, n);
    if (!l) return rv_null();
    for (int64_t i = 0; i < n; i++) {
        rv p = pair(C, a.u.l->items[i], b.u.l->items[i]);
        if (C->err) { rp_list_free(l); return rv_null(); }
        l->items[l->len++] = p;
    }
    return rv_list(l);
}

static rv b_repeat(rp_ctx *C, rv value, rv n, int32_t where)
{
    if (n.t != T_INT) return fail(C, where);
    int64_t size = rp_size(C, value, MAX_ITEMS, where);
    if (C->err) return rv_null();
    if (n.u.i < 0) return fail(C, where);
    __int128 items = (__int128)n.u.i * (1 + size);
    if (items > MAX_ITEMS) return fail(C, where);
    if (!rp_built(C, (int64_t)items, where)) return rv_null();
    rp_list *l = new_list(C, n.u.i);
    if (!l) return rv_null();
    for (int64_t i = 0; i < n.u.i; i++) {
        l->items[i] = rp_clone(C, value);
        l->len = i + 1;
        if (C->err) { rp_list_free(l); return rv_null(); }
    }
    return rv_list(l);
}

static rv b_enumerate(rp_ctx *C, rv xs, int32_t where)
{
    if (xs.t != T_LIST) return fail(C, where);
    rp_list *src = xs.u.l, *l = new_list(C, src->len);
    if (!l) return rv_null();
    for (int64_t i = 0; i < src->len; i++) {
        rv p = pair(C, rv_int(i), src->items[i]);
        if (C->err) { rp_list_free(l); return rv_null(); }
        l->items[l->len++] = p;
    }
    return rv_list(l);
}

static rv b_arg(rp_ctx *C, rv xs, int largest, int32_t where)
{
    if (xs.t != T_LIST || !numbers(xs.u.l)) return fail(C, where);
    rp_list *src = xs.u.l, *l = new_list(C, src->len);
    if (!l) return rv_null();
    if (src->len == 0) return rv_list(l);
    rv best = src->items[0];
    for (int64_t i = 1; i < src->len; i++)
        if (largest ? num_less(best, src->items[i]) : num_less(src->items[i], best)) best = src->items[i];
    for (int64_t i = 0; i < src->len; i++)
        if (rp_equal(src->items[i], best)) l->items[l->len++] = rv_int(i);
    return rv_list(l);
}

static rv b_leader(rp_ctx *C, rv xs, int32_t where)
{
    rv top = b_arg(C, xs, 1, where);
    if (C->err) return rv_null();
    rv out = top.u.l->len == 1 ? top.u.l->items[0] : rv_null();
    rv_drop(top);
    return out;
}

static rv b_ranks(rp_ctx *C, rv xs, int32_t where)
{
    if (xs.t != T_LIST || !numbers(xs.u.l)) return fail(C, where);
    rp_list *src = xs.u.l, *l = new_list(C, src->len);
    if (!l) return rv_null();
    for (int64_t i = 0; i < src->len; i++) {
        int64_t above = 0;   /* a value's competition rank: how many items are larger */
        for (int64_t j = 0; j < src->len; j++) above += num_less(src->items[i], src->items[j]);
        l->items[l->len++] = rv_int(above);
    }
    return rv_list(l);
}

/* ------------------------------------------------------------------ components and seats */
static int32_t kind_index(const rp_model *M, rv kind)
{
    if (kind.t != T_STR) return -1;
    for (int32_t k = 0; k < M->nkinds; k++) if (M->kind_names[k] == kind.u.i) return k;
    return -1;
}

static rv b_components(rp_ctx *C, const rv *args, int32_t nargs, int32_t where)
{
    const rp_model *M = C->M;
    const int32_t *ids = M->component_ids;
    int64_t n = M->ncomponents;
    if (nargs == 1) {
        int32_t k = kind_index(M, args[0]);
        if (k < 0) return fail(C, where);
        ids = M->kind_members[k]; n = M->kind_nmembers[k];
    }
    if (!rp_built(C, n, where)) return rv_null();
    rp_list *l = new_list(C, n);
    if (!l) return rv_null();
    for (int64_t i = 0; i < n; i++) l->items[i] = rv_str(nargs == 1 ? M->component_ids[ids[i]] : ids[i]);
    l->len = n;
    return rv_list(l);
}

static int32_t component_of(const rp_model *M, rv item)
{
    if (item.t != T_STR || item.u.i >= M->ncomponent_texts) return -1;
    return M->component_of_text[item.u.i];
}

static int seat_of(rp_ctx *C, rv p, int64_t *out)
{
    if (p.t != T_INT || p.u.i < 0 || p.u.i >= C->S->flow.players) return 0;
    *out = p.u.i;
    return 1;
}

/* ------------------------------------------------------------------ grids */
typedef struct { const int32_t *steps; int32_t n; } stepset;   /* dx, dy pairs */

static const int32_t DIRS[8][2] = {{0, -1}, {1, -1}, {1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}};
static const int32_t SET_ORTHOGONAL[] = {0, -1, 1, 0, 0, 1, -1, 0};
static const int32_t SET_DIAGONAL[] = {1, -1, 1, 1, -1, 1, -1, -1};
static const int32_t SET_KING[] = {0, -1, 1, -1, 1, 0, 1, 1, 0, 1, -1, 1, -1, 0, -1, -1};
static const int32_t SET_KNIGHT[] = {1, -2, 2, -1, 2, 1, 1, 2, -1, 2, -2, 1, -2, -1, -1, -2};
static const int32_t *const NAMED_SETS[4] = {SET_ORTHOGONAL, SET_DIAGONAL, SET_KING, SET_KNIGHT};
static const int32_t NAMED_SET_LEN[4] = {4, 4, 8, 8};

static int32_t board_of(rp_ctx *C, rv name)
{
    const rp_model *M = C->M;
    if (name.t == T_STR)
        for (int32_t b = 0; b < M->nboards; b++) if (M->board_names[b] == name.u.i) return b;
    return -1;
}

/* A direction: a name or [dx, dy] of two ints. */
static int direction(rp_ctx *C, rv d, int64_t *dx, int64_t *dy)
{
    if (d.t == T_STR) {
        for (int k = 0; k < 8; k++)
            if (C->M->dir_names[k] == d.u.i) { *dx = DIRS[k][0]; *dy = DIRS[k][1]; return 1; }
        return 0;
    }
    if (d.t == T_LIST && d.u.l->len == 2 && d.u.l->items[0].t == T_INT && d.u.l->items[1].t == T_INT) {
        *dx = d.u.l->items[0].u.i; *dy = d.u.l->items[1].u.i;
        return 1;
    }
    return 0;
}

/* The steps of a set: a board's own (b >= 0), then the named ones. */
static int step_set(rp_ctx *C, int32_t b, rv name, stepset *out)
{
    const rp_model *M = C->M;
    if (name.t != T_STR) return 0;
    if (b >= 0)
        for (int32_t k = 0; k < M->board_nsets[b]; k++)
            if (M->board_set_names[b][k] == name.u.i) {
                out->steps = M->board_set_steps[b][k]; out->n = M->board_set_len[b][k];
                return 1;
            }
    for (int k = 0; k < 4; k++)
        if (M->set_names[k] == name.u.i) { out->steps = NAMED_SETS[k]; out->n = NAMED_SET_LEN[k]; return 1; }
    return 0;
}

static int cell_of(rp_ctx *C, int32_t b, rv c, int64_t *x, int64_t *y)
{
    int64_t w = C->M->board_width[b], h = C->M->board_height[b];
    if (c.t != T_INT || c.u.i < 0 || c.u.i >= w * h) return 0;
    *x = c.u.i % w; *y = c.u.i / w;
    return 1;
}

static rv cell_at(rp_ctx *C, int32_t b, __int128 x, __int128 y)
{
    int64_t w = C->M->board_width[b], h = C->M->board_height[b];
    if (x < 0 || x >= w || y < 0 || y >= h) return rv_null();
    return rv_int((int64_t)(y * w + x));
}

static rv neighbours(rp_ctx *C, int32_t b, int64_t x, int64_t y, stepset s)
{
    rp_list *l = new_list(C, s.n);
    if (!l) return rv_null();
    for (int32_t k = 0; k < s.n; k++) {
        rv c = cell_at(C, b, (__int128)x + s.steps[2 * k], (__int128)y + s.steps[2 * k + 1]);
        if (c.t == T_INT) l->items[l->len++] = c;
    }
    return rv_list(l);
}

static rv ray_from(rp_ctx *C, int32_t b, int64_t x, int64_t y, int64_t dx, int64_t dy)
{
    int64_t w = C->M->board_width[b], h = C->M->board_height[b];
    rp_list *l = new_list(C, w > h ? w : h);
    if (!l) return rv_null();
    __int128 cx = (__int128)x + dx, cy = (__int128)y + dy;
    while (cx >= 0 && cx < w && cy >= 0 && cy < h) {
        if (!rp_list_push(C, l, rv_int((int64_t)(cy * w + cx)))) { rp_list_free(l); return rv_null(); }
        cx += dx; cy += dy;
    }
    return rv_list(l);
}

static rv b_perimeter(rp_ctx *C, int32_t b)
{
    int64_t w = C->M->board_width[b], h = C->M->board_height[b];
    rp_list *l = new_list(C, 2 * (w + h));
    if (!l) return rv_null();
    if (w == 1 || h == 1) {
        for (int64_t c = 0; c < w * h; c++) l->items[l->len++] = rv_int(c);
        return rv_list(l);
    }
    for (int64_t x = 0; x < w; x++) l->items[l->len++] = rv_int(x);
    for (int64_t y = 1; y < h; y++) l->items[l->len++] = rv_int(y * w + w - 1);
    for (int64_t x = w - 2; x >= 0; x--) l->items[l->len++] = rv_int((h - 1) * w + x);
    for (int64_t y = h - 2; y > 0; y--) l->items[l->len++] = rv_int(y * w);
    return rv_list(l);
}

/* Cells a flood's `blocked` or `stops` list names (ints, or floats equal to them), as a mask. */
static int cell_mask(rp_ctx *C, rv xs, unsigned char *mask, int64_t size)
{
    if (xs.t != T_LIST) return 0;
    for (int64_t i = 0; i < xs.u.l->len; i++) {
        rv v = xs.u.l->items[i];
        if (v.t == T_INT && v.u.i >= 0 && v.u.i < size) mask[v.u.i] = 1;
        else if (v.t == T_FLT && v.u.f >= 0 && v.u.f < (double)size && v.u.f == trunc(v.u.f)) mask[(int64_t)v.u.f] = 1;
    }
    (void)C;
    return 1;
}

static rv b_flood(rp_ctx *C, const rv *args, int32_t where)
{
    int32_t b = board_of(C, args[0]);
    int64_t x, y;
    stepset s;
    if (b < 0 || !cell_of(C, b, args[1], &x, &y) || args[2].t != T_INT || !step_set(C, b, args[3], &s))
        return fail(C, where);
    int64_t w = C->M->board_width[b], size = w * C->M->board_height[b], limit = args[2].u.i;
    unsigned char *walls = calloc((size_t)size * 2, 1);
    int64_t *dist = malloc((size_t)size * sizeof(int64_t)), *todo = malloc((size_t)size * sizeof(int64_t));
    int64_t *near = malloc((size_t)(s.n ? s.n : 1) * sizeof(int64_t));
    if (!walls || !dist || !todo || !near) {
        free(walls); free(dist); free(todo); free(near);
        rp_bail(C, RP_BAIL_MEMORY, "out of memory", where);
        return rv_null();
    }
    unsigned char *halts = walls + size;
    rv out = rv_null();
    if (!cell_mask(C, args[4], walls, size) || !cell_mask(C, args[5], halts, size)) { fail(C, where); goto done; }
    for (int64_t c = 0; c < size; c++) dist[c] = -1;
    int64_t start = args[1].u.i, head = 0, tail = 0, found = 0;
    dist[start] = 0;
    todo[tail++] = start;
    while (head < tail) {
        int64_t here = todo[head++];
        if (!rp_spend(C, 1, where)) goto done;
        if (dist[here] >= limit || (halts[here] && here != start)) continue;
        int64_t hx = here % w, hy = here / w, n = 0;
        for (int32_t k = 0; k < s.n; k++) {
            rv c = cell_at(C, b, (__int128)hx + s.steps[2 * k], (__int128)hy + s.steps[2 * k + 1]);
            if (c.t == T_INT) near[n++] = c.u.i;
        }
        if (!rp_spend(C, n, where)) goto done;
        for (int64_t k = 0; k < n; k++)
            if (dist[near[k]] < 0 && !walls[near[k]]) {
                dist[near[k]] = dist[here] + 1;
                todo[tail++] = near[k];
                found++;
            }
    }
    if (!rp_built(C, found, where)) goto done;
    rp_list *l = new_list(C, found);
    if (!l) goto done;
    for (int64_t c = 0; c < size; c++) if (dist[c] >= 0 && c != start) l->items[l->len++] = rv_int(c);
    out = rv_list(l);
done:
    free(walls); free(dist); free(todo); free(near);
    return out;
}

/* ------------------------------------------------------------------ graphs */
static int32_t graph_of(rp_ctx *C, rv name)
{
    const rp_model *M = C->M;
    if (name.t == T_STR)
        for (int32_t g = 0; g < M->ngraphs; g++) if (M->graph_names[g] == name.u.i) return g;
    return -1;
}

static int32_t node_of(rp_ctx *C, int32_t g, rv node)
{
    const rv *nodes = C->M->graph_nodes[g];
    for (int32_t k = 0; k < C->M->graph_nnodes[g]; k++) if (rp_equal(nodes[k], node)) return k;
    return -1;
}

/* Breadth-first distances over a declared graph from `start` (a node index, or -1 for a value that is no
 * node, which reaches nothing); `order` lists the nodes found in the order found. */
static int64_t graph_bfs(rp_ctx *C, int32_t g, int32_t start, int64_t limit, int has_limit, int64_t *dist,
                         int32_t *order, int32_t where)
{
    const int32_t *adj_start = C->M->graph_adj_start[g], *adj = C->M->graph_adj[g];
    int32_t n = C->M->graph_nnodes[g];
    for (int32_t k = 0; k < n; k++) dist[k] = -1;
    if (start < 0) return rp_spend(C, 1, where) ? 0 : -1;   /* the start alone: visited, no edges */
    int64_t head = 0, tail = 0;
    dist[start] = 0;
    order[tail++] = start;
    while (head < tail) {
        int32_t node = order[head++];
        if (!rp_spend(C, 1, where)) return -1;
        if (has_limit && dist[node] >= limit) continue;
        int32_t a = adj_start[node], z = adj_start[node + 1];
        if (!rp_spend(C, z - a, where)) return -1;
        for (int32_t k = a; k < z; k++)
            if (dist[adj[k]] < 0) { dist[adj[k]] = dist[node] + 1; order[tail++] = adj[k]; }
    }
    return tail;
}

static rv b_graph_search(rp_ctx *C, const rv *args, int32_t nargs, int want_distance, int32_t where)
{
    int32_t g = graph_of(C, args[0]);
    if (g < 0) return fail(C, where);
    int has_limit = 0; int64_t limit = 0;
    if (!want_distance && nargs == 3) {
        if (args[2].t != T_INT) return fail(C, where);
        has_limit = 1; limit = args[2].u.i;
    }
    int32_t n = C->M->graph_nnodes[g];
    int64_t *dist = malloc((size_t)(n ? n : 1) * sizeof(int64_t));
    int32_t *order = malloc((size_t)(n ? n : 1) * sizeof(int32_t));
    rv out = rv_null();
    if (!dist || !order) { rp_bail(C, RP_BAIL_MEMORY, "out of memory", where); goto done; }
    int32_t start = node_of(C, g, args[1]);
    int64_t found = graph_bfs(C, g, start, limit, has_limit, dist, order, where);
    if (found < 0) goto done;
    if (want_distance) {
        int32_t target = node_of(C, g, args[2]);
        if (start < 0) out = rp_equal(args[1], args[2]) ? rv_int(0) : rv_null();
        else out = target >= 0 && dist[target] >= 0 ? rv_int(dist[target]) : rv_null();
        goto done;
    }
    rp_list *l = new_list(C, found);
    if (!l) goto done;
    for (int64_t k = 1; k < found; k++) l->items[l->len++] = C->M->graph_nodes[g][order[k]];
    rv result = rv_list(l);
    if (rp_charge(C, result, where)) out = rp_clone(C, result);
    l->len = 0;   /* the items were borrowed from the graph's constants */
    rp_list_free(l);
done:
    free(dist); free(order);
    return out;
}

/* Nodes and neighbours of a list of [a, b] edges held in the state; nodes are told apart by `==`.
   A node is found through an open-addressing table of its hash (`slots`, -1 for empty): a linear
   search of the nodes made building a graph of m edges cost m * nodes comparisons (Nautilus' walks
   spent 40% of their playouts there). */
typedef struct { rv *nodes; int32_t n; int32_t *adj_start, *adj; int32_t *slots; uint64_t mask; } edge_graph;

/* The slot of node `v`: the one holding it, or the empty one where it would go. */
static uint64_t edge_slot(const edge_graph *eg, rv v)
{
    uint64_t h = rp_hash_value(v) & eg->mask;
    while (eg->slots[h] >= 0 && !rp_equal(eg->nodes[eg->slots[h]], v)) h = (h + 1) & eg->mask;
    return h;
}

static int edge_node(const edge_graph *eg, rv v) { return eg->slots[edge_slot(eg, v)]; }

static void edge_graph_free(edge_graph *eg) { free(eg->nodes); free(eg->adj_start); free(eg->adj); free(eg->slots); }

static int edge_graph_make(rp_ctx *C, rv edges, edge_graph *eg, int32_t where)
{
    memset(eg, 0, sizeof *eg);
    if (edges.t != T_LIST) { fail(C, where); return 0; }
    rp_list *l = edges.u.l;
    int64_t m = l->len;
    uint64_t cap = 4;
    while (cap < (uint64_t)(4 * m + 2)) cap *= 2;   /* at most half full */
    eg->mask = cap - 1;
    eg->nodes = malloc((size_t)(2 * m + 1) * sizeof(rv));
    int32_t *ends = malloc((size_t)(2 * m + 1) * sizeof(int32_t));
    int32_t *count = calloc((size_t)(2 * m + 2), sizeof(int32_t));
    eg->adj = malloc((size_t)(2 * m + 1) * sizeof(int32_t));
    eg->adj_start = calloc((size_t)(2 * m + 2), sizeof(int32_t));
    eg->slots = malloc((size_t)cap * sizeof(int32_t));
    if (!eg->nodes || !ends || !count || !eg->adj || !eg->adj_start || !eg->slots) {
        free(ends); free(count); edge_graph_free(eg);
        rp_bail(C, RP_BAIL_MEMORY, "out of memory", where);
        return 0;
    }
    memset(eg->slots, 0xff, (size_t)cap * sizeof(int32_t));
    for (int64_t i = 0; i < m; i++) {
        rv e = l->items[i];
        if (e.t != T_LIST || e.u.l->len != 2) { free(ends); free(count); edge_graph_free(eg); fail(C, where); return 0; }
        for (int j = 0; j < 2; j++) {
            uint64_t slot = edge_slot(eg, e.u.l->items[j]);
            if (eg->slots[slot] < 0) { eg->slots[slot] = eg->n; eg->nodes[eg->n++] = e.u.l->items[j]; }   /* the first spelling met */
            ends[2 * i + j] = eg->slots[slot];
        }
        count[ends[2 * i]]++; count[ends[2 * i + 1]]++;
    }
    for (int32_t k = 0; k < eg->n; k++) eg->adj_start[k + 1] = eg->adj_start[k] + count[k];
    memset(count, 0, (size_t)(2 * m + 2) * sizeof(int32_t));
    /* each node's neighbours in edge order: e[1] for an edge starting at it, e[0] for one ending at it */
    for (int64_t i = 0; i < m; i++) {
        int32_t a = ends[2 * i], z = ends[2 * i + 1];
        eg->adj[eg->adj_start[a] + count[a]++] = z;
        eg->adj[eg->adj_start[z] + count[z]++] = a;
    }
    free(ends); free(count);
    return 1;
}

/* The graph of the last edge list this thread made one of, with the list's ends as they were (2 * last_m of them):
 * a listing asks reachable_via of the same edges from every start (Nautilus' walks), and making the graph was
 * two thirds of a call.  Kept only for lists whose ends are all scalars or texts, which are the same graph exactly
 * when they are the same tags and bits, end for end; the last one is kept for the thread's life. */
static __thread edge_graph last_graph;
static __thread rv *last_ends;
static __thread int64_t last_m = -1;

static int same_ends(const rp_list *l)
{
    if (l->len != last_m) return 0;
    for (int64_t i = 0; i < l->len; i++) {
        rv e = l->items[i];
        if (e.t != T_LIST || e.u.l->len != 2) return 0;
        for (int j = 0; j < 2; j++) {
            rv x = e.u.l->items[j], y = last_ends[2 * i + j];
            if (x.t != y.t || x.u.i != y.u.i) return 0;
        }
    }
    return 1;
}

/* The graph of `edges`: the kept one where it is theirs, else made into `own` and kept in its place where its ends
 * are all scalars (then `own` is left empty); NULL after a bail. */
static const edge_graph *edges_graph(rp_ctx *C, rv edges, edge_graph *own, int32_t where)
{
    if (edges.t == T_LIST && same_ends(edges.u.l)) return &last_graph;
    if (!edge_graph_make(C, edges, own, where)) return NULL;
    const rp_list *l = edges.u.l;   /* edge_graph_make checked it is a list of pairs */
    for (int64_t i = 0; i < l->len; i++)
        if (rv_is_container(l->items[i].u.l->items[0]) || rv_is_container(l->items[i].u.l->items[1])) return own;
    rv *ends = malloc((size_t)(2 * l->len + 1) * sizeof(rv));
    if (!ends) return own;
    for (int64_t i = 0; i < l->len; i++) {
        ends[2 * i] = l->items[i].u.l->items[0];
        ends[2 * i + 1] = l->items[i].u.l->items[1];
    }
    edge_graph_free(&last_graph);
    free(last_ends);
    last_graph = *own;
    last_ends = ends;
    last_m = l->len;
    memset(own, 0, sizeof *own);
    return &last_graph;
}

static rv b_via(rp_ctx *C, const rv *args, int32_t nargs, int want_distance, int32_t where)
{
    edge_graph own = {0};
    int has_limit = 0; int64_t limit = 0;
    const edge_graph *g = edges_graph(C, args[0], &own, where);
    if (!g) return rv_null();
    const edge_graph eg = *g;
    rv out = rv_null();
    if (!want_distance && nargs == 3) {
        if (args[2].t != T_INT) { fail(C, where); goto done; }
        has_limit = 1; limit = args[2].u.i;
    }
    int32_t n = eg.n;
    int64_t *dist = malloc((size_t)(n + 1) * sizeof(int64_t));
    int32_t *order = malloc((size_t)(n + 1) * sizeof(int32_t));
    if (!dist || !order) { free(dist); free(order); rp_bail(C, RP_BAIL_MEMORY, "out of memory", where); goto done; }
    for (int32_t k = 0; k < n; k++) dist[k] = -1;
    int32_t start = edge_node(&eg, args[1]);
    int64_t head = 0, tail = 0;
    if (start >= 0) { dist[start] = 0; order[tail++] = start; }
    while (head < tail) {
        int32_t node = order[head++];
        if (has_limit && dist[node] >= limit) continue;
        for (int32_t k = eg.adj_start[node]; k < eg.adj_start[node + 1]; k++)
            if (dist[eg.adj[k]] < 0) { dist[eg.adj[k]] = dist[node] + 1; order[tail++] = eg.adj[k]; }
    }
    if (want_distance) {
        int32_t target = edge_node(&eg, args[2]);
        if (start < 0) out = rp_equal(args[1], args[2]) ? rv_int(0) : rv_null();
        else out = target >= 0 && dist[target] >= 0 ? rv_int(dist[target]) : rv_null();
    } else {
        rp_list *l = new_list(C, tail);
        if (l) {
            for (int64_t k = 1; k < tail; k++) l->items[l->len++] = rv_ref(eg.nodes[order[k]]);
            out = rv_list(l);
        }
    }
    free(dist); free(order);
done:
    edge_graph_free(&own);
    return out;
}

/* ------------------------------------------------------------------ dispatch */
static rv call(rp_ctx *C, int32_t bi, const rv *a, int32_t nargs, int32_t where)
{
    const rp_model *M = C->M;
    int64_t x, y, dx, dy, seat;
    int32_t b;
    stepset s;
    switch (bi) {
    case BI_LEN: return rp_len(C, a[0], where);
    case BI_RANGE: return rp_range(C, a[0], nargs > 1 ? a[1] : rv_null(), nargs, where);
    case BI_SUM: return b_sum(C, a[0], where);
    case BI_MIN: return b_minmax(C, a, nargs, 0, where);
    case BI_MAX: return b_minmax(C, a, nargs, 1, where);
    case BI_ABS: return b_abs(C, a[0], where);
    case BI_ANY: return b_anyall(C, a[0], 1, where);
    case BI_ALL: return b_anyall(C, a[0], 0, where);
    case BI_SORTED: if (a[0].t != T_LIST) return fail(C, where); return sorted_copy(C, a[0].u.l, where);
    case BI_REVERSED: return b_reversed(C, a[0], where);
    case BI_COUNT: return b_count(C, a[0], a[1], where);
    case BI_INDEX_OF: return b_index_of(C, a[0], a[1], where);
    case BI_INDEX_WHERE: return b_index_where(C, a[0], where);
    case BI_UNIQUE: return b_unique(C, a[0], where);
    case BI_FLATTEN: return b_flatten(C, a[0], where);
    case BI_STR: return b_str(C, a[0], where);
    case BI_JOIN: return b_join(C, a, nargs, where);
    case BI_INT: return b_int(C, a[0], where);
    case BI_KEYS: if (a[0].t != T_MAP) return fail(C, where); return rp_map_sorted_keys(C, a[0].u.m);
    case BI_VALUES: return b_values(C, a[0], where);
    case BI_GET: return b_get(a[0], a[1], a[2]);
    case BI_ZIP: return b_zip(C, a[0], a[1], where);
    case BI_REPEAT: return b_repeat(C, a[0], a[1], where);
    case BI_ENUMERATE: return b_enumerate(C, a[0], where);
    case BI_ARGMAX: return b_arg(C, a[0], 1, where);
    case BI_ARGMIN: return b_arg(C, a[0], 0, where);
    case BI_LEADER: return b_leader(C, a[0], where);
    case BI_RANKS: return b_ranks(C, a[0], where);
    case BI_COMPONENTS: return b_components(C, a, nargs, where);
    case BI_KIND: {
        int32_t c = component_of(M, a[0]);
        if (c < 0) return fail(C, where);
        return rv_str(M->component_kind[c]);
    }
    case BI_IS_COMPONENT: return rv_bool(component_of(M, a[0]) >= 0);
    case BI_SEATS: {
        rp_list *l = new_list(C, C->S->flow.players);
        if (!l) return rv_null();
        for (int64_t p = 0; p < C->S->flow.players; p++) l->items[l->len++] = rv_int(p);
        return rv_list(l);
    }
    case BI_NEXT_SEAT: {
        int64_t n = C->S->flow.players, k = 1;
        if (!seat_of(C, a[0], &seat)) return fail(C, where);
        if (nargs > 1) { if (a[1].t != T_INT) return fail(C, where); k = a[1].u.i; }
        int64_t r = (int64_t)(((__int128)seat + k) % n);
        return rv_int(r < 0 ? r + n : r);
    }
    case BI_OTHERS: {
        int64_t n = C->S->flow.players;
        if (!seat_of(C, a[0], &seat)) return fail(C, where);
        rp_list *l = new_list(C, n);
        if (!l) return rv_null();
        for (int64_t i = 1; i < n; i++) l->items[l->len++] = rv_int((seat + i) % n);
        return rv_list(l);
    }
    case BI_CELLS: {
        if ((b = board_of(C, a[0])) < 0) return fail(C, where);
        int64_t n = (int64_t)M->board_width[b] * M->board_height[b];
        if (!rp_built(C, n, where)) return rv_null();
        rp_list *l = new_list(C, n);
        if (!l) return rv_null();
        for (int64_t c = 0; c < n; c++) l->items[c] = rv_int(c);
        l->len = n;
        return rv_list(l);
    }
    case BI_CELL:
        if ((b = board_of(C, a[0])) < 0 || a[1].t != T_INT || a[2].t != T_INT) return fail(C, where);
        return cell_at(C, b, a[1].u.i, a[2].u.i);
    case BI_XY: {
        if ((b = board_of(C, a[0])) < 0 || !cell_of(C, b, a[1], &x, &y)) return fail(C, where);
        int64_t xy[2] = {x, y};
        return int_list(C, xy, 2);
    }
    case BI_STEP: {
        int64_t n = 1;
        if ((b = board_of(C, a[0])) < 0 || !cell_of(C, b, a[1], &x, &y) || !direction(C, a[2], &dx, &dy))
            return fail(C, where);
        if (nargs > 3) { if (a[3].t != T_INT) return fail(C, where); n = a[3].u.i; }
        return cell_at(C, b, (__int128)x + (__int128)dx * n, (__int128)y + (__int128)dy * n);
    }
    case BI_RAY:
        if ((b = board_of(C, a[0])) < 0 || !cell_of(C, b, a[1], &x, &y) || !direction(C, a[2], &dx, &dy)
                || (dx == 0 && dy == 0))
            return fail(C, where);
        return ray_from(C, b, x, y, dx, dy);
    case BI_NEIGHBORS:
        if ((b = board_of(C, a[0])) < 0 || !cell_of(C, b, a[1], &x, &y) || !step_set(C, b, a[2], &s))
            return fail(C, where);
        return neighbours(C, b, x, y, s);
    case BI_DIRS: {
        b = -1;
        if (nargs == 2 && (b = board_of(C, a[0])) < 0) return fail(C, where);
        if (!step_set(C, b, a[nargs - 1], &s)) return fail(C, where);
        rp_list *l = new_list(C, s.n);
        if (!l) return rv_null();
        for (int32_t k = 0; k < s.n; k++) {
            int64_t v[2] = {s.steps[2 * k], s.steps[2 * k + 1]};
            rv p = int_list(C, v, 2);
            if (C->err) { rp_list_free(l); return rv_null(); }
            l->items[l->len++] = p;
        }
        return rv_list(l);
    }
    case BI_DIR_VEC: {
        if (!direction(C, a[0], &dx, &dy)) return fail(C, where);
        int64_t v[2] = {dx, dy};
        return int_list(C, v, 2);
    }
    case BI_PERIMETER:
        if ((b = board_of(C, a[0])) < 0) return fail(C, where);
        return b_perimeter(C, b);
    case BI_LINE_OF: {
        if ((b = board_of(C, a[0])) < 0 || !direction(C, a[2], &dx, &dy) || (dx == 0 && dy == 0)
                || !cell_of(C, b, a[1], &x, &y))
            return fail(C, where);
        rv back = ray_from(C, b, x, y, -dx, -dy);
        if (C->err) return rv_null();
        rv ahead = ray_from(C, b, x, y, dx, dy);
        if (C->err) { rv_drop(back); return rv_null(); }
        rp_list *bl = back.u.l, *al = ahead.u.l, *l = new_list(C, bl->len + 1 + al->len);
        if (l) {
            for (int64_t i = bl->len - 1; i >= 0; i--) l->items[l->len++] = bl->items[i];
            l->items[l->len++] = a[1];
            for (int64_t i = 0; i < al->len; i++) l->items[l->len++] = al->items[i];
        }
        rv_drop(back); rv_drop(ahead);
        return l ? rv_list(l) : rv_null();
    }
    case BI_OFFSET: {
        int64_t bx, by;
        if ((b = board_of(C, a[0])) < 0 || !cell_of(C, b, a[1], &x, &y) || !cell_of(C, b, a[2], &bx, &by))
            return fail(C, where);
        int64_t v[2] = {bx - x, by - y};
        return int_list(C, v, 2);
    }
    case BI_AREA: {
        if ((b = board_of(C, a[0])) < 0 || !cell_of(C, b, a[1], &x, &y) || a[2].t != T_INT || a[3].t != T_INT
                || a[2].u.i <= 0 || a[3].u.i <= 0)
            return fail(C, where);
        int64_t w = a[2].u.i, h = a[3].u.i, bw = M->board_width[b];
        if (x + w > bw || y + h > M->board_height[b]) { rp_list *l = new_list(C, 0); return l ? rv_list(l) : rv_null(); }
        if (!rp_built(C, w * h, where)) return rv_null();
        rp_list *l = new_list(C, w * h);
        if (!l) return rv_null();
        for (int64_t j = 0; j < h; j++)
            for (int64_t i = 0; i < w; i++) l->items[l->len++] = rv_int((y + j) * bw + x + i);
        return rv_list(l);
    }
    case BI_FLOOD: return b_flood(C, a, where);
    case BI_ADJACENT: {
        int32_t g = graph_of(C, a[0]);
        if (g < 0) return fail(C, where);
        int32_t k = node_of(C, g, a[1]);
        int32_t from = k < 0 ? 0 : M->graph_adj_start[g][k], to = k < 0 ? 0 : M->graph_adj_start[g][k + 1];
        rp_list *l = new_list(C, to - from);
        if (!l) return rv_null();
        for (int32_t i = from; i < to; i++) l->items[l->len++] = M->graph_nodes[g][M->graph_adj[g][i]];
        rv out = rv_null(), near = rv_list(l);
        if (rp_charge(C, near, where)) out = rp_clone(C, near);
        l->len = 0;   /* borrowed items */
        rp_list_free(l);
        return out;
    }
    case BI_NODES: {
        int32_t g = graph_of(C, a[0]);
        if (g < 0) return fail(C, where);
        if (!rp_charge(C, M->graph_node_list[g], where)) return rv_null();
        return rp_clone(C, M->graph_node_list[g]);
    }
    case BI_REACHABLE: return b_graph_search(C, a, nargs, 0, where);
    case BI_DISTANCE: return b_graph_search(C, a, nargs, 1, where);
    case BI_REACHABLE_VIA: return b_via(C, a, nargs, 0, where);
    case BI_DISTANCE_VIA: return b_via(C, a, nargs, 1, where);
    }
    return fail(C, where);
}

static int bit_length(int64_t n) { int b = 0; while (n) { b++; n >>= 1; } return b; }

/* ------------------------------------------------------------------ kept results */
/* A builtin over the model's static geometry, components or graphs gives the same result, at the same
 * cost, for the same scalar arguments: the first result is kept (immortal: no statement changes a value
 * it did not copy) with what the call charged, and later calls charge that and share it, as the Python
 * engine's tables do (dsl/tables.py).  Entries are only added, each published whole before it is found. */
#define MEMO_SIZE 16384
#define MEMO_ARGS 4

typedef rp_kept memo;

static memo memos[MEMO_SIZE];
static int32_t memo_used;
static pthread_mutex_t memo_lock = PTHREAD_MUTEX_INITIALIZER;

static int memoizable(int32_t bi)
{
    switch (bi) {
    case BI_CELLS: case BI_CELL: case BI_XY: case BI_STEP: case BI_RAY: case BI_NEIGHBORS: case BI_DIRS:
    case BI_DIR_VEC: case BI_PERIMETER: case BI_LINE_OF: case BI_OFFSET: case BI_AREA: case BI_COMPONENTS:
    case BI_KIND: case BI_IS_COMPONENT: case BI_ADJACENT: case BI_NODES: case BI_REACHABLE: case BI_DISTANCE:
        return 1;
    default:
        return 0;
    }
}

static uint64_t memo_hash(int32_t bi, const rv *args, int32_t nargs)
{
    uint64_t h = 0x9E3779B97F4A7C15ULL * (uint64_t)(bi + 1);
    for (int32_t i = 0; i < nargs; i++) {
        h ^= (uint64_t)args[i].t * 0xBF58476D1CE4E5B9ULL;
        h = (h ^ (uint64_t)args[i].u.i) * 0x94D049BB133111EBULL;
        h ^= h >> 31;
    }
    return h;
}

/* Scalars that are equal exactly when they are the same value and text: ints, texts, booleans, null. */
static int memo_args(const rv *args, int32_t nargs)
{
    if (nargs > MEMO_ARGS) return 0;
    for (int32_t i = 0; i < nargs; i++)
        if (args[i].t == T_FLT || rv_is_container(args[i])) return 0;
    return 1;
}

static memo *memo_find(int32_t bi, const rv *args, int32_t nargs, uint64_t h)
{
    for (uint64_t k = 0; k < 16; k++) {
        memo *m = &memos[(h + k) & (MEMO_SIZE - 1)];
        if (!__atomic_load_n(&m->ready, __ATOMIC_ACQUIRE)) return NULL;
        if (m->bi != bi || m->nargs != nargs) continue;
        int same = 1;
        for (int32_t i = 0; i < nargs && same; i++) same = args[i].t == m->args[i].t && args[i].u.i == m->args[i].u.i;
        if (same) return m;
    }
    return NULL;
}

void rp_freeze_size(rv v);

static void make_immortal(rv v)
{
    if (!rv_is_container(v)) return;
    const rv *items = v.t == T_LIST ? v.u.l->items : v.u.m->vals;
    int64_t n = v.t == T_LIST ? v.u.l->len : v.u.m->len;
    for (int64_t i = 0; i < n; i++) make_immortal(items[i]);
    if (v.t == T_LIST) v.u.l->immortal = 1; else v.u.m->immortal = 1;
    rp_freeze_size(v);
}

static void memo_keep(int32_t bi, const rv *args, int32_t nargs, uint64_t h, rv result, int64_t iterations,
                      int64_t copies)
{
    pthread_mutex_lock(&memo_lock);
    if (memo_used < MEMO_SIZE / 2 && !memo_find(bi, args, nargs, h)) {
        for (uint64_t k = 0; k < 16; k++) {
            memo *m = &memos[(h + k) & (MEMO_SIZE - 1)];
            if (m->ready) continue;
            m->bi = bi; m->nargs = nargs;
            rp_memcpy(m->args, args, (size_t)nargs * sizeof(rv));
            rv kept = rv_ref(result);
            make_immortal(kept);
            m->result = kept;
            m->iterations = iterations; m->copies = copies;
            __atomic_store_n(&m->ready, 1, __ATOMIC_RELEASE);
            memo_used++;
            break;
        }
    }
    pthread_mutex_unlock(&memo_lock);
}

/* A builtin's call, charged as dsl.builtins.invoke charges it: its list and map arguments walked, a sort's
 * extra walks, and the value it returns built.  Returns a new reference. */
static rv call_charged(rp_ctx *C, int32_t bi, const rv *args, int32_t nargs, int32_t where);

/* No slot of a site held these arguments: the call made (and kept), and `slot` (the first free one they
 * looked in, or NULL) pointed at it if it is still free. */
rv rp_site_fill(rp_ctx *C, rp_kept **slot, int32_t bi, const rv *args, int32_t nargs, int32_t where)
{
    rv out = rp_call_builtin(C, bi, args, nargs, where);
    if (C->err || slot == NULL || !memoizable(bi) || !memo_args(args, nargs) || __atomic_load_n(slot, __ATOMIC_ACQUIRE))
        return out;
    memo *m = memo_find(bi, args, nargs, memo_hash(bi, args, nargs));
    if (m) {
        memo *none = NULL;
        __atomic_compare_exchange_n(slot, &none, m, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
    }
    return out;
}

rv rp_call_builtin(rp_ctx *C, int32_t bi, const rv *args, int32_t nargs, int32_t where)
{
    if (!memoizable(bi) || !memo_args(args, nargs)) return call_charged(C, bi, args, nargs, where);
    uint64_t h = memo_hash(bi, args, nargs);
    memo *m = memo_find(bi, args, nargs, h);
    if (m) {
        if (C->b->iterations < m->iterations || C->b->copies < m->copies) {
            rp_bail(C, RP_BAIL_LIMIT, "a kept builtin's charges", where);
            return rv_null();
        }
        C->b->iterations -= m->iterations;
        C->b->copies -= m->copies;
        return m->result;
    }
    int64_t iterations = C->b->iterations, copies = C->b->copies;
    rv out = call_charged(C, bi, args, nargs, where);
    if (!C->err) memo_keep(bi, args, nargs, h, out, iterations - C->b->iterations, copies - C->b->copies);
    return out;
}

/* How many distinct items a list of scalars holds (b_unique's length): ints 0..63 by a mask, anything else
 * compared with every item before it (equality is exact, so an item equal to one dropped is equal to the one
 * kept). */
static int64_t distinct_scalars(const rp_list *l)
{
    uint64_t mask = 0;
    int small = 1;
    for (int64_t i = 0; i < l->len && small; i++) {
        rv x = l->items[i];
        small = x.t == T_INT && (uint64_t)x.u.i < 64;
        mask |= small ? (uint64_t)1 << x.u.i : 0;
    }
    if (small) return __builtin_popcountll(mask);
    int64_t n = 0;
    for (int64_t i = 0; i < l->len; i++) {
        int seen = 0;
        for (int64_t j = 0; j < i && !seen; j++) seen = rp_equal(l->items[j], l->items[i]);
        n += !seen;
    }
    return n;
}

/* len(flatten(xs)) or len(unique(xs)) (`bi`), the list unmade: charged as rp_call_builtin charges the call (xs
 * scanned, the list it returns charged as built: flatten's holds the items of xs's lists, so its size is xs's
 * less xs's own items; unique's of scalars is its length).  Any other case is the call made and measured.
 * -1 on a bail. */
int64_t rp_len_of_call(rp_ctx *C, int32_t bi, rv xs, int32_t where)
{
    if (xs.t == T_LIST && (bi == BI_FLATTEN || bi == BI_UNIQUE)) {
        rp_list *l = xs.u.l;
        int containers = 0;
        for (int64_t i = 0; i < l->len; i++) containers += rv_is_container(l->items[i]);
        if (bi == BI_UNIQUE && !containers) {
            if (!rp_spend(C, l->len, where)) return -1;   /* a flat list's size is its length */
            int64_t n = distinct_scalars(l);
            return rp_built(C, n, where) ? n : -1;
        }
        if (bi == BI_FLATTEN && containers == l->len) {
            int64_t size = rp_size(C, xs, C->b->iterations, where);
            if (C->err || !rp_spend(C, size, where)) return -1;
            int64_t total = 0;
            for (int64_t i = 0; i < l->len; i++) {
                if (l->items[i].t != T_LIST) { fail(C, where); return -1; }
                total += l->items[i].u.l->len;
            }
            if (total > MAX_ITEMS) { rp_bail(C, RP_BAIL_LIMIT, "flatten too long", where); return -1; }
            return rp_built(C, size - l->len, where) ? total : -1;
        }
    }
    rv out = rp_call_builtin(C, bi, &xs, 1, where);
    int64_t n = C->err ? -1 : rp_len_i(C, out, where);
    rv_drop(out);
    return C->err ? -1 : n;
}

/* join(args) charged as rp_call_builtin charges it, the text unmade: its characters, or -1 on a bail. */
int64_t rp_join_chars(rp_ctx *C, const rv *args, int32_t nargs, int32_t where)
{
    for (int32_t i = 0; i < nargs; i++)   /* join is linear and prepaid (FLAGS) */
        if (rv_is_container(args[i]) && !rp_scan(C, args[i], where)) return -1;
    int64_t bytes;
    return join_measure(C, args, nargs, where, &bytes);
}

static rv call_charged(rp_ctx *C, int32_t bi, const rv *args, int32_t nargs, int32_t where)
{
    int linear = FLAGS[bi][0], prepaid = FLAGS[bi][1], sorts = FLAGS[bi][2];
    if (linear) {
        for (int32_t i = 0; i < nargs; i++)
            if (rv_is_container(args[i]) && !rp_scan(C, args[i], where)) return rv_null();
        if (sorts && nargs > 0 && rv_is_container(args[0])) {
            int64_t n = args[0].t == T_LIST ? args[0].u.l->len : args[0].u.m->len;
            if (n > 2) {
                int64_t size = rp_size(C, args[0], C->b->iterations, where);
                if (C->err) return rv_null();
                __int128 cost = (__int128)size * (bit_length(n - 1) - 1);
                if (!rp_spend(C, cost > INT64_MAX ? INT64_MAX : (int64_t)cost, where)) return rv_null();
            }
        }
    }
    rv out = call(C, bi, args, nargs, where);
    if (C->err) { rv_drop(out); return rv_null(); }
    if (bi == BI_MIN || bi == BI_MAX || bi == BI_LEADER) return out;   /* scalars taken from the arguments */
    if (linear && !prepaid) {
        if (out.t == T_STR && !rp_built(C, rp_text_of(out.u.i).nchars, where)) { return rv_null(); }
        if (rv_is_container(out) && !rp_charge(C, out, where)) { rv_drop(out); return rv_null(); }
    }
    return out;
}
