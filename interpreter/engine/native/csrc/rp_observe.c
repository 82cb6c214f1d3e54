/* One seat's observation vector, written natively: the layout of adapters/encoding.py (docs/adapters.md),
 * number for number, from what `engine/observe.py` shows that seat.
 *
 * A variable is shown as `observe` shows it: masked as a whole for a seat that may not see it (a hidden
 * variable, another seat's entry of an `owner` one), else item by item through its `visible_if` and `back`
 * (lowered from the ruleset into RP_SEEN_VARS), with one work budget for the whole view as Python has.  The
 * view is never built as a value: each entry is written as it is walked.  Anything this cannot write exactly
 * as the Python encoding does (a rule error or a limit in `visible_if`, a per-player variable that is not one
 * entry per seat, values nested past OBS_DEPTH) stops with a bail code, and the caller encodes that view in
 * Python, which raises the rule error with its own message. */
#include "rp.h"

#include <math.h>
#include <stdlib.h>

#include "rp_api.h"

extern rp_model RP_MODEL;

#define ATOM 4
#define OBS_LIMIT 1e30      /* numbers are clipped to what a float32 holds with room to spare */
#define OBS_DEPTH 1000      /* values nested deeper are counted by Python (which walks them with a stack) */

static int views_lowered = -1;

/* Whether every variable's `visible_if` and `back` are in the module (else views are Python's). */
int rp_views_lowered(void)
{
    if (views_lowered < 0) {
        views_lowered = 1;
        for (int32_t i = 0; i < RP_MODEL.nvars; i++) views_lowered &= RP_SEEN_VARS[i].lowered != 0;
    }
    return views_lowered;
}

/* The id of a text (interned when the module has none yet): symbols named by Python find their ids. */
int64_t rp_text_id(const char *bytes, int64_t n)
{
    rp_ctx C;
    rp_ctx_init(&C, &RP_MODEL, NULL);
    int64_t id = rp_intern(&C, bytes, n);
    rp_ctx_done(&C);
    return id;
}

/* `_number` of encoding.py: NaN is 0, the rest clipped to +-OBS_LIMIT. */
static double clipped(double x)
{
    if (isnan(x)) return 0.0;
    return x > OBS_LIMIT ? OBS_LIMIT : x < -OBS_LIMIT ? -OBS_LIMIT : x;
}

/* The atom [known, hidden, number, symbol] of a value the viewer sees (inlined: a vector is mostly lists' items).
 * An int is within +-OBS_LIMIT as a double (at most 2^63), so it is not clipped. */
static inline __attribute__((always_inline)) void atom(float *out, rv v, const rp_layout *L)
{
    switch (v.t) {
    case T_NULL: return;
    case T_BOOL: out[0] = 1.0f; out[2] = v.u.i ? 1.0f : 0.0f; return;
    case T_INT: out[0] = 1.0f; out[2] = (float)(double)v.u.i; return;
    case T_FLT: out[0] = 1.0f; out[2] = (float)clipped(v.u.f); return;
    case T_STR: out[0] = 1.0f; out[3] = v.u.i < L->nsymbols ? (float)L->symbol_of_text[v.u.i] : 0.0f; return;
    case T_LIST: out[0] = 1.0f; out[2] = (float)v.u.l->len; return;
    default: out[0] = 1.0f; out[2] = (float)v.u.m->len; return;
    }
}

/* An entry's component counts as they are written: where they go, how many (the game's components, or 0 for a
 * variable whose entries have none: layout->counts), and whether any was counted (a row written over and over
 * clears an entry's counts only where its last write counted one: most entries never count any). */
typedef struct tally {
    float *counts;
    int64_t n;
    int32_t any;
} tally;

/* Only for an entry that has counts (t->n > 0): elsewhere nothing is counted, and no value walked. */
static void count_text(tally *t, int64_t id)
{
    const rp_model *M = &RP_MODEL;
    if (id >= 0 && id < M->ncomponent_texts && M->component_of_text[id] >= 0) {
        t->counts[M->component_of_text[id]] += 1.0f;
        t->any = 1;
    }
}

/* How many times each component's id occurs in `v`: list items, map keys and values, at any depth (a
 * container's scalar items are looked at in its own loop: most values are lists of scalars). */
static int count_components(rp_ctx *C, tally *counts, rv v, int32_t depth)
{
    if (v.t == T_STR) { count_text(counts, v.u.i); return 1; }
    if (!rv_is_container(v)) return 1;
    if (depth >= OBS_DEPTH) { rp_bail(C, RP_BAIL_NATIVE, "a value nested too deep to observe natively", -1); return 0; }
    int is_list = v.t == T_LIST;
    const rv *items = is_list ? v.u.l->items : v.u.m->vals;
    int64_t n = is_list ? v.u.l->len : v.u.m->len;
    for (int64_t i = 0; i < n; i++) {
        if (!is_list) count_text(counts, v.u.m->keys[i]);
        rv x = items[i];
        if (x.t == T_STR) count_text(counts, x.u.i);
        else if (rv_is_container(x) && !count_components(C, counts, x, depth + 1)) return 0;
    }
    return 1;
}

/* count_components where the entry has counts: without any (a game without components, a variable that holds no
 * text) a value is not walked, as Python's encoding does not walk it. */
static inline int counted(rp_ctx *C, tally *counts, rv v, int32_t depth)
{
    return counts->n == 0 || count_components(C, counts, v, depth);
}

/* The numbers each entry of variable `var` takes in a vector of layout L: its atom, its counts, its items. */
static inline int64_t entry_width(const rp_layout *L, int32_t var)
{
    return ATOM + L->counts[var] + ATOM * (int64_t)L->cells[var];
}

/* What `observe` leaves of a value the viewer may not see, {"hidden": true or a length}: read from `v`,
 * which is such a map exactly when a maskable variable's entry is taken for a masked one (encoding.py). */
static int looks_masked(rv v, const rp_layout *L, double *n)
{
    if (v.t != T_MAP || v.u.m->len != 1 || v.u.m->keys[0] != L->text_hidden) return 0;
    rv h = v.u.m->vals[0];
    if (h.t == T_BOOL && h.u.i) { *n = 1.0; return 1; }
    if (h.t == T_INT && h.u.i >= 0) { *n = (double)h.u.i; return 1; }
    return 0;
}

/* An entry the viewer is shown as `v` (the value itself, or what `visible_if` left of a value that is no
 * list): its atom, its component counts (into `counts`, at out + ATOM) and its first `cells` items (how many it
 * wrote into *written). */
static int shown(rp_ctx *C, const rp_layout *L, int maskable, rv v, int64_t cells, float *out, tally *counts,
                 int64_t *written)
{
    double n;
    *written = 0;
    if (maskable && looks_masked(v, L, &n)) {
        out[1] = 1.0f;
        out[2] = (float)clipped(n);
        return 1;
    }
    atom(out, v, L);
    if (v.t != T_LIST) return counted(C, counts, v, 0);
    float *items = out + ATOM + counts->n;
    const rp_list *l = v.u.l;
    *written = l->len < cells ? l->len : cells;
    if (!counts->n) {   /* an entry without counts: its first `cells` items, nothing counted */
        for (int64_t i = 0; i < *written; i++) atom(items + ATOM * i, l->items[i], L);
        return 1;
    }
    /* a list's items in one pass: each counted, at any depth, and the first `cells` kept as atoms */
    for (int64_t i = 0; i < l->len; i++) {
        rv x = l->items[i];
        if (x.t == T_STR) count_text(counts, x.u.i);
        else if (rv_is_container(x) && !counted(C, counts, x, 1)) return 0;
        if (i < cells) atom(items + ATOM * i, x, L);
    }
    return 1;
}

/* `item` as the viewer sees it: itself when `visible_if` holds, else its `back` (a new reference) or null. */
static inline __attribute__((always_inline)) int seen_item(rp_ctx *C, const rp_seen_var *V, rv item, rv index,
                                                            int32_t viewer, int32_t owner, rv *out, int *owned)
{
    rv A[4] = {item, index, rv_int(viewer), owner >= 0 ? rv_int(owner) : rv_null()};
    int visible = V->visible_if(C, A);
    if (C->err) return 0;
    *owned = 0;
    *out = item;
    if (visible) return 1;
    *out = rv_null();
    if (V->back) {
        *out = V->back(C, A);
        if (C->err) return 0;
        *owned = 1;
    }
    return 1;
}

/* One variable's entry that the viewer may see (entry_at writes masked ones itself; a per-player variable's entry
 * of seat `owner`; -1 for one that is not per player), into zeros; how many of its items it wrote into *written,
 * whether it counted a component into counts->any. */
static int entry(rp_ctx *C, const rp_layout *L, int32_t var, rv value, int32_t viewer, int32_t owner, float *out,
                 tally *counts, int64_t *written)
{
    const rp_seen_var *V = &RP_SEEN_VARS[var];
    int64_t cells = L->cells[var];
    int maskable = V->visibility != SEEN_PUBLIC;
    *written = 0;
    if (!V->visible_if) return shown(C, L, maskable, value, cells, out, counts, written);
    rv seen;
    int owned;
    if (value.t != T_LIST) {   /* one item, with `index` null */
        if (!seen_item(C, V, value, rv_null(), viewer, owner, &seen, &owned)) return 0;
        int ok = shown(C, L, maskable, seen, cells, out, counts, written);
        if (owned) rv_drop(seen);
        return ok;
    }
    /* A list, item by item: the list's atom and length stay; each item is counted and kept as it is seen. */
    const rp_list *l = value.u.l;
    atom(out, value, L);
    float *items = out + ATOM + counts->n;
    *written = l->len < cells ? l->len : cells;
    int ok = 1;
    for (int64_t i = 0; ok && i < l->len; i++) {
        ok = seen_item(C, V, l->items[i], rv_int(i), viewer, owner, &seen, &owned);
        if (!ok) break;
        ok = counted(C, counts, seen, 0);
        if (ok && i < cells) atom(items + ATOM * i, seen, L);
        if (owned) rv_drop(seen);
    }
    return ok;
}

/* ------------------------------------------------------------------ entries kept per seat
 * An entry whose `visible_if` or `back` reads `viewer` shows each seat its own numbers, so a row written for one seat
 * after another (a batch's: the seat to move) cannot keep it.  A batch's slot keeps each seat's last numbers of such
 * entries, and which variables changed since that seat's last row: an entry none of whose variables changed since is
 * copied back, its budget charged again. */
struct rp_seat_views {
    int32_t players, nvars;
    int64_t *slot;       /* per entry of a vector: its place among the kept ones, or -1 */
    int64_t nkept;
    int64_t *at;         /* per kept entry: where its numbers lie in a seat's */
    int64_t width;       /* the numbers a seat's kept entries take */
    float *numbers;      /* seat by seat */
    int32_t *used;       /* seat by seat, RP_VIEW_USED numbers a kept entry */
    uint8_t *valid;      /* seat by seat: whether a kept entry holds what the seat was last shown */
    uint8_t *stale;      /* seat by seat, a mark a variable: changed since the seat's last row (where watched) */
    int32_t *watched;    /* the variables kept entries show: their own and those their `visible_if` and `back` read */
    int32_t nwatched;
};

/* The variables marked changed in `changed` marked stale to every seat: those a kept entry shows. */
static void marked_stale(rp_seat_views *V, const uint8_t *changed)
{
    for (int32_t q = 0; q < V->players; q++)
        for (int32_t j = 0; j < V->nwatched; j++) V->stale[q * V->nvars + V->watched[j]] |= changed[V->watched[j]];
}

static void write_view(rp_ctx *C, rp_state *S, const rp_layout *L, int32_t seat, int32_t prev, float *out,
                       int32_t *used, rp_seat_views *views);

/* The numbers a vector of layout L holds for this module's game (encoding.py's Encoding.size); -1 where a variable's
 * counts are neither none nor one per component of the game (each is written at its component's place). */
static int64_t layout_size(const rp_model *M, const rp_layout *L)
{
    int64_t n = M->players, size = 2 * n + 2 + M->nphases + L->nstages + 2;
    for (int32_t i = 0; i < M->nvars; i++) {
        if (L->counts[i] != 0 && L->counts[i] != M->ncomponents) return -1;
        size += entry_width(L, i) * (M->vars[i].per_player ? n : 1);
    }
    return size;
}

/* The entries of a vector: one per state variable, one per seat of a per-player one (rp_observe_row's `used` holds
 * RP_VIEW_USED numbers for each). */
int64_t rp_view_entries(const rp_model *M)
{
    int64_t n = 0;
    for (int32_t i = 0; i < M->nvars; i++) n += M->vars[i].per_player ? M->players : 1;
    return n;
}

/* Every entry's items, as many as its variable keeps, and its counts: what `used` says of a row whose numbers are
 * not known. */
void rp_view_unknown(const rp_model *M, const rp_layout *L, int32_t *used)
{
    int64_t k = 0;
    for (int32_t i = 0; i < M->nvars; i++)
        for (int64_t q = 0; q < (M->vars[i].per_player ? M->players : 1); q++) {
            used[k++] = L->cells[i];
            used[k++] = 1;
            used[k++] = -1;
            used[k++] = -1;
        }
}

/* Seat `seat`'s observation of S into `out` (L->size numbers): 1, or 0 with the bail in `e`.  `used` NULL: `out`
 * holds anything, and is cleared whole first.  Else `out` holds zeros but for the head, each entry's atom, its
 * component counts where u[1] is not 0, and the first u[0] items of entry k, u its RP_VIEW_USED numbers at
 * used + RP_VIEW_USED * k (rp_view_entries entries): only those are cleared, and u[0], u[1] set to the items written
 * now and whether a count was, u[2], u[3] to the iterations and copies its visible_if and back charged (-1: more
 * than an int32 holds),
 * so that a row written over and over is cleared only where it was written (most of a vector is items past a
 * list's length and counts of components an entry does not hold).  With `used`, `prev` >= 0 says that `out` is
 * this state's last row, written in layout L for seat `prev`: an entry that `kept` shows the same is left as it is,
 * its budget charged again (most of a vector is variables a move does not touch); -1: every entry is written.
 * A row written with `used` clears the marks.  `views` (NULL: none; only with `used`) keeps, for every seat, the
 * entries that read `viewer` as the seat was last shown them in layout L (rp_seat_views_new), and takes the marks
 * into each seat's own.  L must be a layout rp_layout_unfit passes (asked once, not at every row: its size is a
 * walk of every variable).
 * After a bail `out` and `used` are undefined, and `views` holds nothing. */
int rp_observe_row(rp_state *S, const rp_layout *L, int32_t seat, int32_t prev, float *out, int32_t *used,
                   rp_seat_views *views, rp_error *e)
{
    const rp_model *M = S->M;
    rp_ctx C;
    rp_ctx_init(&C, M, S);
    if (!used) memset(out, 0, (size_t)L->size * sizeof(float));
    if (seat < 0 || seat >= M->players) {
        rp_bail(&C, RP_BAIL_RULE, "not a seat of this game", -1);
    } else {
        if (views) marked_stale(views, S->changed);
        write_view(&C, S, L, seat, used ? prev : -1, out, used, used ? views : NULL);
    }
    if (e) { e->code = C.err; e->why = C.why ? C.why : ""; e->where = C.where; }
    rp_ctx_done(&C);
    if (used && C.err == RP_OK) {
        memset(S->changed, 0, (size_t)(M->nvars ? M->nvars : 1));
        if (views) memset(views->stale + seat * M->nvars, 0, (size_t)M->nvars);
    } else if (views) {
        memset(views->valid, 0, (size_t)(views->players * views->nkept));
    }
    return C.err == RP_OK;
}

/* Why vectors of layout L cannot be written natively for M's game (a view the module does not hold, a layout
 * made for another game), or NULL where they can. */
const char *rp_layout_unfit(const rp_model *M, const rp_layout *L)
{
    if (!rp_views_lowered()) return "a visible_if or back the module does not hold";
    if (layout_size(M, L) != L->size) return "a layout made for another game";
    return NULL;
}

int rp_observe(rp_state *S, const rp_layout *L, int32_t seat, float *out, rp_error *e)
{
    const char *unfit = rp_layout_unfit(S->M, L);
    if (!unfit) return rp_observe_row(S, L, seat, -1, out, NULL, NULL, e);
    if (e) { e->code = RP_BAIL_NATIVE; e->why = unfit; e->where = -1; }
    return 0;
}

/* What an entry's last write left at `out` (`used` its RP_VIEW_USED numbers, `counts` the numbers its counts take),
 * cleared: its atom, its counts where it counted one, its items. */
static inline __attribute__((always_inline)) void clear_entry(float *out, const int32_t *used, int64_t counts)
{
    _Static_assert(ATOM == 4, "an atom alone is cleared by four stores");
    if (!used[0] && !used[1]) {   /* an atom alone (a masked entry, an empty list, a scalar): no call */
        out[0] = out[1] = out[2] = out[3] = 0.0f;
        return;
    }
    memset(out, 0, (size_t)(used[1] ? ATOM + counts : ATOM) * sizeof(float));
    memset(out + ATOM + counts, 0, (size_t)(ATOM * (int64_t)used[0]) * sizeof(float));
}

/* One entry at `out` (its variable's `width` numbers), into zeros: with `used` (rp_observe_row, the entry's
 * RP_VIEW_USED numbers), what the row held there is cleared first and `used` set to what is written now and, for a
 * variable with a `visible_if`, to the budget it charged. */
static inline __attribute__((always_inline)) void entry_at(rp_ctx *C, const rp_layout *L, int32_t var, rv value,
                                                           int32_t viewer, int32_t owner, float *out, int32_t *used)
{
    int64_t written, counts = L->counts[var];
    if (used) clear_entry(out, used, counts);
    const rp_seen_var *V = &RP_SEEN_VARS[var];
    int masked = V->visibility == SEEN_HIDDEN || (V->visibility == SEEN_OWNER && owner != viewer);
    if (masked || (value.t == T_LIST && value.u.l->len == 0)) {
        /* An atom alone, without `entry`'s call: masked, [0, 1, length, 0] (only a list's length is left, else 1);
         * an empty list shown, [1, 0, 0, 0] (no item for a `visible_if` to charge).  Most entries a move rewrites
         * are such: the seats' `owner` entries flip between shown and masked as the turn passes. */
        if (masked) {
            out[1] = 1.0f;
            out[2] = value.t == T_LIST ? (float)value.u.l->len : 1.0f;
        } else {
            out[0] = 1.0f;
        }
        if (used) used[0] = used[1] = used[2] = used[3] = 0;
        return;
    }
    tally counted = {out + ATOM, counts, 0};
    int charges = used && V->visible_if;   /* nothing else in an entry charges (nor is `kept` asked) */
    int64_t iterations = charges ? C->b->iterations : 0, copies = charges ? C->b->copies : 0;
    entry(C, L, var, value, viewer, owner, out, &counted, &written);
    if (used) {
        used[0] = (int32_t)written;
        used[1] = counted.any;
    }
    if (charges) {
        iterations -= C->b->iterations;
        copies -= C->b->copies;
        used[2] = iterations <= INT32_MAX ? (int32_t)iterations : -1;
        used[3] = copies <= INT32_MAX ? (int32_t)copies : -1;
    }
}

/* Whether what variable `var`'s entry shows a seat is marked unchanged in `changed`: the variable itself and every
 * variable its `visible_if` and `back` read (which must be listed). */
static inline int unchanged(const uint8_t *changed, const rp_seen_var *V, int32_t var)
{
    if (changed[var] || V->nreads < 0) return 0;
    for (int32_t j = 0; j < V->nreads; j++)
        if (changed[V->reads[j]]) return 0;
    return 1;
}

/* The budget an entry's `visible_if` and `back` charged (`used` its RP_VIEW_USED numbers), charged again as walking
 * it would (a bail where that runs out). */
static inline void charged_again(rp_ctx *C, const int32_t *used)
{
    if (rp_spend(C, used[2], -1)) rp_built(C, used[3], -1);
}

/* Whether entry `owner` of variable `var` is masked to seat `seat` (owner -1: the variable is not per player). */
static inline int masked_to(const rp_seen_var *V, int32_t owner, int32_t seat)
{
    return V->visibility == SEEN_HIDDEN || (V->visibility == SEEN_OWNER && owner != seat);
}

/* Whether seat `owner`'s entry of variable `var` (-1: not per player), which the row (`used` its numbers) holds as
 * seat `prev` saw it, shows seat `seat` the same: nothing it shows was marked changed since (S->changed), and it is
 * masked to both seats, or shown to both with its `visible_if` and `back` reading neither a changed variable nor a
 * viewer that changed.  Then the budget its `visible_if` and `back` charged is charged again. */
static inline int kept(rp_ctx *C, const rp_state *S, int32_t var, int32_t owner, int32_t seat, int32_t prev,
                       const int32_t *used)
{
    const rp_seen_var *V = &RP_SEEN_VARS[var];
    if (S->changed[var]) return 0;
    int masked_now = masked_to(V, owner, seat);
    if (masked_now != masked_to(V, owner, prev)) return 0;
    if (masked_now || !V->visible_if) return 1;
    if ((V->by_viewer && seat != prev) || used[2] < 0 || used[3] < 0 || !unchanged(S->changed, V, var)) return 0;
    charged_again(C, used);
    return 1;
}

/* Whether entries of variable `var` are kept per seat: shown through a `visible_if` that reads the viewer and
 * variables that can be listed. */
static int kept_per_seat(int32_t var)
{
    const rp_seen_var *V = &RP_SEEN_VARS[var];
    return V->visible_if && V->by_viewer && V->nreads >= 0 && V->visibility != SEEN_HIDDEN;
}

void rp_seat_views_free(rp_seat_views *V)
{
    if (!V) return;
    free(V->slot); free(V->at); free(V->numbers); free(V->used); free(V->valid); free(V->stale); free(V->watched);
    free(V);
}

rp_seat_views *rp_seat_views_new(const rp_model *M, const rp_layout *L)
{
    int64_t entries = rp_view_entries(M), n = M->players, nkept = 0, width = 0;
    for (int32_t i = 0; i < M->nvars; i++)
        if (kept_per_seat(i)) nkept += M->vars[i].per_player ? n : 1;
    if (!nkept) return NULL;
    rp_seat_views *V = calloc(1, sizeof *V);
    if (!V) return NULL;
    V->players = (int32_t)n;
    V->nvars = M->nvars;
    V->nkept = nkept;
    V->slot = malloc((size_t)entries * sizeof *V->slot);
    V->at = malloc((size_t)nkept * sizeof *V->at);
    if (!V->slot || !V->at) { rp_seat_views_free(V); return NULL; }
    int64_t k = 0, s = 0;
    for (int32_t i = 0; i < M->nvars; i++)
        for (int64_t q = 0; q < (M->vars[i].per_player ? n : 1); q++, k++) {
            V->slot[k] = kept_per_seat(i) ? s : -1;
            if (V->slot[k] < 0) continue;
            V->at[s++] = width;
            width += entry_width(L, i);
        }
    V->width = width;
    V->numbers = malloc((size_t)(n * width) * sizeof *V->numbers);
    V->used = malloc((size_t)(n * nkept * RP_VIEW_USED) * sizeof *V->used);
    V->valid = calloc((size_t)(n * nkept), 1);
    V->stale = malloc((size_t)(n * M->nvars));
    V->watched = malloc((size_t)M->nvars * sizeof *V->watched);
    if (!V->numbers || !V->used || !V->valid || !V->stale || !V->watched) { rp_seat_views_free(V); return NULL; }
    memset(V->stale, 0, (size_t)M->nvars);   /* the first seat's marks: which variables are watched, for now */
    for (int32_t i = 0; i < M->nvars; i++) {
        if (!kept_per_seat(i)) continue;
        const rp_seen_var *seen = &RP_SEEN_VARS[i];
        V->stale[i] = 1;
        for (int32_t j = 0; j < seen->nreads; j++) V->stale[seen->reads[j]] = 1;
    }
    for (int32_t i = 0; i < M->nvars; i++)
        if (V->stale[i]) V->watched[V->nwatched++] = i;
    memset(V->stale, 1, (size_t)(n * M->nvars));
    return V;
}

/* Entry k (of variable `var`, `width` numbers at `out`, `used` its RP_VIEW_USED numbers) as seat `seat` was last
 * shown it, copied back where the seat's kept numbers are still what it is shown now: 1, else 0 (nothing done). */
static int copied_back(rp_ctx *C, const rp_seat_views *V, int64_t k, int32_t var, int32_t seat, int64_t width,
                       float *out, int32_t *used)
{
    int64_t s = V->slot[k];
    if (s < 0 || !V->valid[seat * V->nkept + s] || !unchanged(V->stale + seat * V->nvars, &RP_SEEN_VARS[var], var))
        return 0;
    const int32_t *was = V->used + (seat * V->nkept + s) * RP_VIEW_USED;
    if (was[2] < 0 || was[3] < 0) return 0;
    memcpy(out, V->numbers + seat * V->width + V->at[s], (size_t)width * sizeof(float));
    memcpy(used, was, RP_VIEW_USED * sizeof *used);
    charged_again(C, used);
    return 1;
}

/* Entry k as written now for seat `seat` kept as what the seat was last shown (where entry k is kept per seat). */
static void keep_for_seat(rp_seat_views *V, int64_t k, int32_t seat, int64_t width, const float *out,
                          const int32_t *used)
{
    int64_t s = V->slot[k];
    if (s < 0) return;
    memcpy(V->numbers + seat * V->width + V->at[s], out, (size_t)width * sizeof(float));
    memcpy(V->used + (seat * V->nkept + s) * RP_VIEW_USED, used, RP_VIEW_USED * sizeof *used);
    V->valid[seat * V->nkept + s] = 1;
}

/* Entry k (variable `var`, seat `owner`'s or -1, kept per seat, `used` its RP_VIEW_USED numbers) of the row at
 * `out`: copied back from what `views` kept for the seat, else written and kept for the seat.  Not inlined: the
 * loop over every entry stays as small as without `views`. */
static __attribute__((noinline)) void seat_entry(rp_ctx *C, const rp_layout *L, rp_seat_views *views, int64_t k,
                                                 int32_t var, rv value, int32_t seat, int32_t owner, int64_t width,
                                                 float *out, int32_t *used)
{
    if (copied_back(C, views, k, var, seat, width, out, used)) return;
    entry_at(C, L, var, value, seat, owner, out, used);
    if (!C->err) keep_for_seat(views, k, seat, width, out, used);
}

/* Entry k (variable `var`, seat `owner`'s or -1) of the row at `out` that `kept` does not keep: copied back from what
 * `views` (NULL: none) kept for the seat, else written (and kept for the seat). */
static inline __attribute__((always_inline)) void written(rp_ctx *C, const rp_layout *L, rp_seat_views *views,
                                                          int64_t k, int32_t var, rv value, int32_t seat,
                                                          int32_t owner, int64_t width, float *out, int32_t *used)
{
    if (views && views->slot[k] >= 0 && !masked_to(&RP_SEEN_VARS[var], owner, seat))
        seat_entry(C, L, views, k, var, value, seat, owner, width, out, used);
    else
        entry_at(C, L, var, value, seat, owner, out, used);
}

/* The vector itself (rp_observe_row checked the seat and says what `prev` is).  Made twice, with `views` and
 * without: a row without is written by the loop it had before there were any. */
static inline __attribute__((always_inline)) void view_of(rp_ctx *C, rp_state *S, const rp_layout *L, int32_t seat,
                                                          int32_t prev, float *out, int32_t *used,
                                                          rp_seat_views *views)
{
    const rp_model *M = S->M;
    int64_t n = M->players, at = 2 * n + 2 + M->nphases + L->nstages + 2, k = 0;
    if (used) memset(out, 0, (size_t)at * sizeof(float));
    out[seat] = 1.0f;
    int64_t current = S->flow.player;
    out[n + (current >= 0 && current < n ? current : S->flow.done ? n + 1 : n)] = 1.0f;
    int64_t head = 2 * n + 2;
    out[head + S->flow.phase] = 1.0f;
    head += M->nphases;
    int64_t stage = S->flow.stage >= 0 ? L->stage_slot[L->phase_stages[S->flow.phase] + S->flow.stage] : L->nstages;
    out[head + stage] = 1.0f;
    head += L->nstages + 1;
    out[head] = (float)clipped((double)S->flow.round);
    for (int32_t i = 0; i < M->nvars && !C->err; i++) {
        int64_t width = entry_width(L, i);
        rv value = S->vars[i];
        if (!M->vars[i].per_player) {   /* prev >= 0: `used` is not NULL */
            int32_t *u = used ? used + RP_VIEW_USED * k : NULL;
            if (prev < 0 || !kept(C, S, i, -1, seat, prev, u)) written(C, L, views, k, i, value, seat, -1, width, out + at, u);
            k++;
            at += width;
            continue;
        }
        if (value.t != T_LIST || value.u.l->len != n) {
            rp_bail(C, RP_BAIL_NATIVE, "a per-player variable that is not one entry per seat", -1);
            return;
        }
        for (int32_t q = 0; q < n && !C->err; q++) {
            int32_t *u = used ? used + RP_VIEW_USED * k : NULL;
            if (prev < 0 || !kept(C, S, i, q, seat, prev, u)) written(C, L, views, k, i, value.u.l->items[q], seat, q, width, out + at, u);
            k++;
            at += width;
        }
    }
}

static void write_view(rp_ctx *C, rp_state *S, const rp_layout *L, int32_t seat, int32_t prev, float *out,
                       int32_t *used, rp_seat_views *views)
{
    if (views) view_of(C, S, L, seat, prev, out, used, views);
    else view_of(C, S, L, seat, prev, out, used, NULL);
}

/* S's action mask into `mask` (nactions numbers): a 1 for each legal move when `masked`, else all 0s.  `was` NULL:
 * `mask` holds anything and is cleared whole first; else it holds 1s exactly at the `nwas` moves of `was`, and
 * only those are cleared (a mask is mostly 0s).  1, or 0 (`mask` then undefined) when the listing bails or lists a
 * move past `nactions`: the caller writes the mask through the Python engine, which raises what the rules raise. */
int rp_mask_row(rp_state *S, int32_t masked, int8_t *mask, int64_t nactions, const int32_t *was, int64_t nwas)
{
    if (!was) memset(mask, 0, (size_t)nactions);
    for (int64_t k = 0; k < nwas; k++) mask[was[k]] = 0;
    if (!masked) return 1;
    rp_ctx C;
    rp_ctx_init(&C, S->M, S);
    int listed = rp_state_list(S, &C);
    rp_ctx_done(&C);
    if (!listed) return 0;
    for (int64_t k = 0; k < S->nlegal; k++) {
        int32_t a = S->legal[k];
        if (a < 0 || a >= nactions) return 0;
        mask[a] = 1;
    }
    return 1;
}

/* Seat `seat`'s vector of S into `out` and S's action mask into `mask` (nactions numbers): a 1 for each legal move
 * when `masked`, else all 0s.  1, or 0 when this cannot write them exactly (a view or a listing that bails): the
 * caller writes them through the Python engine, which raises what the rules raise. */
int rp_observe_masked(rp_state *S, const rp_layout *L, int32_t seat, int32_t masked, float *out, int8_t *mask,
                      int64_t nactions)
{
    return rp_observe(S, L, seat, out, NULL) && rp_mask_row(S, masked, mask, nactions, NULL, 0);
}
