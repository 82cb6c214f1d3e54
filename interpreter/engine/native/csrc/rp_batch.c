/* A batch of games stepped in one call: the batched environment's step (adapters/gym_env.py).
 *
 * Each slot of the batch holds one game natively.  A step makes every slot's move (or, in a slot whose game
 * ended at the last step, sets up the next game from the slot's own seed generator: Gymnasium's next-step
 * autoreset), plays the chance nodes after it with the state's own generator, and writes each slot's reward,
 * whether its game ended (and then every seat's return), who moves now, the observation vector
 * (rp_observe.c), the action mask and the legal actions as a list (so that a caller drawing among them makes
 * no pass over the masks).  Every step a slot's game made since its set-up is logged (an action,
 * or -1 for a chance draw), so that a slot this cannot step (a rule error, a limit, a view or listing that
 * bails) is handed back to the caller with its log as it was before the step: the caller makes that game
 * again from its seed, through the engine's own handle, and makes the step there, which raises what the
 * rules raise or goes on in Python. */
#include "rp.h"

#include <stdlib.h>

#include "rp_api.h"

extern rp_model RP_MODEL;

#define DRAW (-1)   /* a chance draw in a slot's log */

typedef struct rp_slot {
    rp_state *S;                      /* NULL until the slot's first game is set up */
    int32_t *ops; int64_t nops, cops; /* the steps since the game's set-up */
    uint64_t seed;                    /* the game's seed */
    int32_t last;                     /* the seat that made the last move */
    /* What the slot's rows of `obs` and `masks` hold where `known` (they are cleared only there, see
     * rp_observe_row): each entry's items written, whether it counted a component and the budget it charged
     * (RP_VIEW_USED numbers an entry);
     * the moves marked are those its row of `legal` lists. */
    int32_t known;
    int32_t *used;
    /* Where `known`, the layout and seat the slot's row of `obs` was written in and for: the state's entries marked
     * unchanged since are not written again (rp_observe_row's `prev`). */
    const rp_layout *layout;
    int32_t seat;
    rp_seat_views *views;   /* each seat's last numbers of the entries that read `viewer`, in `layout` */
} rp_slot;

struct rp_batch {
    int64_t n;
    rp_slot *slots;
};

rp_batch *rp_batch_new(int64_t n)
{
    if (n < 1) return NULL;
    rp_batch *B = malloc(sizeof *B);
    if (!B) return NULL;
    B->n = n;
    B->slots = calloc((size_t)n, sizeof *B->slots);
    if (!B->slots) { free(B); return NULL; }
    return B;
}

void rp_batch_free(rp_batch *B)
{
    if (!B) return;
    for (int64_t i = 0; i < B->n; i++) {
        rp_state_free(B->slots[i].S);
        free(B->slots[i].ops);
        free(B->slots[i].used);
        rp_seat_views_free(B->slots[i].views);
    }
    free(B->slots);
    free(B);
}

/* Slot `slot`'s game: its seed, and (into *ops) its log of steps since set-up; the number of steps. */
int64_t rp_batch_log(rp_batch *B, int64_t slot, uint64_t *seed, const int32_t **ops)
{
    *seed = B->slots[slot].seed;
    *ops = B->slots[slot].ops;
    return B->slots[slot].nops;
}

static int logged(rp_slot *g, int32_t op)
{
    if (g->nops == g->cops) {
        int64_t cap = g->cops ? 2 * g->cops : 64;
        int32_t *ops = realloc(g->ops, (size_t)cap * sizeof *ops);
        if (!ops) return 0;
        g->ops = ops;
        g->cops = cap;
    }
    g->ops[g->nops++] = op;
    return 1;
}

/* The chance nodes from here, drawn with the state's own generator, up to a seat's turn or the end. */
static int settled(rp_slot *g, rp_error *e)
{
    while (!g->S->flow.done && g->S->flow.player == RP_CHANCE)
        if (!rp_apply_chance(g->S, e) || !logged(g, DRAW)) return 0;
    return 1;
}

/* One slot's step (the next game's set-up when `restart`), as rp_batch_step says; 0 where this cannot. */
static int step_slot(rp_slot *g, int restart, int64_t action, uint64_t *rng, double *reward, int8_t *ended,
                     double *returns, int64_t *mover)
{
    rp_error e;
    *reward = 0.0;
    *ended = 0;
    if (restart) {
        g->seed = rp_next64(rng);
        g->nops = 0;
        g->last = 0;
        if (!g->S && !(g->S = rp_state_alloc(&RP_MODEL))) return 0;
        if (!rp_setup(g->S, g->seed, &e)) return 0;
    } else {
        int32_t seat = (int32_t)g->S->flow.player;
        if (!rp_apply(g->S, action, &e) || !logged(g, (int32_t)action)) return 0;
        g->last = seat;
    }
    if (!settled(g, &e)) return 0;
    *mover = g->S->flow.player;
    if (g->S->flow.done && !restart) {
        if (!rp_returns(g->S, returns, &e)) return 0;
        *ended = 1;
        *reward = returns[g->last];
    }
    return 1;
}

/* A row of at most this many bytes (a vector, a mask) is cleared at once before it is written: that is faster than
 * clearing entry by entry what its last write left, which pays where rows are large and mostly zeros (Nautilus:
 * 45 KB of numbers and 16 KB of mask a game, 9% and 0.1% of them set). */
#define CLEAR_WHOLE 4096

/* The slot's observation (of the seat to move, else of the last mover), mask and legal actions into its rows,
 * clearing only what the rows' last write left where that is known (the mask: the `*nlegal` moves `legal` lists,
 * which the caller keeps even where the rows are not known); 0 where this cannot write them (the rows are then
 * unknown, and `legal` and `*nlegal` as they were). */
static int write_rows(rp_slot *g, const rp_layout *L, float *obs, int8_t *mask, int64_t *nlegal, int32_t *legal,
                      int64_t nactions)
{
    rp_state *S = g->S;
    int known = g->known, by_entry = L->size * (int64_t)sizeof(float) > CLEAR_WHOLE, by_move = nactions > CLEAR_WHOLE;
    g->known = 0;
    if (by_entry && !g->used && !(g->used = malloc((size_t)(RP_VIEW_USED * rp_view_entries(&RP_MODEL) + 1) * sizeof *g->used)))
        return 0;
    if (by_entry && !known) rp_view_unknown(&RP_MODEL, L, g->used);
    int32_t seat = S->flow.done ? g->last : (int32_t)S->flow.player;
    int32_t prev = known && g->layout == L ? g->seat : -1;
    if (by_entry && prev < 0) {   /* a row not known, or of another layout: what the seats were shown is not either */
        rp_seat_views_free(g->views);
        g->views = rp_seat_views_new(&RP_MODEL, L);
    }
    if (!rp_observe_row(S, L, seat, prev, obs, by_entry ? g->used : NULL, by_entry ? g->views : NULL, NULL)) return 0;
    g->layout = L;
    g->seat = seat;
    int cleared = by_move && known;
    if (!rp_mask_row(S, !S->flow.done, mask, nactions, cleared ? legal : NULL, cleared ? *nlegal : 0)) return 0;
    int64_t n = S->flow.done ? 0 : S->nlegal;
    if (n > nactions) return 0;   /* a listing never repeats a move; if one did, its row could not hold it */
    if (n) memcpy(legal, S->legal, (size_t)n * sizeof *legal);
    for (int64_t k = n; k < *nlegal; k++) legal[k] = -1;   /* past the count a row holds -1s */
    *nlegal = n;
    g->known = 1;
    return 1;
}

/* Every slot `mine` marks: its game's next step, as the file's comment says.  `over[i]` says whether slot i's
 * game ended at the last step (then it starts anew with seed rp_next64(&rngs[i]) and `actions[i]` is
 * ignored), and is set to whether it ends at this one.  The action of every game that goes on, the caller's
 * slots too, must be one its row of `masks` (as the last step wrote them) marks legal: where one is not, this
 * returns -1 - its slot before any game moves.  Out, per slot: `rewards` (the return of the seat
 * that moved, when its move ended the game, else 0), `returns` (a row of one number per seat, written where
 * the game ended), `movers` (who moves now: a seat, or -4 when the game is over), the vector of the seat to
 * move (else of the last mover) into `obs` (L->size numbers a slot), the mask into `masks` (nactions a
 * slot), and the legal actions in the order the rules list them into `legal` (nactions a slot: `nlegal[i]` of
 * them, none where the game is over; the rest of a row is -1s where it was).  A slot this cannot step is
 * handed back: its `mine` is set to 0, its `over` left as it was, its state dropped, and its log
 * (rp_batch_log) left as it was before the step (or, for a new game, empty with the new game's seed): the
 * caller makes the step.  Returns how many slots were handed back (or the refusal). */
int64_t rp_batch_step(rp_batch *B, const rp_layout *L, const int64_t *actions, uint64_t *rngs, int8_t *mine,
                      int8_t *over, double *rewards, double *returns, int64_t *movers, float *obs, int8_t *masks,
                      int64_t *nlegal, int32_t *legal, int64_t nactions)
{
    int64_t players = RP_MODEL.players, handed = 0;
    for (int64_t i = 0; i < B->n; i++)   /* every game's action first: a refused one leaves every game as it was */
        if (!over[i] && (actions[i] < 0 || actions[i] >= nactions || !masks[i * nactions + actions[i]])) return -1 - i;
    int fits = rp_layout_unfit(&RP_MODEL, L) == NULL;   /* else no row is written here: every slot is handed back */
    for (int64_t i = 0; i < B->n; i++) {
        if (!mine[i]) continue;
        rp_slot *g = &B->slots[i];
        int64_t before = g->nops;
        int32_t last = g->last;
        int8_t ended;
        int ok = step_slot(g, over[i], actions[i], &rngs[i], &rewards[i], &ended, returns + i * players,
                           &movers[i]);
        if (ok)
            ok = fits && write_rows(g, L, obs + i * L->size, masks + i * nactions, &nlegal[i], legal + i * nactions, nactions);
        if (ok) {
            over[i] = ended;
            continue;
        }
        if (!over[i]) { g->nops = before; g->last = last; }
        rp_state_free(g->S);
        g->S = NULL;
        g->known = 0;   /* the caller writes the rows till the slot is native again */
        mine[i] = 0;
        handed++;
    }
    return handed;
}
