/* The engine in C: the flow's event loop (engine/flow.py), legal moves (engine/legal.py), moves, set-up,
 * scores and returns (engine/scoring.py), written step for step as the Python engine does them.  A step
 * that meets anything the Python engine would report (a rule error, a limit) bails, and the Python
 * engine makes that step. */
#include "rp.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_TRANSITIONS 1000

/* ------------------------------------------------------------------ states and contexts */
static void fresh_budget(const rp_model *M, rp_budget *b)
{
    b->iterations = M->limit_iterations;
    b->copies = M->limit_copies;
    b->depth = 0;
    b->max_depth = M->limit_max_depth;
}

static void clear_signals(rp_signals *s)
{
    s->end_turn = s->end_phase = s->end_game = s->stage_set = 0;
    s->stage = -1;
    s->go = -1;
}

void rp_ctx_init(rp_ctx *C, const rp_model *M, rp_state *S)
{
    memset(C, 0, sizeof *C);
    C->M = M;
    C->S = S;
    fresh_budget(M, &C->own);
    C->b = &C->own;
    clear_signals(&C->sig);
    C->where = -1;
    if (S) C->rng = S->rng;
}

void rp_ctx_done(rp_ctx *C) { free(C->fired); C->fired = NULL; C->nfired = C->cfired = 0; }

rp_state *rp_state_alloc(const rp_model *M)
{
    rp_state *S = calloc(1, sizeof *S);
    if (!S) return NULL;
    S->M = M;
    S->vars = calloc((size_t)(M->nvars ? M->nvars : 1), sizeof(rv));
    if (!S->vars) { free(S); return NULL; }
    S->flow.stage = -1;
    S->flow.ended_by = -1;
    S->last_move = -1;
    return S;
}

void rp_state_free(rp_state *S)
{
    if (!S) return;
    for (int32_t i = 0; i < S->M->nvars; i++) rv_drop(S->vars[i]);
    free(S->vars);
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

/* ------------------------------------------------------------------ the flow (engine/flow.py) */
typedef struct flowrun {
    rp_ctx *C;
    int32_t transitions;
} flowrun;

static rp_flow *F(flowrun *R) { return &R->C->S->flow; }

/* 1 active, 0 skipped, -1 a bail */
static int active(flowrun *R, int64_t seat)
{
    rp_ctx *C = R->C;
    if (!C->M->skip_if) return 1;
    rv A[1] = {rv_int(seat)};
    int skipped = C->M->skip_if(C, A);
    if (C->err) return -1;
    return !skipped;
}

static int64_t next_skipping(flowrun *R, int64_t seat, int include_self);

/* The next active seat (or this one, with include_self); -1 none, -2 a bail. */
static inline __attribute__((always_inline)) int64_t next_active(flowrun *R, int64_t seat, int include_self)
{
    if (R->C->M->skip_if) return next_skipping(R, seat, include_self);
    int64_t n = F(R)->players;   /* the seat is one of the n, so the one after it wraps by a compare, not a division */
    int64_t nxt = include_self ? seat : seat + 1;
    return nxt >= 0 && nxt < n ? nxt : nxt == n ? 0 : nxt % n;
}

/* next_active where `skip_if` says which seats sit out. */
static int64_t next_skipping(flowrun *R, int64_t seat, int include_self)
{
    int64_t n = F(R)->players;
    for (int64_t k = include_self ? 0 : 1; k < n + (include_self ? 0 : 1); k++) {
        int64_t cand = (seat + k) % n;
        int a = active(R, cand);
        if (a < 0) return -2;
        if (a) return cand;
    }
    return -1;
}

static void set_seat(flowrun *R, int64_t seat) { F(R)->seat = seat; F(R)->player = seat; }

static int guard(flowrun *R)
{
    if (++R->transitions > MAX_TRANSITIONS) { rp_bail(R->C, RP_BAIL_LIMIT, "the flow loops", -1); return 0; }
    return 1;
}

static void finish(flowrun *R, int32_t reason)
{
    rp_flow *f = F(R);
    f->done = 1;
    f->player = RP_TERMINAL;
    f->stage = -1;
    f->ended_by = reason;
}

static int fire_all(rp_ctx *C, const int32_t *rules, int32_t n)
{
    for (int32_t i = 0; i < n; i++) {
        if (RP_LIKELY(C->nfired < C->cfired)) C->fired[C->nfired++] = rules[i];   /* rp_fire without its growth */
        else if (!rp_fire(C, rules[i])) return 0;
    }
    return 1;
}

static int run_triggers(flowrun *R)
{
    rp_ctx *C = R->C;
    const rp_model *M = C->M;
    if (!M->ntriggers) return 1;
    for (int round = 0; round < MAX_TRANSITIONS; round++) {
        int fired = 0;
        for (int32_t i = 0; i < M->ntriggers; i++) {
            const rp_trigger *t = &M->triggers[i];
            int holds = t->when(C, NULL);
            if (C->err) return 0;
            if (holds) {
                if (!fire_all(C, t->rules, t->nrules)) return 0;
                if (t->effects) t->effects(C, NULL);
                if (C->err) return 0;
                fired = 1;
            }
        }
        if (!fired) return 1;
    }
    rp_bail(C, RP_BAIL_LIMIT, "triggers loop", -1);
    return 0;
}

/* 1 the game is over now, 0 not, -1 a bail */
static int check_end(flowrun *R, int at_round_end)
{
    rp_ctx *C = R->C;
    const rp_model *M = C->M;
    rp_flow *f = F(R);
    if (M->ntriggers && !run_triggers(R)) return -1;
    if (C->sig.end_game) { finish(R, M->text_end_game); return 1; }
    for (int32_t i = 0; i < M->nends; i++) {
        const rp_end *e = &M->ends[i];
        if (e->disabled) continue;
        int holds = e->when(C, NULL);
        if (C->err) return -1;
        if (!holds) continue;
        if (e->at == AT_NOW) {
            if (!fire_all(C, e->rules, e->nrules)) return -1;
            finish(R, e->label);
            return 1;
        }
        int64_t target = e->at == AT_END_OF_ROUND ? f->round : f->round + 1;
        if (!f->has_end_round || target < f->end_round) {
            f->end_round = target;
            f->has_end_round = 1;
            f->ended_by = e->label;
            if (!fire_all(C, e->rules, e->nrules)) return -1;
        }
    }
    if (at_round_end && f->has_end_round && f->round >= f->end_round) { finish(R, f->ended_by); return 1; }
    return 0;
}

static int first_seat(flowrun *R, rp_expr_fn fn, int64_t *out)
{
    rp_ctx *C = R->C;
    rv v = fn(C, NULL);
    if (C->err) return 0;
    if (v.t != T_INT || v.u.i < 0 || v.u.i >= F(R)->players) {
        rv_drop(v);
        rp_bail(C, RP_BAIL_RULE, "not a seat", -1);
        return 0;
    }
    *out = v.u.i;
    return 1;
}

static int begin_phase(flowrun *R, int32_t phase);
static int32_t leave_phase(flowrun *R, int32_t phase);

/* Close the round: 1 play goes on, 0 the game ended, -1 a bail. */
static int end_round(flowrun *R)
{
    rp_ctx *C = R->C;
    const rp_model *M = C->M;
    rp_flow *f = F(R);
    if (M->on_round_end) { M->on_round_end(C, NULL); if (C->err) return -1; }
    int over = check_end(R, 1);
    if (over) return over < 0 ? -1 : 0;
    f->round++;
    if (M->rotate_start) {
        int64_t nxt = next_active(R, f->start, 0);
        if (nxt == -2) return -1;
        if (nxt >= 0) f->start = nxt;
    }
    if (M->on_round_begin) { M->on_round_begin(C, NULL); if (C->err) return -1; }
    over = check_end(R, 0);
    return over < 0 ? -1 : !over;
}

/* The phase after `phase`, its end hook run; -1 the game ended, -2 a bail. */
static int32_t leave_phase(flowrun *R, int32_t phase)
{
    rp_ctx *C = R->C;
    const rp_model *M = C->M;
    const rp_phase *ph = &M->phases[phase];
    C->sig.end_phase = 0;
    int32_t go = C->sig.go;
    C->sig.go = -1;
    if (ph->on_end) { ph->on_end(C, NULL); if (C->err) return -2; }
    int over = check_end(R, 0);
    if (over) return over < 0 ? -2 : -1;
    if (C->sig.go != -1) go = C->sig.go;
    else if (go == -1) go = ph->next;
    int32_t nxt = go != -1 ? go : (phase + 1) % M->nphases;
    if (nxt == -2) { rp_bail(C, RP_BAIL_RULE, "goto: no such phase", -1); return -2; }
    if (nxt <= phase) {
        int on = end_round(R);
        if (on < 0) return -2;
        if (!on) return -1;
    }
    return nxt;
}

/* 1 done (whatever happened), 0 a bail */
static int begin_phase(flowrun *R, int32_t phase)
{
    rp_ctx *C = R->C;
    const rp_model *M = C->M;
    rp_flow *f = F(R);
    for (;;) {
        if (!guard(R)) return 0;
        const rp_phase *ph = &M->phases[phase];
        f->phase = phase;
        f->stage = -1;
        clear_signals(&C->sig);
        if (ph->on_begin) { ph->on_begin(C, NULL); if (C->err) return 0; }
        int over = check_end(R, 0);
        if (over) return over > 0;
        if (C->sig.end_phase) {
            int32_t nxt = leave_phase(R, phase);
            if (nxt == -2) return 0;
            if (nxt == -1) return 1;
            phase = nxt;
            continue;
        }
        int64_t first = f->start;
        if (ph->first && !first_seat(R, ph->first, &first)) return 0;
        if (ph->order == ORDER_CHANCE) {
            f->player = RP_CHANCE;
            f->nqueue = 0;
            return 1;
        }
        int64_t n = f->players;
        if (ph->order == ORDER_EACH) {
            f->nqueue = 0;
            for (int64_t k = 0; k < n; k++) {
                int64_t s = (first + k) % n;
                int a = active(R, s);
                if (a < 0) return 0;
                if (a) f->queue[f->nqueue++] = (int32_t)s;
            }
            if (!f->nqueue) {
                int32_t nxt = leave_phase(R, phase);
                if (nxt == -2) return 0;
                if (nxt == -1) return 1;
                phase = nxt;
                continue;
            }
            set_seat(R, f->queue[0]);
            return 1;
        }
        int a = active(R, first);
        if (a < 0) return 0;
        int64_t seat = a ? first : next_active(R, first, 0);
        if (seat == -2) return 0;
        if (seat == -1) { rp_bail(C, RP_BAIL_RULE, "every seat is skipped", -1); return 0; }
        set_seat(R, seat);
        f->nqueue = 0;
        return 1;
    }
}

static int start_game(flowrun *R)
{
    rp_ctx *C = R->C;
    const rp_model *M = C->M;
    if (M->start_player && !first_seat(R, M->start_player, &F(R)->start)) return 0;
    if (M->on_round_begin) { M->on_round_begin(C, NULL); if (C->err) return 0; }
    int over = check_end(R, 0);
    if (over) return over > 0;
    return begin_phase(R, 0);
}

/* 1 done, 0 a bail */
static int end_turn(flowrun *R, int force)
{
    rp_ctx *C = R->C;
    const rp_model *M = C->M;
    rp_flow *f = F(R);
    const rp_phase *ph = &M->phases[f->phase];
    f->stage = -1;
    f->player = f->seat;
    f->turn++;
    int over = force;
    if (ph->order == ORDER_EACH && f->nqueue) {
        memmove(f->queue, f->queue + 1, (size_t)(f->nqueue - 1) * sizeof(int32_t));
        f->nqueue--;
        over = over || !f->nqueue;
    }
    if (ph->order == ORDER_CHANCE && !ph->end_if) over = 1;
    if (!over && ph->end_if) {
        over = ph->end_if(C, NULL);
        if (C->err) return 0;
    }
    if (!over) {
        if (ph->order == ORDER_EACH) {
            int32_t kept = 0;
            for (int32_t i = 0; i < f->nqueue; i++) {
                int a = active(R, f->queue[i]);
                if (a < 0) return 0;
                if (a) f->queue[kept++] = f->queue[i];
            }
            f->nqueue = kept;
            if (kept) { set_seat(R, f->queue[0]); return 1; }
        } else if (ph->order == ORDER_CHANCE) {
            f->player = RP_CHANCE;
            return 1;
        } else {
            int64_t nxt = next_active(R, f->seat, 0);
            if (nxt == -2) return 0;
            if (nxt >= 0) { set_seat(R, nxt); return 1; }
            rp_bail(C, RP_BAIL_RULE, "every seat is skipped", -1);
            return 0;
        }
    }
    int32_t nxt = leave_phase(R, f->phase);
    if (nxt == -2) return 0;
    if (nxt >= 0) return begin_phase(R, nxt);
    return 1;
}

static int32_t stage_index(const rp_phase *ph, int32_t name)
{
    for (int32_t i = 0; i < ph->nstages; i++) if (ph->stage_names[i] == name) return i;
    return -1;
}

static int after_move(flowrun *R)
{
    rp_ctx *C = R->C;
    const rp_model *M = C->M;
    rp_flow *f = F(R);
    rp_signals *sig = &C->sig;
    f->steps++;
    int over = check_end(R, 0);
    if (over) return over > 0;
    const rp_phase *ph = &M->phases[f->phase];
    if (sig->stage_set) {
        int32_t st = -1;
        if (sig->stage != -1) {
            st = stage_index(ph, sig->stage);
            if (st < 0) { rp_bail(C, RP_BAIL_RULE, "no such stage here", -1); return 0; }
        }
        f->stage = st;
        f->player = st >= 0 && ph->stage_chance[st] ? RP_CHANCE : f->seat;
    }
    int continuing = f->stage >= 0 && sig->stage_set;
    int turn_over = ph->turn_multi ? (sig->end_turn || sig->end_phase)
                                   : (sig->end_turn || sig->end_phase || !continuing);
    if (turn_over && !end_turn(R, sig->end_phase)) return 0;
    if (!f->done && f->steps >= M->limit_max_steps) { rp_bail(C, RP_BAIL_LIMIT, "max_steps", -1); return 0; }
    return 1;
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
    } else if (v.t != T_MAP && p->slots) {
        uint64_t h = rp_hash_value(v) & p->mask;
        while (p->slots[h] >= 0 && !rp_equal(p->universe[p->slots[h]], v)) h = (h + 1) & p->mask;
        k = p->slots[h];
    } else if (v.t != T_MAP) {
        for (int64_t i = 0; i < p->radix && k < 0; i++) if (rp_equal(p->universe[i], v)) k = i;
    }
    if (k < 0) { rp_bail(C, RP_BAIL_RULE, "a `from:` value is not among `of:`", -1); return -1; }
    if (!same_value(v, p->universe[k])) { rp_bail(C, RP_BAIL_NATIVE, "a `from:` value written otherwise", -1); return -1; }
    return k;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
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
    qsort(ks, (size_t)n, sizeof(int64_t), cmp_i64);
    int64_t m = 0;
    for (int64_t j = 0; j < n; j++) if (m == 0 || ks[m - 1] != ks[j]) ks[m++] = ks[j];
    *out = ks;
    return m;
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

static double outcome_weight_of(rp_ctx *C, const rp_action *a, int64_t index);
static void decode(const rp_model *M, int64_t index, int32_t *action, rv *args);

/* The moves of the actions `names` whose `fallback:` is `fallback`, in the order listed, added to `out`. */
static inline __attribute__((always_inline)) int listed(rp_ctx *C, const int32_t *names, int32_t nnames,
                                                        int32_t fallback, rp_moves *out)
{
    const rp_model *M = C->M;
    rv A[64];
    for (int32_t j = 0; j < nnames; j++) {
        const rp_action *a = &M->actions[names[j]];
        if (a->disabled || a->fallback != fallback) continue;
        if (a->list) {   /* the lowered listing: the loops below, with every check written out in them */
            if (!a->list(C, out)) return 0;
            continue;
        }
        int pass = 1;
        for (int32_t c = 0; c < a->nchecks && pass; c++) {
            if (a->check_level[c] != -1) continue;
            pass = a->checks[c](C, NULL);
            if (C->err) return 0;
        }
        if (!pass) continue;
        if (a->nparams) {
            for (int32_t i = 0; i < a->nparams; i++) A[i] = rv_null();
            if (!list_level(C, a, 0, 0, A, out)) return 0;
        } else if (!rp_push_move(C, out, a->first_index)) return 0;
    }
    return 1;
}

/* The legal moves now, charged to C->b, into `out` (as engine/legal.py's moves_now): the `fallback: true`
 * actions are listed only when the others list no move. */
static inline __attribute__((always_inline)) int moves_now(rp_ctx *C, rp_moves *out)
{
    const rp_model *M = C->M;
    rp_flow *f = &C->S->flow;
    const rp_phase *ph = &M->phases[f->phase];
    const int32_t *names = ph->actions;
    int32_t nnames = ph->nactions;
    if (f->stage >= 0) { names = ph->stage_actions[f->stage]; nnames = ph->stage_nactions[f->stage]; }
    out->n = 0;
    if (!listed(C, names, nnames, 0, out)) return 0;
    if (!out->n && !listed(C, names, nnames, 1, out)) return 0;
    rv A[64];
    if (f->player == RP_CHANCE && M->weighted_chance && out->n) {
        int64_t kept = 0;
        for (int64_t i = 0; i < out->n; i++) {
            int32_t act;
            decode(M, out->v[i], &act, A);
            double w = outcome_weight_of(C, &M->actions[act], out->v[i]);
            if (C->err) return 0;
            if (w > 0) out->v[kept++] = out->v[i];
        }
        if (!kept) { rp_bail(C, RP_BAIL_RULE, "every chance weight is 0", -1); return 0; }
        out->n = kept;
    }
    return 1;
}

/* Make sure the player to move can move (`when_stuck`), and keep the legal moves in the state. */
static int settle(flowrun *R)
{
    rp_ctx *C = R->C;
    rp_state *S = C->S;
    const rp_model *M = C->M;
    rp_budget listing, *saved = C->b;
    fresh_budget(M, &listing);
    rp_moves out = {S->legal, 0, S->clegal};
    S->legal = NULL; S->clegal = 0;
    for (int passes = 0; passes < MAX_TRANSITIONS; passes++) {
        rp_flow *f = &S->flow;
        if (f->done) { out.n = 0; break; }
        C->b = &listing;
        int ok = moves_now(C, &out);
        C->b = saved;
        if (!ok) { free(out.v); S->nlegal = 0; S->legal_known = 0; return 0; }
        if (out.n) break;
        const rp_phase *ph = &M->phases[f->phase];
        if (ph->when_stuck == STUCK_END_GAME) { finish(R, ph->stuck_label); out.n = 0; break; }
        if (ph->when_stuck == STUCK_PASS && f->player != RP_CHANCE) {
            if (!guard(R)) { free(out.v); return 0; }
            clear_signals(&C->sig);
            if (!end_turn(R, 0)) { free(out.v); return 0; }
            continue;
        }
        free(out.v);
        rp_bail(C, RP_BAIL_RULE, "no legal move", -1);
        return 0;
    }
    if (!S->flow.done && !out.n) { free(out.v); rp_bail(C, RP_BAIL_LIMIT, "every seat passes", -1); return 0; }
    S->legal = out.v; S->clegal = out.cap; S->nlegal = out.n;
    S->legal_known = 1;
    return 1;
}

/* ------------------------------------------------------------------ moves */
/* The action of move `index` and its arguments (the `of:` values, borrowed constants). */
static void decode(const rp_model *M, int64_t index, int32_t *action, rv *args)
{
    int32_t lo = 0, hi = M->nactions - 1;   /* the last action whose first move is at or before `index` */
    while (lo < hi) {
        int32_t mid = (lo + hi + 1) / 2;
        if (M->actions[mid].first_index <= index) lo = mid; else hi = mid - 1;
    }
    const rp_action *act = &M->actions[lo];
    if (M->nactions == 0 || index < act->first_index || index >= act->first_index + act->size) { *action = -1; return; }
    int64_t rest = index - act->first_index;
    for (int32_t i = act->nparams - 1; i > 0; i--) {
        args[i] = act->params[i].universe[rest % act->params[i].radix];
        rest /= act->params[i].radix;
    }
    if (act->nparams) args[0] = act->params[0].universe[rest];   /* below the first radix: the size is the product */
    *action = lo;
}

static int finite_number(rv v, double *out)
{
    if (v.t == T_INT) { *out = (double)v.u.i; return 1; }
    if (v.t == T_FLT && isfinite(v.u.f)) { *out = v.u.f; return 1; }
    return 0;
}

static double outcome_weight_of(rp_ctx *C, const rp_action *a, int64_t index)
{
    if (!a->weight) return 1.0;
    rv A[64];
    int32_t act;
    decode(C->M, index, &act, A);
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
        decode(S->M, S->legal[i], &act, A);
        out[i] = outcome_weight_of(C, &S->M->actions[act], S->legal[i]);
        if (C->err) return 0;
    }
    if (!isfinite(py_sum(out, S->nlegal, S->M->sum_compensated))) {
        rp_bail(C, RP_BAIL_RULE, "chance weights too large", -1);
        return 0;
    }
    return 1;
}

static int invariants(rp_state *S)
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

/* Who sees each argument of a move of `a` made now (`views.seen_by`): a mask of seats per argument. */
static int seen_of(rp_state *S, const rp_action *a, rv *args)
{
    S->nseen = 0;
    if (!a->private_) return 1;
    rp_ctx C;
    rp_ctx_init(&C, S->M, S);
    int ok = 1;
    for (int32_t i = 0; i < a->nparams && ok; i++) {
        if (!a->params[i].seen_by) { S->seen[i] = 1u << 31; continue; }
        rv v = a->params[i].seen_by(&C, args);
        if (C.err) { ok = 0; break; }
        uint32_t mask = 0;
        const rv *items = v.t == T_LIST ? v.u.l->items : &v;
        int64_t n = v.t == T_LIST ? v.u.l->len : 1;
        for (int64_t j = 0; j < n && ok; j++) {
            if (items[j].t != T_INT || items[j].u.i < 0 || items[j].u.i >= S->flow.players) ok = 0;
            else mask |= 1u << items[j].u.i;
        }
        rv_drop(v);
        S->seen[i] = mask;
    }
    rp_ctx_done(&C);
    if (ok) S->nseen = a->nparams;
    return ok;
}

/* Who sees each argument of move `index` if it were made now, into `seen` (bit 31: everyone), for a search's
 * move views (rp_search.c); the state's own record of its last move is left as it was.  Returns the number of
 * arguments (0: the action is public), or -1 when `seen_by` gives no seats. */
int32_t rp_state_seen_of(rp_state *S, int64_t index, uint32_t *seen)
{
    int32_t act;
    rv args[64];
    decode(S->M, index, &act, args);
    uint32_t kept[RP_MAX_PLAYERS + 1];
    int32_t nkept = S->nseen;
    memcpy(kept, S->seen, sizeof kept);
    int ok = seen_of(S, &S->M->actions[act], args);
    int32_t n = S->nseen;
    memcpy(seen, S->seen, sizeof S->seen);
    memcpy(S->seen, kept, sizeof kept);
    S->nseen = nkept;
    return ok ? n : -1;
}

/* The rules fired in this step, each once, in firing order. */
static int keep_fired(rp_state *S, rp_ctx *C)
{
    if (S->cfired < C->nfired) {
        int32_t *more = realloc(S->fired, (size_t)C->nfired * sizeof(int32_t));
        if (!more) { rp_bail(C, RP_BAIL_MEMORY, "out of memory", -1); return 0; }
        S->fired = more; S->cfired = C->nfired;
    }
    if (C->nfired <= 1) {   /* most moves fire one rule or none: nothing to compare */
        if (C->nfired) S->fired[0] = C->fired[0];
        S->nfired = C->nfired;
        return 1;
    }
    int32_t n = 0;
    for (int32_t i = 0; i < C->nfired; i++) {
        int seen = 0;
        for (int32_t j = 0; j < n && !seen; j++) seen = S->fired[j] == C->fired[i];
        if (!seen) S->fired[n++] = C->fired[i];
    }
    S->nfired = n;
    return 1;
}

static int apply_legal(rp_state *S, int64_t index, rp_ctx *C);

/* Make move `index` on S itself.  On a bail S is left half-changed: the caller rebuilds it. */
int rp_state_apply(rp_state *S, int64_t index, rp_ctx *C)
{
    if (S->flow.done) { rp_bail(C, RP_BAIL_ILLEGAL, "the game is over", -1); return 0; }
    if (!S->legal_known && !rp_state_list(S, C)) return 0;
    int64_t i = 0;
    while (i < S->nlegal && S->legal[i] != index) i++;
    if (i == S->nlegal) { rp_bail(C, RP_BAIL_ILLEGAL, "not a legal move now", -1); return 0; }
    return apply_legal(S, index, C);
}

/* Make the legal move at position `at` of the state's listed moves (a playout's pick): rp_state_apply
 * without looking the move up among them. */
int rp_state_apply_at(rp_state *S, int64_t at, rp_ctx *C)
{
    if (S->flow.done || !S->legal_known || at < 0 || at >= S->nlegal) {
        rp_bail(C, RP_BAIL_ILLEGAL, "not a legal move now", -1);
        return 0;
    }
    return apply_legal(S, S->legal[at], C);
}

/* Make move `index`, one of the moves S lists now. */
static int apply_legal(rp_state *S, int64_t index, rp_ctx *C)
{
    const rp_model *M = S->M;
    int32_t act;
    rv args[64];
    decode(M, index, &act, args);
    const rp_action *a = &M->actions[act];
    if (!seen_of(S, a, args)) { rp_bail(C, RP_BAIL_RULE, "seen_by", -1); return 0; }
    S->last_move = index;
    C->S = S;
    C->rng = S->rng;
    fresh_budget(M, &C->own);
    C->b = &C->own;
    clear_signals(&C->sig);
    C->nfired = 0;
    if (!fire_all(C, a->rules, a->nrules)) return 0;
    if (a->effects) a->effects(C, args);
    if (C->err) return 0;
    flowrun R = {C, 0};
    if (!after_move(&R) || !settle(&R)) return 0;
    S->rng = C->rng;
    if (!keep_fired(S, C)) return 0;
    if (M->checking && !invariants(S)) { rp_bail(C, RP_BAIL_RULE, "an invariant", -1); return 0; }
    return 1;
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

int rp_state_list(rp_state *S, rp_ctx *C)
{
    if (S->legal_known) return 1;
    C->S = S;
    flowrun R = {C, 0};
    rp_moves out = {NULL, 0, 0};
    if (S->flow.done) { S->nlegal = 0; S->legal_known = 1; return 1; }
    rp_budget listing, *saved = C->b;
    fresh_budget(S->M, &listing);
    C->b = &listing;
    int ok = moves_now(C, &out);
    C->b = saved;
    (void)R;
    if (!ok) { free(out.v); return 0; }
    if (!out.n) { free(out.v); rp_bail(C, RP_BAIL_RULE, "no legal move in a position the rules do not reach", -1); return 0; }
    free(S->legal);
    S->legal = out.v; S->clegal = out.cap; S->nlegal = out.n; S->legal_known = 1;
    return 1;
}

/* ------------------------------------------------------------------ set-up */
/* A set-up that draws no random number makes the same state for every seed but for the generator's own
 * state, so the first one made is kept and later ones are copies of it (as engine/game.py keeps it). */
static rp_state *initial;
static pthread_mutex_t initial_lock = PTHREAD_MUTEX_INITIALIZER;

/* `from`'s items written over the list in `slot` when that list is the slot's alone, as long, and neither
 * holds a container (the last game's board made the new game's): 1 done, 0 left to a copy. */
static int copy_flat_over(rv *slot, rv from)
{
    if (slot->t != T_LIST || from.t != T_LIST) return 0;
    rp_list *to = slot->u.l, *src = from.u.l;
    if (to == src || to->immortal || to->rc != 1 || to->size != -1 || to->len != src->len) return 0;
    for (int64_t k = 0; k < to->len; k++)
        if (rv_is_container(to->items[k]) || rv_is_container(src->items[k])) return 0;
    rp_memcpy(to->items, src->items, (size_t)to->len * sizeof(rv));
    return 1;
}

static int copy_into(rp_state *S, const rp_state *T)
{
    rp_ctx C;
    rp_ctx_init(&C, S->M, NULL);
    for (int32_t i = 0; i < S->M->nvars; i++) {
        if (copy_flat_over(&S->vars[i], T->vars[i])) continue;
        rv v = rp_clone(&C, T->vars[i]);
        if (C.err) return 0;
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
    pthread_mutex_lock(&initial_lock);
    rp_state *kept = initial;
    pthread_mutex_unlock(&initial_lock);
    if (kept) {
        if (!copy_into(S, kept)) { rp_bail(C, RP_BAIL_MEMORY, "out of memory", -1); return 0; }
        S->rng = rp_seed_state(seed);
        return 1;
    }
    if (!setup_fresh(M, S, seed, C)) return 0;
    if (!C->drew) {
        rp_state *copy = rp_state_clone(S);
        pthread_mutex_lock(&initial_lock);
        if (!initial) { initial = copy; copy = NULL; }
        pthread_mutex_unlock(&initial_lock);
        rp_state_free(copy);
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
    flowrun R = {C, 0};
    if (!start_game(&R) || !settle(&R)) return 0;
    S->rng = C->rng;
    int32_t *fired = malloc((size_t)(C->nfired ? C->nfired : 1) * sizeof(int32_t));   /* as set-up fired them */
    if (!fired) { rp_bail(C, RP_BAIL_MEMORY, "out of memory", -1); return 0; }
    rp_memcpy(fired, C->fired, (size_t)C->nfired * sizeof(int32_t));
    free(S->fired);
    S->fired = fired; S->nfired = S->cfired = C->nfired;
    if (M->checking && !invariants(S)) { rp_bail(C, RP_BAIL_RULE, "an invariant", -1); return 0; }
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
