/* ruleplay's native runtime: the values, the work budget and the operators of the rules language.
 *
 * Every ruleset is lowered to C code that includes this header (see engine/native/lower*.py); the
 * runtime here is the C counterpart of dsl/runtime.py, dsl/builtins.py and the engine's flow, listing
 * and scoring, written to agree with them value for value.  Anything the runtime cannot do exactly as
 * the Python engine does -- an int past 64 bits, a rule error, a budget that runs out -- stops the step
 * with a bail code, and the Python engine, the reference, makes that step instead.
 *
 * Values mirror Python's objects: lists and maps are mutable, reference counted and shared exactly
 * where the Python engine shares them, and copied (deep) exactly where it clones, so aliasing behaves
 * the same.  Texts are interned: a text is the index of its bytes in one table per module.
 */
#ifndef RP_H
#define RP_H

#include <stdint.h>
#include <stddef.h>
#include <string.h>

/* ------------------------------------------------------------------ values */
enum { T_NULL = 0, T_BOOL = 1, T_INT = 2, T_FLT = 3, T_STR = 4, T_LIST = 5, T_MAP = 6 };

typedef struct rp_list rp_list;
typedef struct rp_map rp_map;

typedef struct rv {
    int32_t t;
    int32_t pad;
    union { int64_t i; double f; rp_list *l; rp_map *m; } u;
} rv;

struct rp_list {
    int32_t rc;       /* references; an immortal list (a constant) is never counted or freed */
    int16_t immortal;
    int16_t cls;      /* the small-block class it came from (rp_value.c), or -1 */
    int64_t len, cap;
    rv *items;        /* the items: in the block itself while they fit, so a list keeps its identity as it grows */
    int64_t size;     /* an immortal list's size (as rp_size counts it), or -1 */
    rv inline_items[];
};

struct rp_map {
    int32_t rc;
    int16_t immortal;
    int16_t cls;
    int64_t len, cap;
    int64_t *keys;    /* text ids, in insertion order (as a Python dict keeps them) */
    rv *vals;
    int64_t size;     /* an immortal map's size, or -1 */
};

/* memcpy of n bytes where n may be 0 and the pointers then NULL (which memcpy itself does not allow). */
static inline void rp_memcpy(void *to, const void *from, size_t n) { if (n) memcpy(to, from, n); }

static inline rv rv_null(void) { rv v; v.t = T_NULL; v.pad = 0; v.u.i = 0; return v; }
static inline rv rv_bool(int b) { rv v; v.t = T_BOOL; v.pad = 0; v.u.i = b != 0; return v; }
static inline rv rv_int(int64_t i) { rv v; v.t = T_INT; v.pad = 0; v.u.i = i; return v; }
static inline rv rv_flt(double f) { rv v; v.t = T_FLT; v.pad = 0; v.u.f = f; return v; }
static inline rv rv_str(int64_t id) { rv v; v.t = T_STR; v.pad = 0; v.u.i = id; return v; }
static inline rv rv_list(rp_list *l) { rv v; v.t = T_LIST; v.pad = 0; v.u.l = l; return v; }
static inline rv rv_map(rp_map *m) { rv v; v.t = T_MAP; v.pad = 0; v.u.m = m; return v; }

static inline int rv_is_container(rv v) { return v.t >= T_LIST; }

void rp_list_free(rp_list *l);
void rp_map_free(rp_map *m);

/* A new reference to `v` (the caller now holds one). */
static inline rv rv_ref(rv v)
{
    if (v.t == T_LIST) { if (!v.u.l->immortal) v.u.l->rc++; }
    else if (v.t == T_MAP) { if (!v.u.m->immortal) v.u.m->rc++; }
    return v;
}

/* Give up a reference. */
static inline void rv_drop(rv v)
{
    if (v.t == T_LIST) { if (!v.u.l->immortal && --v.u.l->rc == 0) rp_list_free(v.u.l); }
    else if (v.t == T_MAP) { if (!v.u.m->immortal && --v.u.m->rc == 0) rp_map_free(v.u.m); }
}

/* Drop what a temporary holds and leave it null, so a second drop (on the way out) does nothing. */
static inline void rv_clear(rv *v) { rv old = *v; *v = rv_null(); rv_drop(old); }

/* Put `v` (a reference the caller hands over) into `*slot`, dropping what was there. */
static inline void rv_set(rv *slot, rv v) { rv old = *slot; *slot = v; rv_drop(old); }

/* ------------------------------------------------------------------ bails */
/* Why a step stopped: the Python engine makes it again and says what the rules say. */
enum {
    RP_OK = 0,
    RP_BAIL_RULE = 1,      /* a rule error: the Python engine raises it, with its message */
    RP_BAIL_LIMIT = 2,     /* the work budget, the call depth, nesting or a size limit */
    RP_BAIL_NATIVE = 3,    /* a value the native runtime does not hold (an int past 64 bits, ...) */
    RP_BAIL_MEMORY = 4,    /* malloc failed */
    RP_BAIL_ILLEGAL = 5,   /* the move asked for is not legal here */
};

/* ------------------------------------------------------------------ the budget */
typedef struct rp_budget {
    int64_t iterations, copies;
    /* calls that may still nest: the fewer of the model's call depth and RP_NATIVE_DEPTH, less those open now
     * (one count to test on each call: rp_enter) */
    int32_t room, max_depth;
} rp_budget;

typedef struct rp_signals {
    int32_t end_turn, end_phase, end_game, stage_set;
    int32_t stage;   /* the stage's name (a text id), or -1 for none */
    int32_t go;      /* `goto` target: a phase index, -1 none, -2 a name that is no phase */
} rp_signals;

struct rp_model;
struct rp_state;

/* Everything a piece of lowered code can see while it runs (the counterpart of dsl.runtime.Ctx). */
/* A thread's free lists of small lists' blocks (rp_value.c): rp_ctx_init keeps the thread's in its context. */
#define RP_POOL_CLASSES 3
typedef struct rp_pool rp_pool;
rp_pool *rp_thread_pool(void);

typedef struct rp_ctx {
    const struct rp_model *M;
    struct rp_state *S;
    rp_budget *b;          /* the budget charged now: the move's, or a listing's */
    rp_budget own;         /* the move's own budget */
    rp_signals sig;
    uint64_t rng;          /* the generator's state while the step runs */
    int32_t drew;          /* whether the step drew from the generator */
    int32_t err;           /* RP_OK, or the bail code */
    const char *why;       /* what bailed, for diagnostics (a static text of the runtime) */
    int32_t where;         /* the position id of the code that bailed, or -1 */
    int32_t *fired; int32_t nfired, cfired;   /* rule ids fired in this step, in order */
    rp_pool *pool;         /* the thread's free lists (a context is used on the thread that set it up) */
} rp_ctx;

#define RP_WHY_FAIL "a `fail` statement"
#define RP_WHY_TRIES "too many parameter values"
#define RP_WHY_FOLD "max() or min() of no numbers"
#define RP_WHY_CELL "a cell off its board's table"
#define RP_WHY_TABLE "a bound or index a line's table does not decide"

/* Stop the step: the first reason is kept. */
static inline void rp_bail(rp_ctx *C, int code, const char *why, int32_t where)
{
    if (C->err == RP_OK) { C->err = code; C->why = why; C->where = where; }
}

#define RP_LIKELY(x) __builtin_expect(!!(x), 1)
#define RP_UNLIKELY(x) __builtin_expect(!!(x), 0)
/* The runtime's side of an operation whose common case the lowering writes inline (`rp_..._try`): its calls
 * are laid out and allocated for as the rare path they are, so the common case keeps its registers. */
#define RP_COLD __attribute__((cold))
/* Before a listing's loop over a few parameter values: unrolled, each value is a constant in its own copy of the
 * checks (a cell's index, a bound), which the compiler then folds. */
#define RP_UNROLL _Pragma("GCC unroll 16")
/* A small listing or end condition (module.py's INLINED_LINES): inlined where the step calls it. */
#define RP_STEP_INLINE static inline __attribute__((always_inline))

static inline int rp_spend(rp_ctx *C, int64_t n, int32_t where)
{
    C->b->iterations -= n;
    if (RP_UNLIKELY(C->b->iterations < 0)) { rp_bail(C, RP_BAIL_LIMIT, "iterations", where); return 0; }
    return 1;
}

static inline int rp_built(rp_ctx *C, int64_t n, int32_t where)
{
    C->b->copies -= n;
    if (RP_UNLIKELY(C->b->copies < 0)) { rp_bail(C, RP_BAIL_LIMIT, "copies", where); return 0; }
    return 1;
}

/* A list of `n` items made, then walked (rp_built, then rp_spend, as a slice or a range is charged): one test
 * of both counts, the bail's reason the one rp_built and rp_spend would give.  A step that bails is made again
 * by the Python engine, so what the counts hold after a bail does not matter. */
static inline int rp_made_walked(rp_ctx *C, int64_t n, int32_t where)
{
    rp_budget *b = C->b;
    b->copies -= n;
    b->iterations -= n;
    if (RP_UNLIKELY((b->copies | b->iterations) < 0)) {
        rp_bail(C, RP_BAIL_LIMIT, b->copies < 0 ? "copies" : "iterations", where);
        return 0;
    }
    return 1;
}

/* ------------------------------------------------------------------ texts */
typedef struct rp_text { const char *bytes; int64_t nbytes, nchars; } rp_text;

int64_t rp_intern(rp_ctx *C, const char *bytes, int64_t nbytes);   /* -1 (and a bail) on failure */
rp_text rp_text_of(int64_t id);
int64_t rp_ascii_char(int64_t id, int64_t k);   /* character k of an ASCII text, or -1 (rp_value.c) */
int64_t rp_text_compare(int64_t a, int64_t b);                     /* <0, 0, >0 in code point order */
extern int64_t RP_EMPTY_TEXT;   /* the id of "" */
/* A text that is only measured (an announce's, not kept): the checks and charges that making it by `+`,
 * str() or join() has, and its characters, without making it; -1 on a bail. */
int64_t rp_text_add_chars(rp_ctx *C, int64_t a, int64_t b, int32_t where);
int64_t rp_text_operand_chars(rp_ctx *C, rv v, int left, int32_t where);
int64_t rp_str_chars(rp_ctx *C, rv x, int32_t where);
int64_t rp_join_chars(rp_ctx *C, const rv *args, int32_t nargs, int32_t where);

/* ------------------------------------------------------------------ containers */
rp_list *rp_list_new(rp_ctx *C, int64_t cap);
rp_map *rp_map_new(rp_ctx *C, int64_t cap);
int rp_list_push(rp_ctx *C, rp_list *l, rv v);            /* takes the reference `v` */
int rp_list_insert0(rp_ctx *C, rp_list *l, rv v);
int rp_map_put(rp_ctx *C, rp_map *m, int64_t key, rv v);  /* takes `v`; a new key goes last */
int64_t rp_map_find(const rp_map *m, int64_t key);        /* the entry's index, or -1 */
rv rp_map_sorted_keys(rp_ctx *C, const rp_map *m);        /* a new list of the keys in text order */
rp_list *rp_list_copy_shallow(rp_ctx *C, const rp_list *l);

/* ------------------------------------------------------------------ value semantics */
int64_t rp_size(rp_ctx *C, rv v, int64_t cap, int32_t where);   /* items nested in v, as dsl.runtime.size */
rv rp_clone(rp_ctx *C, rv v);                                   /* deep copy; scalars as they are */
int rp_charge(rp_ctx *C, rv v, int32_t where);                  /* Budget.charge */
int rp_scan(rp_ctx *C, rv v, int32_t where);                    /* Budget.scan */
rv rp_copy(rp_ctx *C, rv v, int32_t where);                     /* Budget.copy: charged clone (new ref) */
int rp_truthy(rv v);
int rp_equal_any(rv a, rv b);                                   /* rp_equal for values of any kinds */
uint64_t rp_hash_value(rv v);                                  /* equal values (rp_equal) hash alike */
int rp_order(rp_ctx *C, rv a, rv b, int32_t where);             /* -1, 0, 1; bails on mixed types */
RP_COLD int rp_equals(rp_ctx *C, rv a, rv b, int32_t where);            /* `==`: charged */
int rp_contains(rp_ctx *C, rv container, rv item, int32_t where); /* `in`: charged; -1 on a bail */
int64_t rp_size_of_list(rp_ctx *C, rv v, int32_t where);
RP_COLD int rp_compare(rp_ctx *C, int op, rv a, rv b, int32_t where);   /* `<` `<=` `>` `>=`: -1 on a bail */

/* Equality as the rules hold it (1 == 1.0, true is not 1): two ints, two texts or two booleans, the items a
 * search through a list or a list's comparison mostly meets, decided inline (equal exactly when their payloads
 * are: texts are interned); anything else through rp_equal_any. */
static inline int rp_equal(rv a, rv b)
{
    if (a.t == b.t && (a.t == T_INT || a.t == T_STR || a.t == T_BOOL)) return a.u.i == b.u.i;
    return rp_equal_any(a, b);
}
rv rp_arith(rp_ctx *C, int op, rv a, rv b, int32_t where);      /* a new reference */
rv rp_negate(rp_ctx *C, rv a, int32_t where);
RP_COLD rv rp_index(rp_ctx *C, rv obj, rv key, int32_t where);          /* borrowed from obj */
rv rp_slice(rp_ctx *C, rv obj, rv lo, rv hi, int32_t where);    /* a new reference */
rv rp_field(rp_ctx *C, rv obj, int64_t name, int32_t where);    /* a new reference (a copy of a property) */
rv rp_map_field(rp_ctx *C, rv obj, int64_t name, int32_t where);/* a map's field only: borrowed */
rv rp_iterate_any(rp_ctx *C, rv v, int32_t where);              /* the items a loop walks: a new reference */
int rp_unpack(rp_ctx *C, rv item, int64_t count, int32_t where);
RP_COLD int rp_assign_item(rp_ctx *C, rv obj, rv key, rv value, int32_t where);   /* takes `value` */
rp_list *rp_checked_list(rp_ctx *C, rv v, int32_t where);
rv rp_take(rp_ctx *C, rp_list *l, rv item, int32_t where);      /* the item removed: a new reference */
int rp_prepend(rp_ctx *C, rp_list *l, rv item, int32_t where);  /* takes `item` */
int rp_shuffle(rp_ctx *C, rp_list *l, int32_t where);
int64_t rp_repeat_count(rp_ctx *C, rv n, int32_t where);        /* -1 on a bail */
rv rp_number_error(rp_ctx *C, int32_t where);

enum { OP_ADD = 1, OP_SUB, OP_MUL, OP_DIV, OP_FLOORDIV, OP_MOD, OP_LT, OP_LE, OP_GT, OP_GE };

rv rp_len(rp_ctx *C, rv x, int32_t where);
int64_t rp_range_loop(rp_ctx *C, rv a, rv b, int32_t nargs, int64_t *lo, int32_t where);
rv rp_iterate_copy(rp_ctx *C, rv v, int32_t where);             /* what a `for` statement walks: its own list */
rv rp_draw_take(rp_ctx *C, rv n, rp_list *src, int32_t where);  /* `draw`: the items taken, a new list */
int rp_extend(rp_ctx *C, rp_list *dst, rv items);               /* appends the items of a list */

static inline rv rp_new_list(rp_ctx *C, int64_t cap)
{
    rp_list *l = rp_list_new(C, cap);
    return l ? rv_list(l) : rv_null();
}

/* `len(x)` as a C int (-1 with a bail). */
static inline int64_t rp_len_i(rp_ctx *C, rv x, int32_t where)
{
    if (RP_LIKELY(x.t == T_LIST)) return x.u.l->len;
    rv n = rp_len(C, x, where);
    return n.t == T_INT ? n.u.i : -1;
}

/* -a for a C int a statement knows to be an int. */
static inline int64_t rp_ineg(rp_ctx *C, int64_t a, int32_t where)
{
    if (RP_UNLIKELY(a == INT64_MIN)) { rp_bail(C, RP_BAIL_NATIVE, "an int past 64 bits", where); return 0; }
    return -a;
}

/* `a OP b` for two ints, inline; anything else (or an overflow) through rp_arith. */
static inline rv rp_arith_fast(rp_ctx *C, int op, rv a, rv b, int32_t where)
{
    if (RP_LIKELY(a.t == T_INT && b.t == T_INT)) {
        int64_t r;
        if (op == OP_ADD) { if (!__builtin_add_overflow(a.u.i, b.u.i, &r)) return rv_int(r); }
        else if (op == OP_SUB) { if (!__builtin_sub_overflow(a.u.i, b.u.i, &r)) return rv_int(r); }
        else if (op == OP_MUL) { if (!__builtin_mul_overflow(a.u.i, b.u.i, &r)) return rv_int(r); }
    }
    return rp_arith(C, op, a, b, where);
}

/* count(xs, value), `value in xs` and index_of(xs, value) of a list whose items lie at `items` (`n` of them:
 * the lowering's view of a state list, or a list that is no constant in rp_in_fast), in one walk: charged as call_charged and rp_in_fast charge them, the list's size in
 * iterations (a flat list's size is its length; the value and the result are scalars).  Decided (1) when the
 * value and every item are null, a bool, an int or a text, each equal only to its own kind's same number (as
 * rp_equal says); anything else (a float, a list or a map met, no list at all) or a charge past the budget is
 * left to the runtime (0, nothing charged).  A tag's bit in RP_ODD_TAGS says it is a float, a list or a map: one
 * shift and one `or` an item, tested once after the walk. */
#define RP_ODD_TAGS ((1u << T_FLT) | (1u << T_LIST) | (1u << T_MAP))
static inline int rp_search_view_ok(rp_ctx *C, rv v, int64_t n, rv value)
{
    return RP_LIKELY(v.t == T_LIST && !((RP_ODD_TAGS >> value.t) & 1) && C->b->iterations >= n);
}
static inline int rp_count_view_try(int64_t *out, rp_ctx *C, rv v, const rv *items, int64_t n, rv value)
{
    if (!rp_search_view_ok(C, v, n, value)) return 0;
    int64_t found = 0;
    uint32_t odd = 0;
    for (const rv *x = items, *end = items + n; x < end; x++) {
        odd |= RP_ODD_TAGS >> x->t;
        found += (x->t == value.t) & (x->u.i == value.u.i);
    }
    if (RP_UNLIKELY(odd & 1)) return 0;
    C->b->iterations -= n;
    *out = found;
    return 1;
}
static inline int rp_in_view_try(int64_t *out, rp_ctx *C, rv v, const rv *items, int64_t n, rv value)
{
    int64_t found;   /* `value in xs`: the same walk and charge as count (rp_in_fast charges it so) */
    if (!rp_count_view_try(&found, C, v, items, n, value)) return 0;
    *out = found != 0;
    return 1;
}
static inline int rp_index_of_view_try(int64_t *out, rp_ctx *C, rv v, const rv *items, int64_t n, rv value)
{
    if (!rp_search_view_ok(C, v, n, value)) return 0;
    int64_t at = n;
    uint32_t odd = 0;
    for (int64_t i = n - 1; i >= 0; i--) {   /* backwards: the last found is the first */
        odd |= RP_ODD_TAGS >> items[i].t;
        if (items[i].t == value.t && items[i].u.i == value.u.i) at = i;
    }
    if (RP_UNLIKELY(odd & 1)) return 0;
    C->b->iterations -= n;
    *out = at == n ? -1 : at;
    return 1;
}

/* `item in list` for an item that is a whole number, a text, null or a boolean (equal only to its own kind,
 * or an int to an equal float), inline: a list that is no constant in one walk (rp_in_view_try), anything else
 * through rp_contains. */
static inline int rp_in_fast(rp_ctx *C, rv container, rv item, int32_t where)
{
    if (RP_LIKELY(container.t == T_LIST && item.t != T_FLT && item.t < T_LIST)) {
        rp_list *l = container.u.l;
        int64_t found;
        if (l->size < 0 && rp_in_view_try(&found, C, container, l->items, l->len, item)) return (int)found;
        int64_t n = l->size >= 0 ? l->size : rp_size_of_list(C, container, where);
        if (RP_UNLIKELY(n < 0)) return -1;
        C->b->iterations -= n;
        if (RP_UNLIKELY(C->b->iterations < 0)) { rp_bail(C, RP_BAIL_LIMIT, "iterations", where); return -1; }
        for (int64_t i = 0; i < l->len; i++) {
            rv x = l->items[i];
            if (x.t == item.t && x.u.i == item.u.i) return 1;
            if (item.t == T_INT && x.t == T_FLT) { C->b->iterations += n; return rp_contains(C, container, item, where); }
        }
        return 0;
    }
    return rp_contains(C, container, item, where);
}

/* `item in list` where the list is a constant that holds only whole numbers 0..63, whose set is `members` and
 * size `size` (tabled when the module was made): for an int item, charged as rp_in_fast charges it and found
 * by one bit (1); anything else is left to rp_in_fast (0, nothing charged), and so is a charge past the budget
 * (0, charged: rp_in_fast charges the list again and stops the step as it would have, the budget only deeper
 * in debt, which a step that stops leaves behind). */
static inline int rp_in_mask_try(int64_t *out, rp_ctx *C, rv item, uint64_t members, int64_t size)
{
    if (RP_LIKELY(item.t == T_INT)) {
        C->b->iterations -= size;
        if (RP_LIKELY(C->b->iterations >= 0)) {
            /* the item's bit, 0 off the set's range: the same in every turn of a loop over sets, so made once */
            uint64_t bit = (uint64_t)item.u.i < 64 ? (uint64_t)1 << item.u.i : 0;
            *out = (members & bit) != 0;
            return 1;
        }
    }
    return 0;
}

/* The items a loop walks (charged as runtime.iterate charges them): a list itself, inline. */
static inline rv rp_iterate(rp_ctx *C, rv v, int32_t where)
{
    if (RP_LIKELY(v.t == T_LIST)) {
        C->b->iterations -= v.u.l->len;
        if (RP_UNLIKELY(C->b->iterations < 0)) { rp_bail(C, RP_BAIL_LIMIT, "iterations", where); return rv_null(); }
        return rv_ref(v);
    }
    return rp_iterate_any(C, v, where);
}

rv rp_slice_view(rp_ctx *C, rv obj, rv lo, rv hi, const rv **items, int64_t *n, int32_t where);

/* A loop in a (pure) function over a state list, whose items lie at `items` (`n` of them, 0 for anything else:
 * the lowering's view): charged as rp_iterate charges it and walked where they lie, no reference taken (1).
 * Anything but a list, or a charge past the budget, is left to rp_iterate_view (0, nothing charged). */
static inline int rp_iterate_view_try(rp_ctx *C, rv v, const rv *items, int64_t n, const rv **walk, int64_t *count)
{
    if (RP_LIKELY(v.t == T_LIST && C->b->iterations >= n)) {
        C->b->iterations -= n;
        *walk = items;
        *count = n;
        return 1;
    }
    return 0;
}
rv rp_iterate_view(rp_ctx *C, rv v, const rv **walk, int64_t *count, int32_t where);   /* a new reference */

/* The common case of an operation, inline, for the lowering to write as
 *     if (RP_UNLIKELY(!rp_..._try(&out, ...))) { out = the runtime's operation; if (C->err) goto out; }
 * Each says whether it decided (1, `*out` set) or left the operation to the runtime (0, nothing changed);
 * none of them can fail, so an operation that stays on its common case tests no error afterwards. */
static inline int rp_index_try(rv *out, rv obj, rv key)   /* obj[key]: a list and an int in range; borrowed */
{
    if (RP_LIKELY(obj.t == T_LIST && key.t == T_INT && key.u.i >= 0 && key.u.i < obj.u.l->len)) {
        *out = obj.u.l->items[key.u.i];
        return 1;
    }
    return 0;
}
/* obj[key] where obj is a list whose `n` items lie at `items` (n 0 for anything else): read where the list
 * cannot change while the code runs (the lowering's views of state lists in expressions). */
static inline int rp_index_view_try(rv *out, const rv *items, int64_t n, rv key)
{
    if (RP_LIKELY(key.t == T_INT && (uint64_t)key.u.i < (uint64_t)n)) { *out = items[key.u.i]; return 1; }
    return 0;
}
static inline int rp_index_int_try(rv *out, const rv *items, int64_t n, int64_t key)   /* a C int key */
{
    if (RP_LIKELY((uint64_t)key < (uint64_t)n)) { *out = items[key]; return 1; }
    return 0;
}
static inline int rp_eq_try(int64_t *out, rv a, rv b)     /* a == b: neither a list, a map nor a float */
{
    if (RP_LIKELY(a.t == b.t && a.t <= T_STR && a.t != T_FLT)) { *out = a.u.i == b.u.i; return 1; }
    if (a.t == T_NULL || b.t == T_NULL) { *out = a.t == b.t; return 1; }
    return 0;
}
static inline int rp_cmp_try(int64_t *out, int op, rv a, rv b)   /* a < b (and friends): two ints */
{
    if (RP_LIKELY(a.t == T_INT && b.t == T_INT)) {
        switch (op) {
        case OP_LT: *out = a.u.i < b.u.i; break;
        case OP_LE: *out = a.u.i <= b.u.i; break;
        case OP_GT: *out = a.u.i > b.u.i; break;
        default: *out = a.u.i >= b.u.i; break;
        }
        return 1;
    }
    return 0;
}
/* Two C ints: +, - and * within 64 bits (0 past them, which the runtime cannot hold: the step bails). */
static inline int rp_iadd_try(int64_t *out, int64_t a, int64_t b) { return !__builtin_add_overflow(a, b, out); }
static inline int rp_isub_try(int64_t *out, int64_t a, int64_t b) { return !__builtin_sub_overflow(a, b, out); }
static inline int rp_imul_try(int64_t *out, int64_t a, int64_t b) { return !__builtin_mul_overflow(a, b, out); }
#define RP_WHY_INT "an int past 64 bits"

/* len(x) of a list. */
static inline int rp_len_try(int64_t *out, rv x)
{
    if (RP_LIKELY(x.t == T_LIST)) { *out = x.u.l->len; return 1; }
    return 0;
}
/* obj[key] = value for a list and an int in range: takes `value` (1), or leaves everything to
 * rp_assign_item (0). */
static inline int rp_assign_try(rv obj, rv key, rv value)
{
    if (RP_LIKELY(obj.t == T_LIST && key.t == T_INT && key.u.i >= 0 && key.u.i < obj.u.l->len)) {
        rv_set(&obj.u.l->items[key.u.i], value);
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------ the generator (engine/rng.py) */
static inline uint64_t rp_next64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
uint64_t rp_below_unbiased(uint64_t *state, uint64_t n, uint64_t x);
/* A draw below n (n > 0) as engine/rng.py's `below` makes it; inline, as every playout's move picks by it. */
static inline uint64_t rp_below(uint64_t *state, uint64_t n)
{
    uint64_t x = rp_next64(state);
    if (RP_LIKELY(x < 0 - n)) return x % n;   /* below 2^64 - n, so below 2^64 - r too: no need to divide for r */
    return rp_below_unbiased(state, n, x);
}
double rp_random(uint64_t *state);
static inline uint64_t rp_seed_state(uint64_t seed) { return seed * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL; }

/* ------------------------------------------------------------------ builtins */
/* The builtins, in dsl.builtins.BUILTINS order (tests/interpreter/engine/native checks it). */
enum {
    BI_LEN,
    BI_RANGE,
    BI_SUM,
    BI_MIN,
    BI_MAX,
    BI_ABS,
    BI_ANY,
    BI_ALL,
    BI_SORTED,
    BI_REVERSED,
    BI_COUNT,
    BI_INDEX_OF,
    BI_INDEX_WHERE,
    BI_UNIQUE,
    BI_FLATTEN,
    BI_STR,
    BI_JOIN,
    BI_INT,
    BI_KEYS,
    BI_VALUES,
    BI_GET,
    BI_ZIP,
    BI_REPEAT,
    BI_ENUMERATE,
    BI_ARGMAX,
    BI_ARGMIN,
    BI_LEADER,
    BI_RANKS,
    BI_COMPONENTS,
    BI_KIND,
    BI_IS_COMPONENT,
    BI_SEATS,
    BI_NEXT_SEAT,
    BI_OTHERS,
    BI_CELLS,
    BI_CELL,
    BI_XY,
    BI_STEP,
    BI_RAY,
    BI_NEIGHBORS,
    BI_DIRS,
    BI_DIR_VEC,
    BI_PERIMETER,
    BI_LINE_OF,
    BI_OFFSET,
    BI_AREA,
    BI_FLOOD,
    BI_ADJACENT,
    BI_NODES,
    BI_REACHABLE,
    BI_DISTANCE,
    BI_REACHABLE_VIA,
    BI_DISTANCE_VIA,
    BI__N
};
rv rp_call_builtin(rp_ctx *C, int32_t builtin, const rv *args, int32_t nargs, int32_t where);
rv rp_range(rp_ctx *C, rv a, rv b, int32_t nargs, int32_t where);

/* `cell(board, x, y)` of a board the lowering knows, for two ints: the cell, or null off the board (no
 * charge: its arguments and result are scalars). */
static inline int rp_cell_try(rv *out, int64_t width, int64_t height, rv x, rv y)
{
    if (RP_UNLIKELY(x.t != T_INT || y.t != T_INT)) return 0;
    *out = x.u.i < 0 || x.u.i >= width || y.u.i < 0 || y.u.i >= height ? rv_null() : rv_int(y.u.i * width + x.u.i);
    return 1;
}
static inline rv rp_cell_inline(rp_ctx *C, int64_t width, int64_t height, rv x, rv y, int32_t where)
{
    rv out;
    if (RP_LIKELY(rp_cell_try(&out, width, height, x, y))) return out;
    rp_bail(C, RP_BAIL_RULE, "cell() needs ints", where);
    return rv_null();
}

/* A call of a builtin over static data gives the same result, at the same cost, for the same scalar
 * arguments: the first is kept (rp_builtins.c), and each call site points at the kept calls it met, in a
 * few slots of its own that are each set once.  A site's arguments look in RP_SITE_PROBES slots from the
 * one their hash names, so arguments whose hashes meet still find their own (Connect Four's `line_of`
 * meets 168 cell and direction pairs at one site). */
typedef struct rp_kept {
    int32_t ready;                 /* 0 free, 2 being filled, 1 filled */
    int32_t bi, nargs;
    rv args[4];
    rv result;
    int64_t iterations, copies;
} rp_kept;

#define RP_SITE_SLOTS 256
#define RP_SITE_PROBES 4
rv rp_site_fill(rp_ctx *C, rp_kept **slot, int32_t bi, const rv *args, int32_t nargs, int32_t where);

/* The slot of a site's arguments: only those that vary at the site (bit i of `vary`) are hashed and
 * compared, the others being the site's own constants.  `nargs` and `vary` are constants of the site, so
 * the loops unroll to the varying arguments alone. */
static inline __attribute__((always_inline)) uint64_t rp_site_hash(const rv *args, int32_t nargs, uint32_t vary)
{
    uint64_t h = 0;
#pragma GCC unroll 4
    for (int32_t i = 0; i < nargs; i++)
        if (vary >> i & 1) h = (h ^ (uint64_t)args[i].u.i ^ ((uint64_t)args[i].t << 56)) * 0x9E3779B97F4A7C15ULL;
    return h >> 56;   /* RP_SITE_SLOTS = 256 */
}

static inline __attribute__((always_inline)) int rp_site_same(const rv *args, const rp_kept *k, int32_t nargs,
                                                              uint32_t vary)
{
    int same = 1;
#pragma GCC unroll 4
    for (int32_t i = 0; i < nargs; i++)
        if (vary >> i & 1) same &= args[i].t == k->args[i].t && args[i].u.i == k->args[i].u.i;
    return same;
}

static inline __attribute__((always_inline)) rv rp_site_call(rp_ctx *C, rp_kept **slots, int32_t bi,
                                                             const rv *args, int32_t nargs, uint32_t vary,
                                                             int32_t where)
{
    uint64_t h = rp_site_hash(args, nargs, vary);
    for (uint64_t probe = 0; probe < RP_SITE_PROBES; probe++) {
        rp_kept **slot = &slots[(h + probe) & (RP_SITE_SLOTS - 1)];
        rp_kept *k = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
        if (k == NULL)   /* never filled: these arguments are in no later slot either */
            return rp_site_fill(C, slot, bi, args, nargs, where);
        if (RP_LIKELY(rp_site_same(args, k, nargs, vary))) {
            if (RP_UNLIKELY(C->b->iterations < k->iterations || C->b->copies < k->copies))
                break;   /* the call itself bails, as the runtime charges it */
            C->b->iterations -= k->iterations;
            C->b->copies -= k->copies;
            return k->result;
        }
    }
    return rp_site_fill(C, NULL, bi, args, nargs, where);
}

/* A site whose varying arguments each take few values keeps its results in a table with a slot per
 * combination: the lowering numbers the combination (`at`: a cell of a board as itself, the item of a loop
 * over a constant list by its place in the list) and gives -1 for arguments outside those values, which
 * are then kept in the site's hashed slots (`hashed`, rp_site_call).  A slot names its arguments exactly,
 * so no argument is compared. */
static inline __attribute__((always_inline)) rv rp_site_at(rp_ctx *C, rp_kept **slots, int64_t at, rp_kept **hashed,
                                                           int32_t bi, const rv *args, int32_t nargs, uint32_t vary,
                                                           int32_t where)
{
    if (RP_LIKELY(at >= 0)) {
        rp_kept *k = __atomic_load_n(&slots[at], __ATOMIC_ACQUIRE);
        if (RP_LIKELY(k != NULL && C->b->iterations >= k->iterations && C->b->copies >= k->copies)) {
            C->b->iterations -= k->iterations;
            C->b->copies -= k->copies;
            return k->result;
        }
        /* never filled: filled now; filled but more than the budget left: the call itself bails */
        return rp_site_fill(C, k == NULL ? &slots[at] : NULL, bi, args, nargs, where);
    }
    return rp_site_call(C, hashed, bi, args, nargs, vary, where);
}

/* An argument's number among the ints 0..n-1 (a board's cells), or -1. */
static inline int64_t rp_site_int(rv v, int64_t n)
{
    return v.t == T_INT && (uint64_t)v.u.i < (uint64_t)n ? v.u.i : -1;
}

/* A text's number in a table the lowering made of some texts' ids (-1 for the others), or -1 for anything
 * else (lower_tables.py's `_board_step` numbers the directions' names so). */
static inline int64_t rp_text_number(rv v, const int64_t *numbers, int64_t n)
{
    return v.t == T_STR && (uint64_t)v.u.i < (uint64_t)n ? numbers[v.u.i] : -1;
}

/* `for x in obj[lo:hi]` in an expression, over a list: its items where they lie, charged as the slice is
 * made and walked (1); anything else (0, nothing charged) through rp_slice_view. */
static inline int rp_slice_try(rp_ctx *C, rv obj, rv lo, rv hi, const rv **items, int64_t *n)
{
    if (RP_LIKELY(obj.t == T_LIST && lo.t == T_INT && hi.t == T_INT && lo.u.i >= 0 && hi.u.i >= lo.u.i
                  && hi.u.i <= obj.u.l->len)) {
        int64_t count = hi.u.i - lo.u.i;
        C->b->copies -= count;
        C->b->iterations -= count;
        if (RP_LIKELY(C->b->copies >= 0 && C->b->iterations >= 0)) {
            *items = obj.u.l->items + lo.u.i;
            *n = count;
            return 1;
        }
        C->b->copies += count;
        C->b->iterations += count;
    }
    return 0;
}

/* A list of ints where it lies in a module table (a board's line from `line_of`, handed to a user function
 * whose version takes it so: lower_tables.py): where its items start, and how many. */
typedef struct rp_ints { const int64_t *at; int64_t n; } rp_ints;

/* `for x in T[lo:hi]` in an expression over such a list: bounds as Python takes them (null, or ints counted
 * from the end when negative, clamped), charged as rp_slice_view charges (made, then walked); 0 after a
 * bail, or for bounds of any other type (the Python path decides). */
static inline int rp_ints_slice(rp_ctx *C, rp_ints t, rv lo, rv hi, rp_ints *part, int32_t where)
{
    if (RP_UNLIKELY((lo.t != T_NULL && lo.t != T_INT) || (hi.t != T_NULL && hi.t != T_INT))) {
        rp_bail(C, RP_BAIL_NATIVE, RP_WHY_TABLE, where);
        return 0;
    }
    int64_t a = lo.t == T_NULL ? 0 : lo.u.i, b = hi.t == T_NULL ? t.n : hi.u.i;
    if (RP_UNLIKELY(!((uint64_t)a <= (uint64_t)b && (uint64_t)b <= (uint64_t)t.n))) {   /* 0 <= a <= b <= n kept */
        if (a < 0) { a += t.n; if (a < 0) a = 0; } else if (a > t.n) a = t.n;
        if (b < 0) { b += t.n; if (b < 0) b = 0; } else if (b > t.n) b = t.n;
        if (b < a) b = a;
    }
    int64_t count = b - a;
    if (!rp_made_walked(C, count, where)) return 0;
    part->at = t.at + a;
    part->n = count;
    return 1;
}

/* `T[k]` of such a list for an int key on the list (negative counts from the end): 1 with `*out` set; 0 for
 * any other key, which the Python path decides (an error, or a bool's index). */
static inline int rp_ints_index_try(int64_t *out, rp_ints t, rv key)
{
    if (RP_LIKELY(key.t == T_INT)) {
        int64_t k = key.u.i < 0 ? key.u.i + t.n : key.u.i;
        if (RP_LIKELY((uint64_t)k < (uint64_t)t.n)) { *out = t.at[k]; return 1; }
    }
    return 0;
}

/* sum() as CPython adds, item by item: ints exactly (64 bits here), then a float from the first float on
 * (compensated from Python 3.12), so a comprehension's sum needs no list. */
typedef struct rp_sum { int64_t i; double f, c; int32_t floats; } rp_sum;
int rp_sum_add(rp_ctx *C, rp_sum *acc, rv x, int32_t where);
rv rp_sum_result(rp_ctx *C, const rp_sum *acc, int32_t where);

/* A fused max(), min() or len() over a comprehension: what the list would have held, without the list. */
typedef struct rp_fold { int64_t count, size; rv best; int32_t bad; } rp_fold;
int rp_fold_add_any(rp_ctx *C, rp_fold *acc, rv x, int largest, int32_t where);
int64_t rp_size_nested(rp_ctx *C, rv v, int depth, int32_t where);   /* the size of a value `depth` lists down, as
                                                                        * the outer list's walk counts it */

static inline int rp_fold_add(rp_ctx *C, rp_fold *acc, rv x, int largest, int32_t where)
{
    if (RP_LIKELY(x.t == T_INT && (acc->count == 0 || acc->best.t == T_INT))) {   /* ints among ints */
        if (acc->count == 0 || (largest ? acc->best.u.i < x.u.i : x.u.i < acc->best.u.i)) acc->best = x;
        acc->count++;
        acc->size++;
        return 1;
    }
    return rp_fold_add_any(C, acc, x, largest, where);
}

/* A loop over `range(first, last)` of two C ints, inline: how many turns (charged as the list would be
 * made and walked, as rp_range_loop charges it), `*lo` the first; -1 after a bail. */
#define RP_MAX_ITEMS 100000   /* items one range(), repeat(), ... may make (dsl.runtime.MAX_ITEMS) */
static inline int64_t rp_range_ints(rp_ctx *C, int64_t first, int64_t last, int64_t *lo, int32_t where)
{
    __int128 n = (__int128)last - first;
    if (RP_UNLIKELY(n > RP_MAX_ITEMS)) { rp_bail(C, RP_BAIL_RULE, "range() too long", where); return -1; }
    if (n < 0) n = 0;
    *lo = first;
    return rp_built(C, (int64_t)n, where) && rp_spend(C, (int64_t)n, where) ? (int64_t)n : -1;
}
/* The same for a range the lowering knows is no longer than RP_MAX_ITEMS (lower_bounds.py): its length needs
 * no test, nor 128 bits. */
static inline int64_t rp_range_short(rp_ctx *C, int64_t first, int64_t last, int32_t where)
{
    int64_t n = last > first ? last - first : 0;
    return rp_made_walked(C, n, where) ? n : -1;
}

/* Truth of a value, a bool, an int or null inline; anything else through rp_truthy. */
static inline int rp_truth(rv v)
{
    if (RP_LIKELY(v.t == T_BOOL || v.t == T_INT)) return v.u.i != 0;
    return v.t == T_NULL ? 0 : rp_truthy(v);
}

/* Budget.charge of a value: nothing for a scalar (inline), a list's or map's size through rp_charge. */
static inline int rp_charge_fast(rp_ctx *C, rv v, int32_t where)
{
    return !rv_is_container(v) || rp_charge(C, v, where);
}

/* Scalars copy as themselves; a list or map through rp_copy (charged clone). */
static inline rv rp_copy_fast(rp_ctx *C, rv v, int32_t where)
{
    return rv_is_container(v) ? rp_copy(C, v, where) : v;
}

/* ------------------------------------------------------------------ calls of user functions */
/* Calls nested deeper than this are left to the Python engine, whose own recursion limit may stop them. */
#define RP_NATIVE_DEPTH 100

static inline int rp_enter(rp_ctx *C, int32_t where)
{
    if (RP_UNLIKELY(--C->b->room < 0)) {   /* past the model's depth (as Python is), else past the runtime's */
        rp_bail(C, C->b->max_depth <= RP_NATIVE_DEPTH ? RP_BAIL_LIMIT : RP_BAIL_NATIVE, "call depth", where);
        return 0;
    }
    return rp_spend(C, 1, where);
}
static inline void rp_leave(rp_ctx *C) { C->b->room++; }

/* ------------------------------------------------------------------ rules fired */
int rp_fire_grow(rp_ctx *C, int32_t rule);
/* Log rule `rule` as fired in this step: inline while the log has room (every step fires one or more). */
static inline int rp_fire(rp_ctx *C, int32_t rule)
{
    if (RP_UNLIKELY(C->nfired == C->cfired)) return rp_fire_grow(C, rule);
    C->fired[C->nfired++] = rule;
    return 1;
}
int rp_seats_check(rp_ctx *C, rv to, int32_t where);
int64_t rp_len_of_call(rp_ctx *C, int32_t bi, rv xs, int32_t where);   /* len(flatten(xs)), len(unique(xs)) */

/* ------------------------------------------------------------------ the lowered model */
typedef rv (*rp_expr_fn)(rp_ctx *C, const rv *A);    /* a value: a new reference */
typedef int (*rp_test_fn)(rp_ctx *C, const rv *A);   /* a condition's truth */
typedef void (*rp_exec_fn)(rp_ctx *C, const rv *A);  /* effects */

enum { ORDER_ALTERNATE = 0, ORDER_EACH = 1, ORDER_CHANCE = 2 };
enum { STUCK_ERROR = 0, STUCK_PASS = 1, STUCK_END_GAME = 2 };
enum { AT_NOW = 0, AT_END_OF_ROUND = 1, AT_END_OF_NEXT_ROUND = 2 };
#define RP_CHANCE (-1)
#define RP_TERMINAL (-4)
#define RP_MAX_PLAYERS 16

typedef struct rp_param {
    int64_t radix;           /* values of `of:` */
    const rv *universe;      /* the `of:` values (constants) */
    rp_expr_fn from;         /* `from:`, or NULL */
    rp_test_fn where;        /* `where:` (params 0..i bound), or NULL */
    rp_expr_fn seen_by;      /* `seen_by:` (every param bound), or NULL */
    /* finding a `from:` value among the `of:` values: ints lo..lo+n-1 and the module's texts by table */
    int64_t int_lo, int_n; const int32_t *int_index;   /* k, or -1 */
    int64_t text_n; const int32_t *text_index;         /* k by text id, or -1 */
    /* lists of two ints [x, y] within a box (x0.., y0.., w by h): k by (x - x0) * h + (y - y0), or -1 */
    int64_t pair_x0, pair_y0, pair_w, pair_h; const int32_t *pair_index;
    int32_t *slots; uint64_t mask;                     /* other values: k by rp_hash_value (-1 empty), or NULL */
} rp_param;
int rp_param_index(struct rp_param *p);   /* build `slots` (module set-up): 0 when out of memory */

/* The legal moves being listed (their numbers). */
typedef struct rp_moves { int32_t *v; int64_t n, cap; } rp_moves;
int rp_grow_moves(rp_ctx *C, rp_moves *out);
static inline int rp_push_move(rp_ctx *C, rp_moves *out, int64_t index)
{
    if (RP_UNLIKELY(out->n == out->cap) && !rp_grow_moves(C, out)) return 0;
    out->v[out->n++] = (int32_t)index;
    return 1;
}
/* Room for `more` moves past those listed (0 when out of memory): a listing that lists no more than a few
 * makes room once, then writes each move where the one before it ended, without a test. */
static inline int rp_reserve_moves(rp_ctx *C, rp_moves *out, int64_t more)
{
    while (RP_UNLIKELY(out->cap - out->n < more)) if (!rp_grow_moves(C, out)) return 0;
    return 1;
}
struct rp_param;
/* The `of:` positions a `from:` list names, sorted, each once (checked and charged as engine/legal.py does):
 * their number, -1 on a bail; `*ks` is the caller's to free. */
int64_t rp_from_candidates(rp_ctx *C, const struct rp_param *p, rv values, int64_t **ks);

typedef struct rp_action {
    int32_t nparams;
    const rp_param *params;
    int32_t disabled, chance;
    int64_t first_index, size;
    const int32_t *rules; int32_t nrules;
    int32_t nchecks;
    const rp_test_fn *checks;     /* `require:` checks, each at its level */
    const int32_t *check_level;   /* the parameter after which each runs (-1: before the first) */
    rp_exec_fn effects;
    rp_expr_fn weight;            /* chance weight, or NULL */
    int32_t private_;             /* some parameter has `seen_by:` */
    int (*list)(rp_ctx *C, rp_moves *out);   /* the action's moves now, its checks written out in its loops */
    int32_t fallback;             /* `fallback: true`: listed only when no other action on offer lists a move */
} rp_action;

typedef struct rp_phase {
    int32_t name;                 /* text id */
    int32_t order, turn_multi, when_stuck;
    rp_expr_fn first;             /* or NULL */
    const int32_t *actions; int32_t nactions;
    int32_t nstages;
    const int32_t *stage_names;   /* text ids */
    const int32_t *const *stage_actions; const int32_t *stage_nactions; const int32_t *stage_chance;
    rp_test_fn end_if;            /* or NULL */
    rp_exec_fn on_begin, on_end;  /* or NULL */
    int32_t next;                 /* phase index, or -1 */
    int32_t stuck_label;          /* text id of "stuck in NAME" */
} rp_phase;

typedef struct rp_end {
    rp_test_fn when;
    int32_t at, disabled, label;  /* label: text id of what flow.ended_by records */
    const int32_t *rules; int32_t nrules;
} rp_end;

typedef struct rp_trigger {
    rp_test_fn when;
    rp_exec_fn effects;
    const int32_t *rules; int32_t nrules;
} rp_trigger;

typedef struct rp_var {
    int32_t per_player;
    rp_expr_fn init;              /* per player: A[0] is the seat */
} rp_var;

typedef struct rp_model {
    int32_t players, nvars, nphases, nactions, nends, ntriggers, ninvariants;
    int64_t num_actions;
    const rp_var *vars;
    rp_exec_fn setup;
    rp_expr_fn start_player;      /* or NULL */
    int32_t rotate_start;
    rp_test_fn skip_if;           /* `p` is A[0]; or NULL */
    rp_exec_fn on_round_begin, on_round_end;
    const rp_phase *phases;
    const rp_action *actions;
    const rp_end *ends;
    const rp_trigger *triggers;
    const rp_test_fn *invariants;
    rp_expr_fn score;             /* `p` is A[0]; or NULL */
    int32_t ntiebreaks;
    const rp_expr_fn *tiebreaks;
    rp_expr_fn returns;           /* or NULL */
    int32_t nheuristics;
    const rp_expr_fn *heuristics; /* `seat` is A[0]; NULL for one the module does not lower */
    int32_t weighted_chance, checking;
    int64_t limit_iterations, limit_copies, limit_max_steps;
    int32_t limit_max_depth;
    int32_t text_end_game;        /* text id of "end_game" */
    int32_t sum_compensated;      /* Python's sum() of floats is compensated (3.12 and later) */
    /* components: for each text id below ncomponent_texts, the component's index or -1 */
    int64_t ncomponent_texts;
    const int32_t *component_of_text;
    int32_t ncomponents;
    const int32_t *component_ids;         /* text id per component, in declaration order */
    const int32_t *component_kind;        /* text id of each component's kind */
    int32_t nkinds;
    const int32_t *kind_names;            /* text ids */
    const int32_t *const *kind_members; const int32_t *kind_nmembers;
    /* properties: property p of component c is props[p * ncomponents + c] (T_NULL with pad 1: missing) */
    int32_t nprops;
    const int32_t *prop_names;            /* text ids */
    const rv *props;
    /* boards */
    int32_t nboards;
    const int32_t *board_names; const int32_t *board_width; const int32_t *board_height;
    const int32_t *board_nsets;                     /* own step sets per board */
    const int32_t *const *board_set_names;          /* text ids */
    const int32_t *const *board_set_len;
    const int32_t *const *const *board_set_steps;   /* dx, dy pairs */
    /* graphs: nodes are constants; adjacency by node index */
    int32_t ngraphs;
    const int32_t *graph_names;
    const int32_t *graph_nnodes;
    const rv *const *graph_nodes;          /* node values, in the graph's node order */
    const rv *graph_node_list;             /* the nodes as one constant list value per graph */
    const int32_t *const *graph_adj_start; /* adjacency of node k: adj[start[k] .. start[k+1]) */
    const int32_t *const *graph_adj;       /* node indices, in the declared graph's order */
    /* direction names and sets known to every board */
    const int32_t *dir_names;              /* text ids of N NE E SE S SW W NW */
    const int32_t *set_names;              /* text ids of orthogonal diagonal king knight */
    int32_t text_kind, text_id;            /* text ids of "kind", "id" */
} rp_model;

/* `obj.name`, a component's property (`p` its row of props, which the lowering knows from the name), read
 * where it lies and charged as the copy rp_field makes (a constant's size, counted once), for a reader that
 * keeps nothing of it (lower_expr.py's `_read`).  0, nothing charged, for anything else (a map, no
 * component, no such property, a copy past the budget): rp_field decides it. */
static inline int rp_prop_try(rp_ctx *C, rv *out, rv obj, int32_t p)
{
    const rp_model *M = C->M;
    if (obj.t != T_STR || obj.u.i >= M->ncomponent_texts) return 0;
    int32_t c = M->component_of_text[obj.u.i];
    if (c < 0) return 0;
    rv v = M->props[(int64_t)p * M->ncomponents + c];
    int64_t size = v.t == T_LIST ? v.u.l->size : v.t == T_MAP ? v.u.m->size : 0;
    if ((v.t == T_NULL && v.pad) || size < 0 || C->b->copies < size) return 0;
    C->b->copies -= size;
    *out = v;
    return 1;
}

/* ------------------------------------------------------------------ states */
typedef struct rp_flow {
    int32_t phase, stage;                  /* stage -1: none */
    int64_t seat, player, players, round, turn, start;
    int32_t queue[RP_MAX_PLAYERS]; int32_t nqueue;
    int64_t end_round; int32_t has_end_round;
    int32_t done;
    int64_t steps;
    int32_t ended_by;                      /* text id, or -1 */
} rp_flow;

typedef struct rp_state {
    const rp_model *M;
    rv *vars;
    /* changed[i]: variable i may differ from what the state's last observation row showed (rp_observe_row with
     * `used`, which clears these): set by every effect that assigns to it or changes it as a list (the lowered
     * targets, lower_effects.py), and for every variable by a set-up, a copy, a state read in or rewritten
     * (rp_state_changed_all); a row rewrites only the entries it cannot prove the same. */
    uint8_t *changed;
    rp_flow flow;
    uint64_t rng;
    int32_t *legal; int64_t nlegal, clegal; int32_t legal_known;
    int32_t *fired; int32_t nfired, cfired;      /* the rules the last step fired, each once */
    uint32_t seen[RP_MAX_PLAYERS + 1];           /* who saw each argument of the last move; bit 31: all */
    int32_t nseen;                               /* 0: every argument public */
    int64_t last_move;                           /* the move that led here, or -1 */
} rp_state;

/* The engine: flow, listing, moves, scoring (rp_engine.c). */
int rp_state_setup(const rp_model *M, rp_state *S, uint64_t seed, rp_ctx *C);
int rp_state_apply(rp_state *S, int64_t action, rp_ctx *C);
int rp_state_apply_at(rp_state *S, int64_t at, rp_ctx *C);
int rp_state_apply_chance(rp_state *S, rp_ctx *C);
int rp_state_list(rp_state *S, rp_ctx *C);
int rp_state_weights(rp_state *S, double *out, rp_ctx *C);
int rp_state_scores(rp_state *S, rv *out, rp_ctx *C);
int rp_state_heuristic(rp_state *S, int32_t k, rv *out, rp_ctx *C);
int rp_state_returns(rp_state *S, double *out, rp_ctx *C);
rp_state *rp_state_alloc(const rp_model *M);
void rp_state_changed_all(rp_state *S);
rp_state *rp_state_clone(const rp_state *S);
int rp_state_copy_into(rp_state *T, const rp_state *S);
int rp_num_cmp(rv a, rv b);   /* two ints or floats, as Python orders them: -1, 0 or 1 */
void rp_state_free(rp_state *S);
void rp_ctx_init(rp_ctx *C, const rp_model *M, rp_state *S);
void rp_ctx_done(rp_ctx *C);

/* A move's (or a listing's) budget as the model's limits set it, and no signal raised. */
static inline void rp_fresh_budget(const rp_model *M, rp_budget *b)
{
    b->iterations = M->limit_iterations;
    b->copies = M->limit_copies;
    b->max_depth = M->limit_max_depth;
    b->room = b->max_depth < RP_NATIVE_DEPTH ? b->max_depth : RP_NATIVE_DEPTH;
}
static inline void rp_clear_signals(rp_signals *s)
{
    s->end_turn = s->end_phase = s->end_game = s->stage_set = 0;
    s->stage = -1;
    s->go = -1;
}

/* The step (rp_step.c, compiled into each module): the game started from a set-up state (C->S) and its
 * first legal moves listed; a move's action and arguments; the rest of the engine's help to the step. */
int rp_step_start(rp_ctx *C);
void rp_decode(int64_t index, int32_t *action, rv *args);
int rp_list_unlowered(rp_ctx *C, const rp_action *a, rp_moves *out);
double rp_outcome_weight(rp_ctx *C, const rp_action *a, int64_t index);
int rp_invariants(rp_state *S);

/* ------------------------------------------------------------------ what a seat sees (rp_observe.c) */
/* Each state variable's visibility, and its `visible_if` and `back` lowered from the ruleset (item, index,
 * viewer and owner in A[0..3]), in the model's order: the module's table RP_SEEN_VARS (lower_observe.py). */
enum { SEEN_PUBLIC = 0, SEEN_OWNER = 1, SEEN_HIDDEN = 2 };
typedef struct rp_seen_var {
    int32_t visibility;
    int32_t lowered;          /* 0: its visible_if or back is not in the module: views are left to Python */
    rp_test_fn visible_if;    /* or NULL */
    rp_expr_fn back;          /* or NULL */
    /* What the two read besides `item`, `index` and `owner`: whether `viewer`, and the state variables `reads`
     * (`nreads` of them; -1 where the lowering cannot list them: a call, a flow value, ...). */
    int32_t by_viewer, nreads;
    const int32_t *reads;
} rp_seen_var;
extern const rp_seen_var RP_SEEN_VARS[];
/* A row of a batch written over and over (rp_batch.c): only what the row's last vector or mask wrote is cleared. */
struct rp_layout;
struct rp_error;
int64_t rp_view_entries(const rp_model *M);
#define RP_VIEW_USED 4   /* the numbers rp_observe_row's `used` holds for each entry */
void rp_view_unknown(const rp_model *M, const struct rp_layout *L, int32_t *used);
const char *rp_layout_unfit(const rp_model *M, const struct rp_layout *L);
/* What a batch's slot keeps of each seat's last row: the entries that read `viewer` (rp_observe.c).  NULL where a
 * game has none such (or memory is short: rows are then written without). */
typedef struct rp_seat_views rp_seat_views;
rp_seat_views *rp_seat_views_new(const rp_model *M, const struct rp_layout *L);
void rp_seat_views_free(rp_seat_views *V);
int rp_observe_row(rp_state *S, const struct rp_layout *L, int32_t seat, int32_t prev, float *out, int32_t *used,
                   rp_seat_views *views, struct rp_error *e);
int rp_mask_row(rp_state *S, int32_t masked, int8_t *mask, int64_t nactions, const int32_t *was, int64_t nwas);

#endif
