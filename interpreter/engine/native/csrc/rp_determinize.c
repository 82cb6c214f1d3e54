/* Determinizations drawn natively: what `engine/determinize.py`'s `Determinizer.sample` does when a draw only
 * deals (its `_Deal`s), done on a native state with the same numbers drawn from the agent's generator.
 *
 * Python works out, once per decision, what the seat cannot see (the plan: each deal's units of hidden slots,
 * which of them show a back, the order its items start in); `rp_dealer_new` takes that plan and the real
 * position, and asks the lowered `visible_if` and `back` which item would show the same backs in which masked
 * unit, as `_Deal`'s rows do.  Each `rp_dealer_sample` then draws the sample's generator, deals every
 * group into a copy of the real position (shuffling and picking exactly as `_Deal.into` does) and keeps the
 * deal only if the seat sees it as it sees the real position -- every variable with a `visible_if`, item by
 * item through its lowered `visible_if` and `back`, compared as `observe`'s JSON compares -- else tries again,
 * up to `draws` times, and then keeps the real arrangement.  Nothing here reads what the plan does not name:
 * the items moved are those the seat cannot see, into places it cannot see.
 *
 * A `visible_if` or `back` that bails (a rule error, a budget, an int past 64 bits) stops the sample with the
 * bail in `e`: the Python engine, which judges such a view itself, makes that decision again. */
#include "rp.h"

#include <math.h>
#include <stdlib.h>

#include "rp_api.h"

extern rp_model RP_MODEL;
int rp_views_lowered(void);

typedef struct slot { int32_t var, seat; int64_t index; int32_t masked; } slot;   /* masked: shows a back */
typedef struct unit { int64_t first, n; } unit;   /* slots[first .. first + n) of the dealer */

typedef struct deal {
    int64_t nunits;
    unit *units;
    rv *items;             /* the item of each unit in the real position (the dealer's own copy holds them) */
    int64_t *start;        /* the units' items in the order a draw starts from */
    int64_t nmasked, nopen;
    int64_t *masked, *open;
    uint8_t *fits;         /* fits[p * nunits + k]: item k shows the viewer the same backs in masked unit p */
} deal;

/* A seat's view of one variable's entry with a `visible_if`: its items as seen (new references), in order. */
typedef struct seen_entry { int32_t var, owner; int64_t n; int list; rv *items; } seen_entry;

struct rp_dealer {
    rp_state *real;
    int32_t viewer;
    int64_t ndeals, nslots, nentries;
    deal *deals;
    slot *slots;
    seen_entry *seen;      /* the real position as the viewer sees it */
    int64_t *order, *positions, *fitting;   /* a draw's scratch, as long as the largest deal */
};

/* ------------------------------------------------------------------ what the seat sees */
/* Equal as `json.dumps(sort_keys=True)` tells values apart: a bool is no int, an int no float, and a float is
 * itself (its sign at zero included; every NaN alike). */
static int same_json(rv a, rv b)
{
    if (a.t != b.t) return 0;
    switch (a.t) {
    case T_NULL: return 1;
    case T_FLT:
        if (isnan(a.u.f) || isnan(b.u.f)) return isnan(a.u.f) && isnan(b.u.f);
        return a.u.f == b.u.f && signbit(a.u.f) == signbit(b.u.f);
    case T_LIST: {
        if (a.u.l->len != b.u.l->len) return 0;
        for (int64_t i = 0; i < a.u.l->len; i++)
            if (!same_json(a.u.l->items[i], b.u.l->items[i])) return 0;
        return 1;
    }
    case T_MAP: {
        if (a.u.m->len != b.u.m->len) return 0;
        for (int64_t i = 0; i < a.u.m->len; i++) {
            int64_t k = rp_map_find(b.u.m, a.u.m->keys[i]);
            if (k < 0 || !same_json(a.u.m->vals[i], b.u.m->vals[k])) return 0;
        }
        return 1;
    }
    default: return a.u.i == b.u.i;
    }
}

/* `item` as `observe` shows it to `viewer`: itself when `visible_if` holds, else its `back` or null (a new
 * reference); 0 after a bail. */
static int seen_item(rp_ctx *C, const rp_seen_var *V, rv item, rv index, int32_t viewer, int32_t owner, rv *out)
{
    rv A[4] = {item, index, rv_int(viewer), owner >= 0 ? rv_int(owner) : rv_null()};
    int visible = V->visible_if(C, A);
    if (C->err) return 0;
    if (visible) { *out = rv_ref(item); return 1; }
    *out = V->back ? V->back(C, A) : rv_null();
    return !C->err;
}

/* Whether the viewer sees entry `value` of variable `var` (seat `owner`, -1 for none) item by item. */
static int shown_by_item(const rp_seen_var *V, int32_t viewer, int32_t owner)
{
    if (!V->visible_if || V->visibility == SEEN_HIDDEN) return 0;
    return !(V->visibility == SEEN_OWNER && owner >= 0 && owner != viewer);
}

/* The entries of S the viewer sees through a `visible_if`, in `observe`'s order, each call to `visit` with the
 * entry's value; 0 when `visit` says stop (a bail or a difference). */
typedef int (*entry_visit)(void *arg, rp_ctx *C, int32_t var, int32_t owner, rv value);

static int each_entry(rp_state *S, int32_t viewer, rp_ctx *C, entry_visit visit, void *arg)
{
    const rp_model *M = S->M;
    for (int32_t i = 0; i < M->nvars; i++) {
        const rp_seen_var *V = &RP_SEEN_VARS[i];
        if (!M->vars[i].per_player) {
            if (shown_by_item(V, viewer, -1) && !visit(arg, C, i, -1, S->vars[i])) return 0;
            continue;
        }
        rv row = S->vars[i];
        if (row.t != T_LIST) { rp_bail(C, RP_BAIL_NATIVE, "a per-player variable that is not a list", -1); return 0; }
        for (int64_t q = 0; q < row.u.l->len; q++)
            if (shown_by_item(V, viewer, (int32_t)q) && !visit(arg, C, i, (int32_t)q, row.u.l->items[q])) return 0;
    }
    return 1;
}

/* The items of an entry as seen into `into` (n of them; a value that is no list is one item, index null). */
static int seen_items(rp_ctx *C, int32_t var, int32_t owner, rv value, int32_t viewer, rv *into)
{
    const rp_seen_var *V = &RP_SEEN_VARS[var];
    if (value.t != T_LIST) return seen_item(C, V, value, rv_null(), viewer, owner, &into[0]);
    for (int64_t i = 0; i < value.u.l->len; i++)
        if (!seen_item(C, V, value.u.l->items[i], rv_int(i), viewer, owner, &into[i])) return 0;
    return 1;
}

static int64_t entry_length(rv value) { return value.t == T_LIST ? value.u.l->len : 1; }

typedef struct recording { rp_dealer *D; int64_t k; } recording;

static int count_entry(void *arg, rp_ctx *C, int32_t var, int32_t owner, rv value)
{
    ((recording *)arg)->k++;
    return 1;
}

static int record_entry(void *arg, rp_ctx *C, int32_t var, int32_t owner, rv value)
{
    recording *r = arg;
    seen_entry *E = &r->D->seen[r->k++];
    E->var = var; E->owner = owner; E->list = value.t == T_LIST; E->n = entry_length(value);
    E->items = calloc((size_t)(E->n ? E->n : 1), sizeof(rv));
    if (!E->items) { rp_bail(C, RP_BAIL_MEMORY, "out of memory", -1); return 0; }
    return seen_items(C, var, owner, value, r->D->viewer, E->items);
}

typedef struct comparing { rp_dealer *D; int64_t k; int same; } comparing;

/* One entry of the sample against the real one's: the walk stops at the first item seen otherwise. */
static int compare_entry(void *arg, rp_ctx *C, int32_t var, int32_t owner, rv value)
{
    comparing *c = arg;
    const seen_entry *E = &c->D->seen[c->k++];
    if (E->var != var || E->owner != owner || E->list != (value.t == T_LIST) || E->n != entry_length(value)) {
        c->same = 0;
        return 0;
    }
    const rp_seen_var *V = &RP_SEEN_VARS[var];
    for (int64_t i = 0; i < E->n; i++) {
        rv item = value.t == T_LIST ? value.u.l->items[i] : value, seen;
        if (!seen_item(C, V, item, value.t == T_LIST ? rv_int(i) : rv_null(), c->D->viewer, owner, &seen)) return 0;
        int same = same_json(seen, E->items[i]);
        rv_drop(seen);
        if (!same) { c->same = 0; return 0; }
    }
    return 1;
}

/* Whether the viewer sees T as it sees the real position: 1 or 0, -1 after a bail (in C). */
static int seen_alike(rp_dealer *D, rp_state *T, rp_ctx *C)
{
    comparing c = {D, 0, 1};
    rp_ctx V;   /* the view on a budget of its own, as `observe` works one out */
    rp_ctx_init(&V, T->M, T);
    each_entry(T, D->viewer, &V, compare_entry, &c);
    int bailed = V.err != RP_OK;
    if (bailed) rp_bail(C, V.err, V.why, V.where);
    rp_ctx_done(&V);
    return bailed ? -1 : c.same;
}

/* ------------------------------------------------------------------ the plan */
void rp_dealer_free(rp_dealer *D)
{
    if (!D) return;
    for (int64_t d = 0; d < D->ndeals; d++) {
        deal *G = &D->deals[d];
        free(G->units); free(G->items); free(G->start); free(G->masked); free(G->open); free(G->fits);
    }
    free(D->deals);
    for (int64_t k = 0; k < D->nentries; k++) {
        seen_entry *E = &D->seen[k];
        if (E->items) for (int64_t i = 0; i < E->n; i++) rv_drop(E->items[i]);
        free(E->items);
    }
    free(D->seen);
    free(D->slots);
    free(D->order); free(D->positions); free(D->fitting);
    if (D->real) rp_state_free(D->real);
    free(D);
}

/* The list slot `s` names in S (NULL when it names none), which the caller may write: its variable is marked changed. */
static rv *slot_at(rp_state *S, const slot *s)
{
    if (s->var < 0 || s->var >= S->M->nvars) return NULL;
    S->changed[s->var] = 1;
    rv list = S->vars[s->var];
    if (s->seat >= 0) {
        if (list.t != T_LIST || s->seat >= list.u.l->len) return NULL;
        list = list.u.l->items[s->seat];
    }
    if (list.t != T_LIST || s->index < 0 || s->index >= list.u.l->len) return NULL;
    return &list.u.l->items[s->index];
}

typedef struct reading { const int64_t *p, *end; int ok; } reading;

static int64_t next_int(reading *r, int64_t lo, int64_t hi)
{
    if (!r->ok || r->p >= r->end || *r->p < lo || *r->p > hi) { r->ok = 0; return lo; }
    return *r->p++;
}

static int64_t *ints(reading *r, int64_t n, int64_t lo, int64_t hi)
{
    int64_t *out = malloc((size_t)(n ? n : 1) * sizeof(int64_t));
    if (!out) { r->ok = 0; return NULL; }
    for (int64_t i = 0; i < n; i++) out[i] = next_int(r, lo, hi);
    return out;
}

/* One deal of the plan: [units, (slots, (var, seat, index, masked) * slots) * units, start * units, masked,
 * unit * masked, open, unit * open]. */
static int read_deal(reading *r, rp_dealer *D, deal *G, int64_t *cap_slots)
{
    int64_t n = G->nunits = next_int(r, 1, INT32_MAX);
    G->units = calloc((size_t)n, sizeof(unit));
    G->items = calloc((size_t)n, sizeof(rv));
    if (!r->ok || !G->units || !G->items) return 0;
    for (int64_t k = 0; k < n; k++) {
        int64_t count = next_int(r, 1, INT32_MAX);
        if (!r->ok) return 0;
        if (D->nslots + count > *cap_slots) {
            int64_t cap = 2 * (D->nslots + count);
            slot *more = realloc(D->slots, (size_t)cap * sizeof(slot));
            if (!more) return 0;
            D->slots = more; *cap_slots = cap;
        }
        G->units[k].first = D->nslots;
        G->units[k].n = count;
        for (int64_t j = 0; j < count; j++) {
            slot *s = &D->slots[D->nslots++];
            s->var = (int32_t)next_int(r, 0, INT32_MAX);
            s->seat = (int32_t)next_int(r, -1, RP_MAX_PLAYERS - 1);
            s->index = next_int(r, 0, INT64_MAX);
            s->masked = (int32_t)next_int(r, 0, 1);
            if (!r->ok || !slot_at(D->real, s)) return 0;
        }
        G->items[k] = *slot_at(D->real, &D->slots[G->units[k].first]);
    }
    G->start = ints(r, n, 0, n - 1);
    G->nmasked = next_int(r, 0, n);
    G->masked = ints(r, G->nmasked, 0, n - 1);
    G->nopen = next_int(r, 0, n);
    G->open = ints(r, G->nopen, 0, n - 1);
    return r->ok;
}

/* The back item `item` would show the viewer at masked slot `s` of D's real position (a new reference): 0 when
 * it would be seen there (no back), -1 after a bail. */
static int back_at(rp_dealer *D, const slot *s, rv item, rp_ctx *C, rv *back)
{
    rp_ctx V;   /* on a budget of its own, as `Determinizer._back` asks */
    rp_ctx_init(&V, &RP_MODEL, D->real);
    const rp_seen_var *Var = &RP_SEEN_VARS[s->var];
    rv A[4] = {item, rv_int(s->index), rv_int(D->viewer), s->seat >= 0 ? rv_int(s->seat) : rv_null()};
    int shown = Var->visible_if ? Var->visible_if(&V, A) : 1;
    *back = rv_null();
    if (!V.err && !shown && Var->back) *back = Var->back(&V, A);
    int bailed = V.err != RP_OK;
    if (bailed) { rp_bail(C, V.err, V.why, V.where); rv_clear(back); }
    rp_ctx_done(&V);
    return bailed ? -1 : !shown;
}

/* `_Deal._row`s: which item shows the same backs as the real one in each masked unit.  0 after a bail (the
 * Python engine, which counts a rule error there as no fit, then draws this decision's samples). */
static int find_fits(rp_dealer *D, deal *G, rp_ctx *C)
{
    int64_t n = G->nunits;
    G->fits = malloc((size_t)(G->nmasked > 0 ? G->nmasked * n : 1));
    if (!G->fits) { rp_bail(C, RP_BAIL_MEMORY, "out of memory", -1); return 0; }
    for (int64_t p = 0; p < G->nmasked; p++) {
        const unit *u = &G->units[G->masked[p]];
        uint8_t *row = G->fits + p * n;
        for (int64_t k = 0; k < n; k++) {
            int64_t same = -1;   /* an item equal to an earlier one fits where that one does */
            for (int64_t j = 0; j < k && same < 0; j++) if (same_json(G->items[j], G->items[k])) same = j;
            if (same >= 0) { row[k] = row[same]; continue; }
            row[k] = 1;
            for (int64_t i = 0; row[k] && i < u->n; i++) {
                const slot *s = &D->slots[u->first + i];
                if (!s->masked) continue;
                rv real, back;
                int hidden = back_at(D, s, *slot_at(D->real, s), C, &real);
                if (hidden < 0) return 0;
                if (!hidden) { rp_bail(C, RP_BAIL_NATIVE, "a masked slot the module sees", -1); return 0; }
                int fits = back_at(D, s, G->items[k], C, &back);
                if (fits < 0) { rv_drop(real); return 0; }
                row[k] = fits && same_json(back, real);
                rv_drop(real);
                rv_drop(back);
            }
        }
    }
    return 1;
}

/* A dealer of the determinizations of `real` (left as it is) for seat `viewer`, by `plan` (`ndeals` deals, as
 * read_deal reads them): NULL, with the reason in `e`, where the module cannot draw them (a `visible_if` it does
 * not hold, a plan that names no hidden place of `real`, a view of the real position that bails). */
rp_dealer *rp_dealer_new(rp_state *real, int32_t viewer, const int64_t *plan, int64_t nplan, rp_error *e)
{
    rp_ctx C;
    rp_ctx_init(&C, &RP_MODEL, NULL);
    rp_dealer *D = calloc(1, sizeof *D);
    if (!rp_views_lowered()) rp_bail(&C, RP_BAIL_NATIVE, "a visible_if or back the module does not hold", -1);
    else if (viewer < 0 || viewer >= real->flow.players) rp_bail(&C, RP_BAIL_RULE, "not a seat of this game", -1);
    else if (!D || !(D->real = rp_state_clone(real))) rp_bail(&C, RP_BAIL_MEMORY, "out of memory", -1);
    if (C.err == RP_OK) {
        D->viewer = viewer;
        reading r = {plan, plan + nplan, 1};
        int64_t cap_slots = 0, widest = 1;
        D->ndeals = next_int(&r, 0, INT32_MAX);
        D->deals = calloc((size_t)(D->ndeals ? D->ndeals : 1), sizeof(deal));
        for (int64_t d = 0; r.ok && D->deals && d < D->ndeals; d++) {
            r.ok = read_deal(&r, D, &D->deals[d], &cap_slots);
            if (r.ok && D->deals[d].nunits > widest) widest = D->deals[d].nunits;
        }
        D->order = malloc((size_t)widest * sizeof(int64_t));
        D->positions = malloc((size_t)widest * sizeof(int64_t));
        D->fitting = malloc((size_t)widest * sizeof(int64_t));
        if (!r.ok || r.p != r.end || !D->deals || !D->order || !D->positions || !D->fitting)
            rp_bail(&C, RP_BAIL_NATIVE, "a deal plan that does not fit this position", -1);
        for (int64_t d = 0; C.err == RP_OK && d < D->ndeals; d++) find_fits(D, &D->deals[d], &C);
    }
    if (C.err == RP_OK) {   /* the real position as the viewer sees it, kept to compare each deal with */
        recording r = {D, 0};
        rp_ctx V;
        rp_ctx_init(&V, &RP_MODEL, D->real);
        each_entry(D->real, viewer, &V, count_entry, &r);
        D->seen = calloc((size_t)(r.k ? r.k : 1), sizeof(seen_entry));
        D->nentries = r.k;
        r.k = 0;
        if (!D->seen) rp_bail(&V, RP_BAIL_MEMORY, "out of memory", -1);
        else each_entry(D->real, viewer, &V, record_entry, &r);
        if (V.err) rp_bail(&C, V.err, V.why, V.where);
        rp_ctx_done(&V);
    }
    e->code = C.err; e->why = C.why ? C.why : ""; e->where = C.where;
    rp_ctx_done(&C);
    if (C.err == RP_OK) return D;
    rp_dealer_free(D);
    return NULL;
}

/* ------------------------------------------------------------------ drawing */
static void shuffle(int64_t *xs, int64_t n, uint64_t *rng)   /* Rng.shuffle */
{
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = (int64_t)rp_below(rng, (uint64_t)(i + 1));
        int64_t kept = xs[i];
        xs[i] = xs[j];
        xs[j] = kept;
    }
}

static int place(rp_dealer *D, rp_state *T, const unit *u, rv item, rp_ctx *C)
{
    for (int64_t j = 0; j < u->n; j++) {
        rv copy = rp_clone(C, item);
        if (C->err) return 0;
        rv_set(slot_at(T, &D->slots[u->first + j]), copy);
    }
    return 1;
}

/* `_Deal.into`: the items dealt among the units of T, the masked units first, each from the items that fit
 * it; 0 when a masked unit is left with none (C->err set on a bail). */
static int deal_into(rp_dealer *D, const deal *G, rp_state *T, uint64_t *rng, rp_ctx *C)
{
    int64_t *order = D->order, *positions = D->positions, *fitting = D->fitting, left = G->nunits;
    rp_memcpy(order, G->start, (size_t)left * sizeof(int64_t));
    shuffle(order, left, rng);
    for (int64_t p = 0; p < G->nmasked; p++) positions[p] = p;
    shuffle(positions, G->nmasked, rng);
    for (int64_t q = 0; q < G->nmasked; q++) {
        const uint8_t *row = G->fits + positions[q] * G->nunits;
        int64_t nfit = 0;
        for (int64_t k = 0; k < left; k++) if (row[order[k]]) fitting[nfit++] = k;
        if (!nfit) return 0;
        int64_t at = fitting[rp_below(rng, (uint64_t)nfit)], item = order[at];
        memmove(order + at, order + at + 1, (size_t)(left - at - 1) * sizeof(int64_t));
        left--;
        if (!place(D, T, &G->units[G->masked[positions[q]]], G->items[item], C)) return 0;
    }
    for (int64_t k = 0; k < G->nopen && k < left; k++)
        if (!place(D, T, &G->units[G->open[k]], G->items[order[k]], C)) return 0;
    return 1;
}

/* `Determinizer.sample` for a draw that only deals: a new state the viewer cannot tell from the real one,
 * drawn with the agent's generator `rng` (its generator first, then up to `draws` deals, the real arrangement
 * when none is seen alike, counted in `*fallbacks`); NULL after a bail, with the reason in `e`. */
rp_state *rp_dealer_sample(rp_dealer *D, uint64_t *rng, int32_t draws, int64_t *fallbacks, rp_error *e)
{
    rp_ctx C;
    rp_ctx_init(&C, &RP_MODEL, NULL);
    uint64_t generator = rp_next64(rng);
    rp_state *T = rp_state_clone(D->real);
    int found = 0;
    for (int32_t n = 0; T && !found && C.err == RP_OK && n < draws; n++) {
        if (n && !rp_state_copy_into(T, D->real)) break;
        int dealt = 1;
        for (int64_t d = 0; dealt && d < D->ndeals; d++) dealt = deal_into(D, &D->deals[d], T, rng, &C);
        if (dealt && C.err == RP_OK) found = seen_alike(D, T, &C) == 1;
    }
    if (!found && T && C.err == RP_OK) {
        (*fallbacks)++;
        if (!rp_state_copy_into(T, D->real)) { rp_state_free(T); T = NULL; }
    }
    if (!T && C.err == RP_OK) rp_bail(&C, RP_BAIL_MEMORY, "out of memory", -1);
    if (C.err != RP_OK && T) { rp_state_free(T); T = NULL; }
    if (T) {
        T->rng = generator;
        T->legal_known = 0;
        T->nlegal = 0;
    }
    e->code = C.err; e->why = C.why ? C.why : ""; e->where = C.where;
    rp_ctx_done(&C);
    return T;
}

/* Whether variable `var`'s `visible_if` and `back` are in the module (else what a seat sees is Python's). */
int rp_view_lowered(int32_t var)
{
    return var >= 0 && var < RP_MODEL.nvars && RP_SEEN_VARS[var].lowered;
}
