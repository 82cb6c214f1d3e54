/* The engine in C, but for its step: states, what listing needs beyond a lowered listing, chance, set-up,
 * scores and returns (engine/scoring.py), written step for step as the Python engine does them.  A step
 * that meets anything the Python engine would report (a rule error, a limit) bails, and the Python
 * engine makes that step.  The step itself (the flow, listing the legal moves, making a move) is
 * rp_step.c, compiled into each module with the module's model as a constant. */
#include "rp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* ------------------------------------------------------------------ states and contexts */
void rp_ctx_init(rp_ctx *C, const rp_model *M, rp_state *S)
{
    memset(C, 0, sizeof *C);
    C->M = M;
    C->S = S;
    rp_fresh_budget(M, &C->own);
    C->b = &C->own;
    rp_clear_signals(&C->sig);
    C->where = -1;
    if (S) C->rng = S->rng;
    C->pool = rp_thread_pool();
}

void rp_ctx_done(rp_ctx *C) { free(C->fired); C->fired = NULL; C->nfired = C->cfired = 0; }

rp_state *rp_state_alloc(const rp_model *M)
{
    rp_state *S = calloc(1, sizeof *S);
    if (!S) return NULL;
    S->M = M;
    S->vars = calloc((size_t)(M->nvars ? M->nvars : 1), sizeof(rv));
    S->changed = malloc((size_t)(M->nvars ? M->nvars : 1));
    if (!S->vars || !S->changed) { free(S->vars); free(S->changed); free(S); return NULL; }
    rp_state_changed_all(S);
    S->flow.stage = -1;
    S->flow.ended_by = -1;
    S->last_move = -1;
    return S;
}

/* Every variable marked changed (rp_state's `changed`): after anything but a lowered effect wrote the state. */
void rp_state_changed_all(rp_state *S)
{
    memset(S->changed, 1, (size_t)(S->M->nvars ? S->M->nvars : 1));
}

void rp_state_free(rp_state *S)
{
    if (!S) return;
    for (int32_t i = 0; i < S->M->nvars; i++) rv_drop(S->vars[i]);
    free(S->vars);
    free(S->changed);
    free(S->legal);
    free(S->fired);
    free(S);
}

/* Make T (a state of the same model) a copy of S, reusing T's buffers: a search that copies a state
   at every node keeps one state per depth instead of allocating one per node.  0 when out of memory
   (T is then left holding null variables, fit only to be copied into again or freed). */
int rp_state_copy_into(rp_state *T, const rp_state *S)
{
    const rp_model *M = S->M;
    rp_ctx C;
    rp_ctx_init(&C, M, NULL);
    rp_state_changed_all(T);
    for (int32_t i = 0; i < M->nvars; i++) {
        rv_drop(T->vars[i]);
        T->vars[i] = rv_null();
    }
    for (int32_t i = 0; i < M->nvars; i++) {
        T->vars[i] = rp_clone(&C, S->vars[i]);
        if (C.err) return 0;
    }
    T->flow = S->flow;
    T->rng = S->rng;
    T->nlegal = 0;
    T->legal_known = 0;
    if (S->legal_known && S->nlegal) {
        if (T->clegal < S->nlegal) {
            int32_t *more = realloc(T->legal, (size_t)S->nlegal * sizeof(int32_t));
            if (!more) return 0;
            T->legal = more; T->clegal = S->nlegal;
        }
        rp_memcpy(T->legal, S->legal, (size_t)S->nlegal * sizeof(int32_t));
    }
    T->nlegal = S->nlegal;
    T->legal_known = S->legal_known;
    T->nfired = 0;
    if (S->nfired) {
        if (T->cfired < S->nfired) {
            int32_t *more = realloc(T->fired, (size_t)S->nfired * sizeof(int32_t));
            if (!more) return 0;
            T->fired = more; T->cfired = S->nfired;
        }
        rp_memcpy(T->fired, S->fired, (size_t)S->nfired * sizeof(int32_t));
    }
    T->nfired = S->nfired;
    memcpy(T->seen, S->seen, sizeof S->seen);
    T->nseen = S->nseen;
    T->last_move = S->last_move;
    return 1;
}

rp_state *rp_state_clone(const rp_state *S)
{
    rp_state *T = rp_state_alloc(S->M);
    if (T && !rp_state_copy_into(T, S)) { rp_state_free(T); return NULL; }
    return T;
}

/* ------------------------------------------------------------------ legal moves (engine/legal.py) */
int rp_grow_moves(rp_ctx *C, rp_moves *out)
{
    int64_t cap = out->cap ? out->cap * 2 : 16;
    int32_t *v = realloc(out->v, (size_t)cap * sizeof(int32_t));
    if (!v) { rp_bail(C, RP_BAIL_MEMORY, "out of memory", -1); return 0; }
    out->v = v; out->cap = cap;
    return 1;
}

static int same_value(rv v, rv known)
{
    if (v.t != known.t) return 0;
    if (v.t == T_FLT) return memcmp(&v.u.f, &known.u.f, sizeof(double)) == 0;
    if (v.t == T_LIST) {
        if (v.u.l->len != known.u.l->len) return 0;
        for (int64_t i = 0; i < v.u.l->len; i++) if (!same_value(v.u.l->items[i], known.u.l->items[i])) return 0;
        return 1;
    }
    return v.t != T_MAP;
}

/* The `of:` position of a `from:` value, or -1 (a bail: not among them, or not written as they are). */
int rp_param_index(rp_param *p)
{
    uint64_t cap = 4;
    while (cap < (uint64_t)(2 * p->radix + 2)) cap *= 2;   /* at most half full */
    p->slots = malloc((size_t)cap * sizeof(int32_t));
    if (!p->slots) return 0;
    memset(p->slots, 0xff, (size_t)cap * sizeof(int32_t));
    p->mask = cap - 1;
    for (int64_t k = 0; k < p->radix; k++) {   /* the first of values equal by `==` keeps the slot */
        uint64_t h = rp_hash_value(p->universe[k]) & p->mask;
        while (p->slots[h] >= 0 && !rp_equal(p->universe[p->slots[h]], p->universe[k])) h = (h + 1) & p->mask;
        if (p->slots[h] < 0) p->slots[h] = (int32_t)k;
    }
    return 1;
}

static int64_t universe_index(rp_ctx *C, const rp_param *p, rv v)
{
    int64_t k = -1;
    if (v.t == T_INT && p->int_index) {
        if (v.u.i >= p->int_lo && v.u.i - p->int_lo < p->int_n) k = p->int_index[v.u.i - p->int_lo];
    } else if (v.t == T_STR && p->text_index) {
        if (v.u.i < p->text_n) k = p->text_index[v.u.i];
    } else if (v.t == T_LIST && p->pair_index && v.u.l->len == 2 && v.u.l->items[0].t == T_INT
               && v.u.l->items[1].t == T_INT) {
        /* two ints equal only two equal ints, and are written alike: no other `of:` value is that value */
        uint64_t x = (uint64_t)v.u.l->items[0].u.i - (uint64_t)p->pair_x0;
        uint64_t y = (uint64_t)v.u.l->items[1].u.i - (uint64_t)p->pair_y0;
        if (x < (uint64_t)p->pair_w && y < (uint64_t)p->pair_h) k = p->pair_index[x * (uint64_t)p->pair_h + y];
        if (k >= 0) return k;
    } else if (v.t != T_MAP && p->slots) {
        uint64_t h = rp_hash_value(v) & p->mask;
        while (p->slots[h] >= 0 && !rp_equal(p->universe[p->slots[h]], v)) h = (h + 1) & p->mask;
        k = p->slots[h];
    } else if (v.t != T_MAP) {
        for (int64_t i = 0; i < p->radix && k < 0; i++) if (rp_equal(p->universe[i], v)) k = i;
    }
    if (k < 0) { rp_bail(C, RP_BAIL_RULE, "a `from:` value is not among `of:`", -1); return -1; }
    /* found equal (`==`): a scalar but a float is then written alike when it is of the same kind */
    int alike = v.t < T_LIST && v.t != T_FLT ? v.t == p->universe[k].t : same_value(v, p->universe[k]);
    if (!alike) { rp_bail(C, RP_BAIL_NATIVE, "a `from:` value written otherwise", -1); return -1; }
    return k;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* `ks` (places among `radix` values) made ascending, each once, as the listing walks them: their count.  A
 * small universe is marked in a bitmap and read back in order; a large one is sorted. */
#define BITMAP_RADIX 4096
static int64_t ascending_once(int64_t *ks, int64_t n, int64_t radix)
{
    int64_t m = 0;
    if (radix <= BITMAP_RADIX) {
        uint64_t bits[BITMAP_RADIX / 64];
        int64_t words = (radix + 63) / 64;
        memset(bits, 0, (size_t)words * sizeof(uint64_t));
        for (int64_t j = 0; j < n; j++) bits[ks[j] >> 6] |= 1ULL << (ks[j] & 63);
        for (int64_t w = 0; w < words; w++)
            for (uint64_t b = bits[w]; b; b &= b - 1) ks[m++] = w * 64 + __builtin_ctzll(b);
        return m;
    }
    qsort(ks, (size_t)n, sizeof(int64_t), cmp_i64);
    for (int64_t j = 0; j < n; j++) if (m == 0 || ks[m - 1] != ks[j]) ks[m++] = ks[j];
    return m;
}

static int charge_tries(rp_ctx *C, int64_t count)
{
    C->b->iterations -= count;
    if (C->b->iterations < 0) { rp_bail(C, RP_BAIL_LIMIT, "too many parameter values", -1); return 0; }
    return 1;
}

int64_t rp_from_candidates(rp_ctx *C, const rp_param *p, rv values, int64_t **out)
{
    *out = NULL;
    if (values.t != T_LIST) { rp_bail(C, RP_BAIL_RULE, "`from:` gave no list", -1); return -1; }
    rp_list *l = values.u.l;
    int64_t *ks = malloc((size_t)(l->len ? l->len : 1) * sizeof(int64_t));
    if (!ks) { rp_bail(C, RP_BAIL_MEMORY, "out of memory", -1); return -1; }
    int64_t n = 0;
    for (int64_t j = 0; j < l->len; j++) {
        int64_t k = universe_index(C, p, l->items[j]);
        if (k < 0) { free(ks); return -1; }
        ks[n++] = k;
    }
    *out = ks;
    return ascending_once(ks, n, p->radix);
}

static int list_level(rp_ctx *C, const rp_action *a, int32_t i, int64_t prefix, rv *A, rp_moves *out)
{
    const rp_param *p = &a->params[i];
    int64_t radix = p->radix, n = radix;
    int64_t *ks = NULL;
    int ok = 0;
    if (p->from) {
        rv values = p->from(C, A);
        if (C->err) return 0;
        n = rp_from_candidates(C, p, values, &ks);
        rv_drop(values);
        if (n < 0) return 0;
    }
    if (!charge_tries(C, n)) goto done;
    int last = i == a->nparams - 1;
    int64_t base = prefix * radix;
    for (int64_t j = 0; j < n; j++) {
        int64_t k = ks ? ks[j] : j;
        A[i] = p->universe[k];
        if (p->where) {
            int keep = p->where(C, A);
            if (C->err) goto done;
            if (!keep) continue;
        }
        int pass = 1;
        for (int32_t c = 0; c < a->nchecks && pass; c++) {
            if (a->check_level[c] != i) continue;
            pass = a->checks[c](C, A);
            if (C->err) goto done;
        }
        if (!pass) continue;
        if (!last) { if (!list_level(C, a, i + 1, base + k, A, out)) goto done; }
        else if (!rp_push_move(C, out, a->first_index + base + k)) goto done;
    }
    ok = 1;
done:
    A[i] = rv_null();
    free(ks);
    return ok;
}

/* The moves of `a`, an action the module has no lowered listing for: its checks and parameters tried in
 * turn, as engine/legal.py tries them. */
int rp_list_unlowered(rp_ctx *C, const rp_action *a, rp_moves *out)
{
    for (int32_t c = 0; c < a->nchecks; c++) {
        if (a->check_level[c] != -1) continue;
        int pass = a->checks[c](C, NULL);
        if (C->err || !pass) return !C->err;
    }
    if (!a->nparams) return rp_push_move(C, out, a->first_index);
    rv A[64];
    for (int32_t i = 0; i < a->nparams; i++) A[i] = rv_null();
    return list_level(C, a, 0, 0, A, out);
}


static int finite_number(rv v, double *out)
{
    if (v.t == T_INT) { *out = (double)v.u.i; return 1; }
    if (v.t == T_FLT && isfinite(v.u.f)) { *out = v.u.f; return 1; }
    return 0;
}

/* The chance weight of move `index` of `a` (1 without `weight:`); 0 with a bail. */
double rp_outcome_weight(rp_ctx *C, const rp_action *a, int64_t index)
{
    if (!a->weight) return 1.0;
    rv A[64];
    int32_t act;
    rp_decode(index, &act, A);
    rv w = a->weight(C, A);
    if (C->err) return 0;
    double d;
    if (!finite_number(w, &d) || d < 0) { rv_drop(w); rp_bail(C, RP_BAIL_RULE, "a chance weight", -1); return 0; }
    return d;
}

/* Python's sum() of a list of floats: plain, or compensated (Python 3.12 and later). */
static double py_sum(const double *xs, int64_t n, int compensated)
{
    if (n == 0) return 0.0;
    double f = 0.0 + xs[0], c = 0.0;
    for (int64_t i = 1; i < n; i++) {
        if (compensated) {
            double t = f + xs[i];
            if (fabs(f) >= fabs(xs[i])) c += (f - t) + xs[i];
            else c += (xs[i] - t) + f;
            f = t;
        } else {
            f += xs[i];
        }
    }
    if (c != 0.0 && isfinite(c)) f += c;
    return f;
}

/* `py_sum` for the search (rp_search.c): a chance draw and a standing sum as Python's sum() makes them. */
double rp_py_sum(const double *xs, int64_t n, int compensated) { return py_sum(xs, n, compensated); }

int rp_state_weights(rp_state *S, double *out, rp_ctx *C)
{
    for (int64_t i = 0; i < S->nlegal; i++) {
        int32_t act;
        rv A[64];
        rp_decode(S->legal[i], &act, A);
        out[i] = rp_outcome_weight(C, &S->M->actions[act], S->legal[i]);
        if (C->err) return 0;
    }
    if (!isfinite(py_sum(out, S->nlegal, S->M->sum_compensated))) {
        rp_bail(C, RP_BAIL_RULE, "chance weights too large", -1);
        return 0;
    }
    return 1;
}

int rp_invariants(rp_state *S)
{
    const rp_model *M = S->M;
    rp_ctx C;
    rp_ctx_init(&C, M, S);
    int ok = 1;
    for (int32_t i = 0; i < M->ninvariants && ok; i++) {
        ok = M->invariants[i](&C, NULL);
        if (C.err) ok = 0;
    }
    rp_ctx_done(&C);
    return ok;
}

/* The chance outcome the state's generator draws here, made. */
int rp_state_apply_chance(rp_state *S, rp_ctx *C)
{
    if (!S->flow.done && !S->legal_known && !rp_state_list(S, C)) return 0;
    if (S->flow.player != RP_CHANCE || !S->nlegal) {
        rp_bail(C, RP_BAIL_ILLEGAL, "not a chance node", -1);
        return 0;
    }
    double *w = malloc((size_t)S->nlegal * sizeof(double));
    if (!w) { rp_bail(C, RP_BAIL_MEMORY, "out of memory", -1); return 0; }
    rp_ctx W;
    rp_ctx_init(&W, S->M, S);
    int ok = rp_state_weights(S, w, &W);
    if (!ok) { rp_bail(C, W.err, W.why, W.where); rp_ctx_done(&W); free(w); return 0; }
    rp_ctx_done(&W);
    uint64_t rng = S->rng;
    double pick = rp_random(&rng) * py_sum(w, S->nlegal, S->M->sum_compensated);
    int64_t chosen = S->legal[S->nlegal - 1];
    for (int64_t i = 0; i < S->nlegal; i++) {
        if (pick < w[i]) { chosen = S->legal[i]; break; }
        pick -= w[i];
    }
    free(w);
    S->rng = rng;
    return rp_state_apply(S, chosen, C);
}

/* ------------------------------------------------------------------ set-up */
/* A set-up that draws no random number makes the same state for every seed but for the generator's own
 * state, so the first one made is kept and later ones are copies of it (as engine/game.py keeps it). */
typedef struct {
    rp_state *state;
    unsigned char flat[];   /* per variable: 1 when it is a list none of whose items is a list or a map */
} kept_setup;
static kept_setup *initial;   /* set once, by an atomic exchange: read without a lock by every game's set-up */

/* Tested item by item without a branch (a board's cells are all scalars): a tag plus 3 reaches 8 only for a
 * list or a map. */
_Static_assert(T_STR + 3 < 8 && T_LIST + 3 == 8 && T_MAP + 3 == 9, "the tags the tests below rely on");
static int holds_no_container(const rp_list *l)
{
    int32_t tags = 0;
    for (int64_t k = 0; k < l->len; k++) tags |= l->items[k].t + 3;
    return !(tags & 8);
}

/* `from`'s items written over the list in `slot` when that list is the slot's alone, as long, and neither
 * holds a container (the last game's board made the new game's): 1 done, 0 left to a copy.  `from_flat`:
 * `from` (a kept set-up's, never changed in place) was found holding none when it was kept. */
static int copy_flat_over(rv *slot, rv from, int from_flat)
{
    if (!from_flat || slot->t != T_LIST) return 0;
    rp_list *to = slot->u.l, *src = from.u.l;
    if (to == src || to->immortal || to->rc != 1 || to->size != -1 || to->len != src->len) return 0;
    if (!holds_no_container(to)) return 0;
    rp_memcpy(to->items, src->items, (size_t)to->len * sizeof(rv));
    return 1;
}

static int copy_into(rp_state *S, const kept_setup *K, rp_ctx *C)
{
    const rp_state *T = K->state;
    for (int32_t i = 0; i < S->M->nvars; i++) {
        if (!rv_is_container(T->vars[i])) { rv_set(&S->vars[i], T->vars[i]); continue; }   /* a scalar: itself */
        if (copy_flat_over(&S->vars[i], T->vars[i], K->flat[i])) continue;
        rv v = rp_clone(C, T->vars[i]);
        if (C->err) return 0;
        rv_set(&S->vars[i], v);
    }
    S->flow = T->flow;
    if (S->clegal < T->nlegal) {
        int32_t *legal = realloc(S->legal, (size_t)(T->nlegal ? T->nlegal : 1) * sizeof(int32_t));
        if (!legal) return 0;
        S->legal = legal; S->clegal = T->nlegal;
    }
    if (T->nlegal) rp_memcpy(S->legal, T->legal, (size_t)T->nlegal * sizeof(int32_t));
    S->nlegal = T->nlegal; S->legal_known = T->legal_known;
    if (S->cfired < T->nfired) {
        int32_t *fired = realloc(S->fired, (size_t)T->nfired * sizeof(int32_t));
        if (!fired) return 0;
        S->fired = fired; S->cfired = T->nfired;
    }
    if (T->nfired) rp_memcpy(S->fired, T->fired, (size_t)T->nfired * sizeof(int32_t));
    S->nfired = T->nfired;
    S->nseen = 0;
    S->last_move = -1;
    return 1;
}

static int setup_fresh(const rp_model *M, rp_state *S, uint64_t seed, rp_ctx *C);

int rp_state_setup(const rp_model *M, rp_state *S, uint64_t seed, rp_ctx *C)
{
    rp_state_changed_all(S);
    kept_setup *kept = __atomic_load_n(&initial, __ATOMIC_ACQUIRE);
    if (kept) {
        if (!copy_into(S, kept, C)) { rp_bail(C, RP_BAIL_MEMORY, "out of memory", -1); return 0; }
        S->rng = rp_seed_state(seed);
        return 1;
    }
    if (!setup_fresh(M, S, seed, C)) return 0;
    if (!C->drew) {
        kept_setup *copy = malloc(sizeof *copy + (size_t)M->nvars);
        if (copy && !(copy->state = rp_state_clone(S))) { free(copy); copy = NULL; }
        if (copy) {
            for (int32_t i = 0; i < M->nvars; i++) {
                rv v = copy->state->vars[i];
                copy->flat[i] = v.t == T_LIST && holds_no_container(v.u.l);
            }
            kept_setup *none = NULL;
            if (__atomic_compare_exchange_n(&initial, &none, copy, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) copy = NULL;
        }
        if (copy) { rp_state_free(copy->state); free(copy); }
    }
    return 1;
}

static int setup_fresh(const rp_model *M, rp_state *S, uint64_t seed, rp_ctx *C)
{
    rp_flow *f = &S->flow;
    memset(f, 0, sizeof *f);
    f->phase = 0; f->stage = -1; f->players = M->players; f->round = 1; f->ended_by = -1;
    C->S = S;
    C->rng = rp_seed_state(seed);
    for (int32_t i = 0; i < M->nvars; i++) {
        const rp_var *v = &M->vars[i];
        if (v->per_player) {
            rp_list *row = rp_list_new(C, M->players);
            if (!row) return 0;
            rv_set(&S->vars[i], rv_list(row));
            for (int32_t p = 0; p < M->players; p++) {
                rv A[1] = {rv_int(p)};
                rv value = v->init ? v->init(C, A) : rv_null();
                if (C->err) return 0;
                rv kept = rp_clone(C, value);
                rv_drop(value);
                if (C->err) return 0;
                row->items[row->len++] = kept;
            }
        } else {
            rv value = v->init ? v->init(C, NULL) : rv_null();
            if (C->err) return 0;
            rv kept = rp_clone(C, value);
            rv_drop(value);
            if (C->err) return 0;
            rv_set(&S->vars[i], kept);
        }
    }
    if (M->setup) { M->setup(C, NULL); if (C->err) return 0; }
    if (!rp_step_start(C)) return 0;
    S->rng = C->rng;
    int32_t *fired = malloc((size_t)(C->nfired ? C->nfired : 1) * sizeof(int32_t));   /* as set-up fired them */
    if (!fired) { rp_bail(C, RP_BAIL_MEMORY, "out of memory", -1); return 0; }
    rp_memcpy(fired, C->fired, (size_t)C->nfired * sizeof(int32_t));
    free(S->fired);
    S->fired = fired; S->nfired = S->cfired = C->nfired;
    if (M->checking && !rp_invariants(S)) { rp_bail(C, RP_BAIL_RULE, "an invariant", -1); return 0; }
    return 1;
}

/* ------------------------------------------------------------------ scores and returns */
static int per_player(rp_state *S, rp_expr_fn fn, rv *out, rp_ctx *C)
{
    for (int64_t p = 0; p < S->flow.players; p++) {
        rv A[1] = {rv_int(p)};
        rv v = fn(C, A);
        if (C->err) return 0;
        if (!(v.t == T_INT || (v.t == T_FLT && isfinite(v.u.f)))) {
            rv_drop(v);
            rp_bail(C, RP_BAIL_RULE, "a score is no finite number", -1);
            return 0;
        }
        out[p] = v;
    }
    return 1;
}

int rp_state_scores(rp_state *S, rv *out, rp_ctx *C)
{
    C->S = S;
    if (!S->M->score) {
        for (int64_t p = 0; p < S->flow.players; p++) out[p] = rv_int(0);
        return 1;
    }
    return per_player(S, S->M->score, out, C);
}

/* Heuristic k for every seat, as `scoring.heuristic_values` reads it (one it lacks is given up on). */
int rp_state_heuristic(rp_state *S, int32_t k, rv *out, rp_ctx *C)
{
    C->S = S;
    if (k < 0 || k >= S->M->nheuristics || !S->M->heuristics[k]) {
        rp_bail(C, RP_BAIL_NATIVE, "a heuristic the module does not hold", -1);
        return 0;
    }
    return per_player(S, S->M->heuristics[k], out, C);
}

int rp_num_cmp(rv a, rv b)
{
    int rp_cmp_int_flt(int64_t i, double f);
    if (a.t == T_INT && b.t == T_INT) return (a.u.i > b.u.i) - (a.u.i < b.u.i);
    if (a.t == T_FLT && b.t == T_FLT) return (a.u.f > b.u.f) - (a.u.f < b.u.f);
    if (a.t == T_INT) return rp_cmp_int_flt(a.u.i, b.u.f);
    return -rp_cmp_int_flt(b.u.i, a.u.f);
}

/* Python's round(x, 12): the correctly rounded decimal, read back. A whole number below 2^53 (every
   two-seat return, the common case) is its own rounding, so it skips the decimal's round trip. */
static double round12(double x)
{
    if (x > -9007199254740992.0 && x < 9007199254740992.0 && x == (double)(int64_t)x) return x;
    char buf[400];
    snprintf(buf, sizeof buf, "%.12f", x);
    return strtod(buf, NULL);
}

int rp_state_returns(rp_state *S, double *out, rp_ctx *C)
{
    const rp_model *M = S->M;
    int64_t n = S->flow.players;
    C->S = S;
    if (!S->flow.done) { for (int64_t p = 0; p < n; p++) out[p] = 0.0; return 1; }
    rv vals[RP_MAX_PLAYERS];
    if (M->returns) {
        if (!per_player(S, M->returns, vals, C)) return 0;
        for (int64_t p = 0; p < n; p++) out[p] = vals[p].t == T_INT ? (double)vals[p].u.i : vals[p].u.f;
        return 1;
    }
    if (n == 1) { out[0] = 0.0; return 1; }
    int32_t ncols = 1 + M->ntiebreaks;
    rv keys[RP_MAX_PLAYERS][1 + 16];
    if (ncols > 17) { rp_bail(C, RP_BAIL_NATIVE, "too many tie-breakers", -1); return 0; }
    if (!M->score) for (int64_t p = 0; p < n; p++) keys[p][0] = rv_int(0);
    else {
        if (!per_player(S, M->score, vals, C)) return 0;
        for (int64_t p = 0; p < n; p++) keys[p][0] = vals[p];
    }
    for (int32_t t = 0; t < M->ntiebreaks; t++) {
        if (!per_player(S, M->tiebreaks[t], vals, C)) return 0;
        for (int64_t p = 0; p < n; p++) keys[p][1 + t] = vals[p];
    }
    /* seats by key, largest first, ties in seat order (Python's stable sort with reverse=True) */
    int64_t order[RP_MAX_PLAYERS];
    for (int64_t p = 0; p < n; p++) {
        int64_t j = p;
        while (j > 0) {
            int c = 0;
            for (int32_t k = 0; k < ncols && !c; k++) c = rp_num_cmp(keys[order[j - 1]][k], keys[p][k]);
            if (c >= 0) break;
            order[j] = order[j - 1];
            j--;
        }
        order[j] = p;
    }
    for (int64_t i = 0; i < n;) {
        int64_t j = i;
        for (;;) {
            if (j + 1 >= n) break;
            int same = 1;
            for (int32_t k = 0; k < ncols && same; k++) same = rp_num_cmp(keys[order[j + 1]][k], keys[order[i]][k]) == 0;
            if (!same) break;
            j++;
        }
        double parts[RP_MAX_PLAYERS];
        for (int64_t k = i; k <= j; k++) parts[k - i] = 1 - (double)(2 * k) / (double)(n - 1);
        double value = py_sum(parts, j - i + 1, M->sum_compensated) / (double)(j - i + 1);
        for (int64_t k = i; k <= j; k++) out[order[k]] = round12(value);
        i = j + 1;
    }
    return 1;
}
