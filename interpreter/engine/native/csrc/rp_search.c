/* What the search agents (agents/native_positions.py, native_tree.py) ask of a module: random rollouts judged at
 * their end or at a cut-off, chance outcomes drawn with the agent's generator, and `ismcts`'s tree walked an
 * iteration at a time, with how its seat is shown each move.  Each does exactly what agents/search.py and
 * ismcts.py do on the Python engine, drawing the same numbers from the agent's generator (SplitMix64,
 * engine/rng.py), so a search makes the same decisions on either engine.  Anything the module gives up on
 * returns 0 (or -1) with the reason in `e`, and the caller does that part on the Python engine. */
#include "rp.h"

#include <math.h>
#include <stdlib.h>

#include "rp_api.h"

extern rp_model RP_MODEL;
double rp_py_sum(const double *xs, int64_t n, int compensated);
int32_t rp_state_seen_of(rp_state *S, int64_t index, uint32_t *seen);

static void report(rp_error *e, const rp_ctx *C)
{
    e->code = C->err;
    e->why = C->why ? C->why : "";
    e->where = C->where;
}

uint64_t rp_rng(rp_state *S) { return S->rng; }
void rp_set_rng(rp_state *S, uint64_t rng) { S->rng = rng; }

/* `search.evaluate`: the returns at the end; before it each seat's standing by heuristic `heuristic` (-1: none,
 * every seat 0), on `scale` (0: only the order counts), the mean over the other seats of tanh(lead / scale).
 * Judged on a budget of its own (`evaluate`), as the Python engine's scoring context is. */
static int standing(rp_state *S, int32_t heuristic, double scale, double *out, rp_ctx *C)
{
    int64_t n = S->flow.players;
    if (S->flow.done) return rp_state_returns(S, out, C);
    if (heuristic < 0 || n < 2) {
        for (int64_t p = 0; p < n; p++) out[p] = 0.0;
        return 1;
    }
    rv h[RP_MAX_PLAYERS];
    if (!rp_state_heuristic(S, heuristic, h, C)) return 0;
    for (int64_t p = 0; p < n; p++) {
        if (scale == 0.0) {
            int64_t order = 0;
            for (int64_t q = 0; q < n; q++) if (q != p) order += rp_num_cmp(h[p], h[q]);
            out[p] = (double)order / (double)(n - 1);
            continue;
        }
        double leads[RP_MAX_PLAYERS];
        int64_t k = 0;
        for (int64_t q = 0; q < n; q++) {
            if (q == p) continue;
            double d;
            if (h[p].t == T_INT && h[q].t == T_INT) {
                int64_t i;
                if (__builtin_sub_overflow(h[p].u.i, h[q].u.i, &i)) {
                    rp_bail(C, RP_BAIL_NATIVE, "an int past 64 bits", -1);
                    return 0;
                }
                d = (double)i;
            } else {
                double a = h[p].t == T_INT ? (double)h[p].u.i : h[p].u.f;
                double b = h[q].t == T_INT ? (double)h[q].u.i : h[q].u.f;
                d = a - b;
            }
            leads[k++] = tanh(d / scale);
        }
        out[p] = rp_py_sum(leads, k, S->M->sum_compensated) / (double)(n - 1);
    }
    return 1;
}

static int evaluate(rp_state *S, int32_t heuristic, double scale, double *out, rp_ctx *C)
{
    rp_ctx J;
    rp_ctx_init(&J, S->M, S);
    int ok = standing(S, heuristic, scale, out, &J);
    if (!ok) rp_bail(C, J.err, J.why, J.where);
    rp_ctx_done(&J);
    return ok;
}

int rp_evaluate(rp_state *S, int32_t heuristic, double scale, double *out, rp_error *e)
{
    rp_ctx C;
    rp_ctx_init(&C, &RP_MODEL, S);
    int ok = evaluate(S, heuristic, scale, out, &C);
    report(e, &C);
    rp_ctx_done(&C);
    return ok;
}

/* `search.sample_chance`: the outcome at chance node S drawn with the agent's generator `rng` by the outcomes'
 * probabilities; with more than `max_chance` outcomes, the one the state's own draw makes on a generator seeded
 * from `rng`.  The outcome's index, or -1 after a bail. */
static int64_t sample_chance(rp_state *S, uint64_t *rng, int64_t max_chance, rp_ctx *C)
{
    if (!S->legal_known && !rp_state_list(S, C)) return -1;
    int64_t n = S->nlegal;
    if (n > max_chance) {
        rp_state *T = rp_state_clone(S);
        if (!T) { rp_bail(C, RP_BAIL_MEMORY, "out of memory", -1); return -1; }
        T->rng = rp_next64(rng);
        rp_ctx D;
        rp_ctx_init(&D, S->M, T);
        int ok = rp_state_apply_chance(T, &D);
        int64_t chosen = T->last_move;
        if (!ok) rp_bail(C, D.err, D.why, D.where);
        rp_ctx_done(&D);
        rp_state_free(T);
        return ok ? chosen : -1;
    }
    double *w = malloc((size_t)n * sizeof(double));
    if (!w) { rp_bail(C, RP_BAIL_MEMORY, "out of memory", -1); return -1; }
    rp_ctx W;   /* the weights on a budget of their own, as the Python engine weighs them */
    rp_ctx_init(&W, S->M, S);
    int ok = rp_state_weights(S, w, &W);
    if (!ok) rp_bail(C, W.err, W.why, W.where);
    rp_ctx_done(&W);
    if (!ok) { free(w); return -1; }
    double total = rp_py_sum(w, n, S->M->sum_compensated);
    double pick = rp_random(rng);
    int64_t chosen = S->legal[n - 1];
    for (int64_t i = 0; i < n; i++) {
        double p = w[i] / total;
        if (pick < p) { chosen = S->legal[i]; break; }
        pick -= p;
    }
    free(w);
    return chosen;
}

int64_t rp_sample_chance(rp_state *S, uint64_t *rng, int64_t max_chance, rp_error *e)
{
    rp_ctx C;
    rp_ctx_init(&C, &RP_MODEL, S);
    int64_t chosen = sample_chance(S, rng, max_chance, &C);
    report(e, &C);
    rp_ctx_done(&C);
    return chosen;
}

/* `search.rollout`: uniformly random moves from S (left as it is) to the end, or `depth` moves (-1: no bound),
 * then `evaluate` into `out`; the agent's generator `rng` is advanced as the Python rollout advances it.  A
 * game that would pass `limits.max_steps` is a bail here: the Python engine, which judges it where it
 * stopped, plays that rollout again from S (the caller keeps `rng` as it was before). */
static int rollout(rp_state *S, uint64_t *rng, int64_t depth, int32_t heuristic, double scale, int64_t max_chance,
                   double *out, rp_ctx *C)
{
    if (S->flow.done || depth == 0) return evaluate(S, heuristic, scale, out, C);
    rp_state *W = rp_state_clone(S);
    int ok = W != NULL;
    if (!ok) rp_bail(C, RP_BAIL_MEMORY, "out of memory", -1);
    for (int64_t steps = 0; ok && !W->flow.done && (depth < 0 || steps < depth); steps++) {
        int64_t move;
        if (W->flow.player == RP_CHANCE) {
            move = sample_chance(W, rng, max_chance, C);
        } else {
            move = (W->legal_known || rp_state_list(W, C)) ? W->legal[rp_below(rng, (uint64_t)W->nlegal)] : -1;
        }
        ok = move >= 0 && rp_state_apply(W, move, C);
    }
    if (ok) ok = evaluate(W, heuristic, scale, out, C);
    if (W) rp_state_free(W);
    return ok;
}

int rp_rollout(rp_state *S, uint64_t *rng, int64_t depth, int32_t heuristic, double scale, int64_t max_chance,
               double *out, rp_error *e)
{
    rp_ctx C;
    rp_ctx_init(&C, &RP_MODEL, S);
    int ok = rollout(S, rng, depth, heuristic, scale, max_chance, out, &C);
    report(e, &C);
    rp_ctx_done(&C);
    return ok;
}

/* How seat `viewer` is shown move `index` made from S (`State.move_view`): -1 for a move whose arguments all are
 * public (its action has no `seen_by`), else a mask of the arguments the viewer sees; -2 after a bail. */
static int64_t view_of(rp_state *S, int64_t index, int32_t viewer, rp_ctx *C)
{
    uint32_t seen[RP_MAX_PLAYERS + 1];
    int32_t args = rp_state_seen_of(S, index, seen);
    if (args < 0) { rp_bail(C, RP_BAIL_RULE, "seen_by", -1); return -2; }
    int64_t mask = args ? 0 : -1;
    for (int32_t k = 0; k < args; k++)
        if (seen[k] >> 31 || seen[k] >> viewer & 1) mask |= (int64_t)1 << k;
    return mask;
}

/* The legal moves of S shuffled with the agent's generator as `Rng.shuffle` shuffles a list (a search's untried
 * moves), into `out` when they fit; the number of legal moves, or -1 after a bail. */
int64_t rp_shuffled(rp_state *S, uint64_t *rng, int32_t *out, int64_t cap, rp_error *e)
{
    rp_ctx C;
    rp_ctx_init(&C, &RP_MODEL, S);
    int64_t n = (S->legal_known || rp_state_list(S, &C)) ? S->nlegal : -1;
    report(e, &C);
    rp_ctx_done(&C);
    if (n < 0 || n > cap) return n;
    rp_memcpy(out, S->legal, (size_t)n * sizeof(int32_t));
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = (int64_t)rp_below(rng, (uint64_t)(i + 1));
        int32_t kept = out[i];
        out[i] = out[j];
        out[j] = kept;
    }
    return n;
}

/* ------------------------------------------------------------------ ismcts's tree (agents/ismcts.py)
 * The tree of one `ismcts` decision, walked here one iteration a call, as `ISMCTSAgent` walks its Python tree:
 * the same edges, statistics, numbers drawn from the agent's generator and floats, so the same decision.
 *
 * An edge is a view of a move for the searching seat.  Views are ids Python gives: a view's text is made by
 * Python (`view_text`), and two moves shown alike share an id; this table only knows the (move, mask) pairs
 * Python has named (`rp_tree_intern`).  A walk that meets a pair it does not know stops before drawing
 * anything for that node and asks for it (RP_TREE_TEXTS); the next call goes on where it stopped.  A node is
 * the child of one edge: node 0 is the root, node k + 1 the child of edge k; edges are found by (node, view) in
 * one open-addressed table. */
enum { RP_TREE_DONE = 0, RP_TREE_SKIP = 1, RP_TREE_ROLLOUT = 2, RP_TREE_TEXTS = 3 };

typedef struct pair_slot { int64_t mask; int32_t move, view; } pair_slot;   /* view -1: empty */

struct rp_tree {
    int32_t viewer, players, heuristic;
    int64_t depth, max_chance;
    double c, scale, spread;
    pair_slot *pairs; int64_t pair_cap, npairs;          /* (move, mask) -> view */
    uint8_t *root_view; uint64_t *stamp; int64_t *group_of; int64_t view_cap;   /* per view id */
    uint64_t *edge_keys; int64_t *edge_at; int64_t key_cap;    /* (node << 32 | view) -> edge; key ~0: empty */
    int64_t *visits, *available; double *totals; int64_t nedges, edge_cap;   /* per edge (totals: per seat) */
    int32_t walking; int64_t node, pending;              /* a walk stopped for texts: where, and a chance draw */
    int64_t *path; int64_t npath, path_cap;
    /* a node's scratch: the view of each legal move, and its views (groups) in the order their first move comes */
    int32_t *seen_view; int64_t *group_view, *group_count, *group_edge, *untried; int64_t node_cap;
    uint64_t now;                                        /* the grouping's stamp */
};

/* A capacity of at least `need`, doubled from `cap` (from 16). */
static int64_t enough(int64_t cap, int64_t need)
{
    int64_t n = cap ? cap : 16;
    while (n < need) n *= 2;
    return n;
}

/* `*items` reallocated to `n` items of `size` bytes (left as it was if that fails); 0 on failure. */
static int resize(void *items, int64_t n, size_t size)
{
    void *more = realloc(*(void **)items, (size_t)n * size);
    if (!more) return 0;
    *(void **)items = more;
    return 1;
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x9E3779B97F4A7C15ULL;
    return x ^ x >> 29;
}

static pair_slot *pair_find(rp_tree *T, int32_t move, int64_t mask)
{
    uint64_t at = mix((uint64_t)mask * 0xBF58476D1CE4E5B9ULL ^ (uint32_t)move) & (uint64_t)(T->pair_cap - 1);
    for (;; at = (at + 1) & (uint64_t)(T->pair_cap - 1)) {
        pair_slot *p = &T->pairs[at];
        if (p->view < 0 || (p->move == move && p->mask == mask)) return p;
    }
}

static int64_t *edge_find(rp_tree *T, uint64_t key)
{
    uint64_t at = mix(key) & (uint64_t)(T->key_cap - 1);
    for (;; at = (at + 1) & (uint64_t)(T->key_cap - 1))
        if (T->edge_keys[at] == key || T->edge_keys[at] == ~(uint64_t)0) return &T->edge_at[at];
}

static int rehash_edges(rp_tree *T, int64_t cap)
{
    uint64_t *keys = T->edge_keys;
    int64_t *at = T->edge_at, old = T->key_cap;
    T->edge_keys = malloc((size_t)cap * sizeof(uint64_t));
    T->edge_at = malloc((size_t)cap * sizeof(int64_t));
    if (!T->edge_keys || !T->edge_at) {
        free(T->edge_keys); free(T->edge_at);
        T->edge_keys = keys; T->edge_at = at;
        return 0;
    }
    T->key_cap = cap;
    memset(T->edge_keys, 0xff, (size_t)cap * sizeof(uint64_t));
    for (int64_t k = 0; k < old; k++) {
        if (keys[k] == ~(uint64_t)0) continue;
        int64_t *slot = edge_find(T, keys[k]);
        *slot = at[k];
        T->edge_keys[slot - T->edge_at] = keys[k];
    }
    free(keys);
    free(at);
    return 1;
}

static int rehash_pairs(rp_tree *T, int64_t cap)
{
    pair_slot *old = T->pairs;
    int64_t n = T->pair_cap;
    T->pairs = malloc((size_t)cap * sizeof(pair_slot));
    if (!T->pairs) { T->pairs = old; return 0; }
    T->pair_cap = cap;
    for (int64_t k = 0; k < cap; k++) T->pairs[k].view = -1;
    for (int64_t k = 0; k < n; k++) if (old[k].view >= 0) *pair_find(T, old[k].move, old[k].mask) = old[k];
    free(old);
    return 1;
}

rp_tree *rp_tree_new(int32_t viewer, int32_t players, double c, int64_t depth, int32_t heuristic, double scale,
                     int64_t max_chance)
{
    rp_tree *T = calloc(1, sizeof *T);
    if (!T) return NULL;
    T->viewer = viewer; T->players = players; T->c = c; T->depth = depth; T->heuristic = heuristic;
    T->scale = scale; T->max_chance = max_chance; T->spread = 1.0; T->pending = -1;
    if (!rehash_pairs(T, 64) || !rehash_edges(T, 256)) { rp_tree_free(T); return NULL; }
    return T;
}

void rp_tree_free(rp_tree *T)
{
    if (!T) return;
    free(T->pairs); free(T->root_view); free(T->stamp); free(T->group_of);
    free(T->edge_keys); free(T->edge_at); free(T->visits); free(T->available); free(T->totals);
    free(T->path); free(T->seen_view);
    free(T->group_view); free(T->group_count); free(T->group_edge); free(T->untried);
    free(T);
}

/* Room for view ids below `n`. */
static int views_fit(rp_tree *T, int64_t n)
{
    if (n <= T->view_cap) return 1;
    int64_t cap = enough(T->view_cap, n);
    if (!resize(&T->stamp, cap, sizeof(uint64_t)) || !resize(&T->group_of, cap, sizeof(int64_t))
        || !resize(&T->root_view, cap, 1))
        return 0;
    for (int64_t k = T->view_cap; k < cap; k++) { T->stamp[k] = 0; T->root_view[k] = 0; }
    T->view_cap = cap;
    return 1;
}

/* Room for a node of `n` legal moves. */
static int node_fits(rp_tree *T, int64_t n)
{
    if (n <= T->node_cap) return 1;
    int64_t cap = enough(T->node_cap, n);
    if (!resize(&T->seen_view, cap, sizeof(int32_t)) || !resize(&T->group_view, cap, sizeof(int64_t))
        || !resize(&T->group_count, cap, sizeof(int64_t)) || !resize(&T->group_edge, cap, sizeof(int64_t))
        || !resize(&T->untried, cap, sizeof(int64_t)))
        return 0;
    T->node_cap = cap;
    return 1;
}

/* Python's name for the view of `move` shown with the arguments in `mask` (`view_of`'s): `view`, an id from 0.
 * 0 when out of memory. */
int rp_tree_intern(rp_tree *T, int32_t move, int64_t mask, int32_t view)
{
    if (view < 0 || !views_fit(T, (int64_t)view + 1)) return 0;
    if (2 * (T->npairs + 1) > T->pair_cap && !rehash_pairs(T, 2 * T->pair_cap)) return 0;
    pair_slot *p = pair_find(T, move, mask);
    if (p->view < 0) T->npairs++;
    *p = (pair_slot){mask, move, view};
    return 1;
}

/* View `view` is one of the real position's legal moves: the only views the root offers. */
int rp_tree_root_view(rp_tree *T, int32_t view)
{
    if (view < 0 || !views_fit(T, (int64_t)view + 1)) return 0;
    T->root_view[view] = 1;
    return 1;
}

/* The root's edge of `view`: its visits and its total for the searching seat, or -1 (no such edge). */
int64_t rp_tree_root(rp_tree *T, int32_t view, double *total)
{
    uint64_t key = (uint64_t)(uint32_t)view;
    int64_t *at = edge_find(T, key);
    if (T->edge_keys[at - T->edge_at] != key) return -1;
    *total = T->totals[*at * T->players + T->viewer];
    return T->visits[*at];
}

double rp_tree_spread(rp_tree *T) { return T->spread; }

/* The edge of `view` at `node`, made (never visited, never available) where there is none; -1 out of memory. */
static int64_t edge_of(rp_tree *T, int64_t node, int32_t view, int make)
{
    uint64_t key = (uint64_t)node << 32 | (uint32_t)view;
    int64_t *at = edge_find(T, key);
    if (T->edge_keys[at - T->edge_at] == key) return *at;
    if (!make || T->nedges == INT32_MAX) return -1;   /* (a node's id is 32 bits of its key) */
    if (2 * (T->nedges + 1) > T->key_cap) {
        if (!rehash_edges(T, 2 * T->key_cap)) return -1;
        at = edge_find(T, key);
    }
    if (T->nedges == T->edge_cap) {
        int64_t cap = enough(T->edge_cap, T->nedges + 1);
        if (!resize(&T->visits, cap, sizeof(int64_t)) || !resize(&T->available, cap, sizeof(int64_t))
            || !resize(&T->totals, cap * T->players, sizeof(double)))
            return -1;
        T->edge_cap = cap;
    }
    int64_t e = T->nedges++;
    T->visits[e] = T->available[e] = 0;
    for (int32_t s = 0; s < T->players; s++) T->totals[e * T->players + s] = 0.0;
    T->edge_keys[at - T->edge_at] = key;
    *at = e;
    return e;
}

static int follow(rp_tree *T, int64_t edge)
{
    if (T->npath == T->path_cap) {
        int64_t cap = enough(T->path_cap, T->npath + 1);
        if (!resize(&T->path, cap, sizeof(int64_t))) return 0;
        T->path_cap = cap;
    }
    T->path[T->npath++] = edge;
    T->node = edge + 1;
    return 1;
}

/* The choice among views that all have an edge: each counted available once more, then the first that scores
 * highest by `search.ucb` for `mover` (`ismcts._count_and_pick`, operation for operation). */
static int64_t count_and_pick(rp_tree *T, int64_t ngroups, int64_t mover)
{
    int64_t chosen = 0;
    double top = -INFINITY;
    for (int64_t k = 0; k < ngroups; k++) {
        int64_t e = T->group_edge[k];
        int64_t available = ++T->available[e], visits = T->visits[e];
        double score = visits ? T->totals[e * T->players + mover] / (double)visits / T->spread
                                    + T->c * sqrt(log((double)available) / (double)visits)
                              : INFINITY;
        if (score > top || k == 0) { chosen = k; top = score; }
    }
    return chosen;
}

/* One step of the walk at the decision node of S: the legal moves grouped by view, in the order their first
 * move comes (at the root only the real moves' views), the views without an edge given one at random or else
 * the UCB choice, and one of the chosen view's moves made in S.  1 when the walk goes on, 0 at a new edge
 * (the walk ends), or an RP_TREE status (+ 2). */
static int64_t decide(rp_tree *T, rp_state *S, uint64_t *rng, int32_t *moves, int64_t *masks, int64_t cap,
                      int64_t *missing, rp_ctx *C)
{
    if (!S->legal_known) {   /* listed on a budget of its own, as `rp_legal` lists */
        rp_ctx L;
        rp_ctx_init(&L, S->M, S);
        int ok = rp_state_list(S, &L);
        if (!ok) rp_bail(C, L.err, L.why, L.where);
        rp_ctx_done(&L);
        if (!ok) return -1;
    }
    int64_t n = S->nlegal;
    if (!node_fits(T, n)) { rp_bail(C, RP_BAIL_MEMORY, "out of memory", -1); return -1; }
    int64_t unknown = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t mask = view_of(S, S->legal[i], T->viewer, C);
        if (mask == -2) return -1;
        pair_slot *p = pair_find(T, S->legal[i], mask);
        if (p->view < 0 && unknown < cap) { moves[unknown] = S->legal[i]; masks[unknown] = mask; }
        unknown += p->view < 0;
        T->seen_view[i] = p->view;
    }
    if (unknown) { *missing = unknown < cap ? unknown : cap; return RP_TREE_TEXTS + 2; }
    uint64_t now = ++T->now;
    int64_t ngroups = 0;
    int root = T->node == 0;
    for (int64_t i = 0; i < n; i++) {
        int32_t v = T->seen_view[i];
        if (root && !T->root_view[v]) continue;
        if (T->stamp[v] != now) {
            T->stamp[v] = now;
            T->group_of[v] = ngroups;
            T->group_view[ngroups] = v;
            T->group_count[ngroups++] = 0;
        }
        T->group_count[T->group_of[v]]++;
    }
    if (!ngroups) return RP_TREE_SKIP + 2;   /* this determinization allows none of the real moves */
    int64_t nuntried = 0, k;
    for (int64_t j = 0; j < ngroups; j++) {
        T->group_edge[j] = edge_of(T, T->node, (int32_t)T->group_view[j], 0);
        if (T->group_edge[j] < 0) T->untried[nuntried++] = j;
    }
    if (nuntried) {
        for (int64_t j = 0; j < ngroups; j++) if (T->group_edge[j] >= 0) T->available[T->group_edge[j]]++;
        k = T->untried[rp_below(rng, (uint64_t)nuntried)];
        T->group_edge[k] = edge_of(T, T->node, (int32_t)T->group_view[k], 1);
        if (T->group_edge[k] < 0) { rp_bail(C, RP_BAIL_MEMORY, "out of memory", -1); return -1; }
        T->available[T->group_edge[k]] = 1;
    } else {
        k = count_and_pick(T, ngroups, S->flow.player);
    }
    int64_t which = (int64_t)rp_below(rng, (uint64_t)T->group_count[k]), move = -1;
    for (int64_t i = 0; i < n; i++)
        if (T->seen_view[i] == T->group_view[k] && which-- == 0) { move = S->legal[i]; break; }
    if (!follow(T, T->group_edge[k])) { rp_bail(C, RP_BAIL_MEMORY, "out of memory", -1); return -1; }
    rp_ctx A;   /* the step on a budget of its own, as `rp_apply` makes it */
    rp_ctx_init(&A, S->M, S);
    int ok = rp_state_apply(S, move, &A);
    if (!ok) rp_bail(C, A.err, A.why, A.where);
    rp_ctx_done(&A);
    if (!ok) return -1;
    return nuntried ? 0 : 1;
}

/* A chance node's step: the outcome drawn (kept across a stop for its text), followed by its view. */
static int64_t draw(rp_tree *T, rp_state *S, uint64_t *rng, int32_t *moves, int64_t *masks, int64_t cap,
                    int64_t *missing, rp_ctx *C)
{
    if (T->pending < 0) {
        rp_ctx D;
        rp_ctx_init(&D, S->M, S);
        T->pending = sample_chance(S, rng, T->max_chance, &D);
        if (T->pending < 0) rp_bail(C, D.err, D.why, D.where);
        rp_ctx_done(&D);
        if (T->pending < 0) return -1;
    }
    int64_t mask = view_of(S, T->pending, T->viewer, C);
    if (mask == -2) return -1;
    pair_slot *p = pair_find(T, (int32_t)T->pending, mask);
    if (p->view < 0) {
        if (cap < 1) return -1;
        moves[0] = (int32_t)T->pending; masks[0] = mask; *missing = 1;
        return RP_TREE_TEXTS + 2;
    }
    int64_t edge = edge_of(T, T->node, p->view, 1);
    if (edge < 0 || !follow(T, edge)) { rp_bail(C, RP_BAIL_MEMORY, "out of memory", -1); return -1; }
    rp_ctx A;
    rp_ctx_init(&A, S->M, S);
    int ok = rp_state_apply(S, T->pending, &A);
    if (!ok) rp_bail(C, A.err, A.why, A.where);
    rp_ctx_done(&A);
    T->pending = -1;
    return ok ? 1 : -1;
}

/* The returns of an iteration backed up along its path (`ISMCTSAgent._iterate`'s end), and `spread` widened by
 * them (`SearchAgent.widen`). */
void rp_tree_backup(rp_tree *T, const double *returns)
{
    for (int32_t s = 0; s < T->players; s++) if (fabs(returns[s]) > T->spread) T->spread = fabs(returns[s]);
    for (int64_t k = 0; k < T->npath; k++) {
        int64_t e = T->path[k];
        T->visits[e]++;
        for (int32_t s = 0; s < T->players; s++) T->totals[e * T->players + s] += returns[s];
    }
    T->npath = 0;
    T->walking = 0;
}

/* One iteration of `ISMCTSAgent._iterate` over determinization S (given up to the walk: moves are made in it),
 * drawing from the agent's generator `rng`.  RP_TREE_DONE: walked, rolled out and backed up (the returns in
 * `out`).  RP_TREE_SKIP: S allows none of the real moves, nothing learnt.  RP_TREE_TEXTS: the walk stopped
 * at (move, mask) pairs it has no view for, `*missing` of them in `moves` and `masks` (at most `cap`): name
 * them (`rp_tree_intern`) and call again with the same S.  RP_TREE_ROLLOUT: the rollout from S gave up, `rng`
 * is as it was before it: roll out on the Python engine and `rp_tree_backup`.  -1 after a bail (in `e`). */
int64_t rp_tree_iterate(rp_tree *T, rp_state *S, uint64_t *rng, int32_t *moves, int64_t *masks, int64_t cap,
                        int64_t *missing, double *out, rp_error *e)
{
    rp_ctx C;
    rp_ctx_init(&C, &RP_MODEL, S);
    if (!T->walking) { T->walking = 1; T->node = 0; T->npath = 0; T->pending = -1; }
    int64_t status = 1;
    while (status == 1 && !S->flow.done)
        status = S->flow.player == RP_CHANCE ? draw(T, S, rng, moves, masks, cap, missing, &C)
                                             : decide(T, S, rng, moves, masks, cap, missing, &C);
    if (status == 0 || status == 1) {
        uint64_t before = *rng;
        rp_ctx R;   /* as `rp_rollout` rolls out */
        rp_ctx_init(&R, S->M, S);
        int ok = rollout(S, rng, T->depth, T->heuristic, T->scale, T->max_chance, out, &R);
        rp_ctx_done(&R);
        if (ok) {
            rp_tree_backup(T, out);
            status = RP_TREE_DONE;
        } else {
            *rng = before;
            status = RP_TREE_ROLLOUT;
        }
    } else {
        status = status < 0 ? -1 : status - 2;
    }
    if (status != RP_TREE_TEXTS && status != RP_TREE_ROLLOUT) T->walking = 0;   /* else the walk goes on */
    report(e, &C);
    rp_ctx_done(&C);
    return status;
}
