/* What the search agents (agents/native_search.py) ask of a module: random rollouts judged at their end or at a
 * cut-off, chance outcomes drawn with the agent's generator, and how a seat is shown the legal moves.  Each does
 * exactly what agents/search.py does on the Python engine, drawing the same numbers from the agent's generator
 * (SplitMix64, engine/rng.py), so a search makes the same decisions on either engine.  Anything the module gives
 * up on returns 0 (or -1) with the reason in `e`, and the caller does that part on the Python engine. */
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
int rp_rollout(rp_state *S, uint64_t *rng, int64_t depth, int32_t heuristic, double scale, int64_t max_chance,
               double *out, rp_error *e)
{
    rp_ctx C;
    rp_ctx_init(&C, &RP_MODEL, S);
    int ok;
    if (S->flow.done || depth == 0) {
        ok = evaluate(S, heuristic, scale, out, &C);
    } else {
        rp_state *W = rp_state_clone(S);
        ok = W != NULL;
        if (!ok) rp_bail(&C, RP_BAIL_MEMORY, "out of memory", -1);
        for (int64_t steps = 0; ok && !W->flow.done && (depth < 0 || steps < depth); steps++) {
            int64_t move;
            if (W->flow.player == RP_CHANCE) {
                move = sample_chance(W, rng, max_chance, &C);
            } else {
                move = (W->legal_known || rp_state_list(W, &C)) ? W->legal[rp_below(rng, (uint64_t)W->nlegal)] : -1;
            }
            ok = move >= 0 && rp_state_apply(W, move, &C);
        }
        if (ok) ok = evaluate(W, heuristic, scale, out, &C);
        if (W) rp_state_free(W);
    }
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

int64_t rp_view(rp_state *S, int64_t index, int32_t viewer, rp_error *e)
{
    rp_ctx C;
    rp_ctx_init(&C, &RP_MODEL, S);
    int64_t view = view_of(S, index, viewer, &C);
    report(e, &C);
    rp_ctx_done(&C);
    return view;
}

/* `rp_view` of each legal move of S into views[i]; the number of legal moves, or -1 after a bail. */
int64_t rp_views(rp_state *S, int32_t viewer, int64_t *views, rp_error *e)
{
    rp_ctx C;
    rp_ctx_init(&C, &RP_MODEL, S);
    int64_t n = (S->legal_known || rp_state_list(S, &C)) ? S->nlegal : -1;
    for (int64_t i = 0; i < n; i++) {
        views[i] = view_of(S, S->legal[i], viewer, &C);
        if (views[i] == -2) { n = -1; break; }
    }
    report(e, &C);
    rp_ctx_done(&C);
    return n;
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
