/* The engine's step, compiled into each ruleset's own module: the flow's event loop (engine/flow.py),
 * listing the legal moves (engine/legal.py) and making a move, written step for step as the Python engine
 * does them.  A step that meets anything the Python engine would report (a rule error, a limit) bails, and
 * the Python engine makes that step.
 *
 * build.py appends this file to the lowered source, after `RP_SHAPE`: the module's own model as a constant
 * (`RP_MODEL` is that model too, but written to as the module is set up).  Every fact of the model the step
 * reads -- how many phases, actions and end conditions, which hooks exist, the end conditions and listings
 * themselves -- is then known to the C compiler, which drops what the ruleset does not use and calls its
 * conditions directly (or inlines them).  The rest of the engine (states, set-up, scoring: rp_engine.c) is
 * compiled once and reaches the step through the functions declared in rp.h. */
#include <stdlib.h>

#define SHAPE (&RP_SHAPE)
#define MAX_TRANSITIONS 1000
/* Before a loop over one of the model's tables (its ends, triggers, a phase's actions, a list of rules): the
 * loop is unrolled, so each turn reads its row as constants (which end condition to call, whether it is
 * disabled, ...) and the compiler keeps only what the row needs. */
#define RP_EACH_OF_MODEL _Pragma("GCC unroll 8")

/* The phase at `i` (with one phase, the compiler's constant). */
static inline const rp_phase *phase_of(int32_t i) { return &SHAPE->phases[SHAPE->nphases == 1 ? 0 : i]; }

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
    if (!SHAPE->skip_if) return 1;
    rv A[1] = {rv_int(seat)};
    int skipped = SHAPE->skip_if(C, A);
    if (C->err) return -1;
    return !skipped;
}

static int64_t next_skipping(flowrun *R, int64_t seat, int include_self);

/* The next active seat (or this one, with include_self); -1 none, -2 a bail. */
static inline __attribute__((always_inline)) int64_t next_active(flowrun *R, int64_t seat, int include_self)
{
    if (SHAPE->skip_if) return next_skipping(R, seat, include_self);
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

static inline int fire_all(rp_ctx *C, const int32_t *rules, int32_t n)
{
    RP_EACH_OF_MODEL
    for (int32_t i = 0; i < n; i++) {
        if (!rp_fire(C, rules[i])) return 0;
    }
    return 1;
}

static int run_triggers(flowrun *R)
{
    rp_ctx *C = R->C;
    const rp_model *M = SHAPE;
    if (!M->ntriggers) return 1;
    for (int round = 0; round < MAX_TRANSITIONS; round++) {
        int fired = 0;
        RP_EACH_OF_MODEL
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

/* End condition `i` of the model: 1 the game is over now, 0 not, -1 a bail. */
static inline __attribute__((always_inline)) int check_one_end(flowrun *R, int32_t i)
{
    rp_ctx *C = R->C;
    rp_flow *f = F(R);
    const rp_end *e = &SHAPE->ends[i];
    if (e->disabled) return 0;
    int holds = e->when(C, NULL);
    if (C->err) return -1;
    if (!holds) return 0;
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
    return 0;
}

/* 1 the game is over now, 0 not, -1 a bail */
static inline __attribute__((always_inline)) int check_end(flowrun *R, int at_round_end)
{
    rp_ctx *C = R->C;
    const rp_model *M = SHAPE;
    rp_flow *f = F(R);
    if (M->ntriggers && !run_triggers(R)) return -1;
    if (C->sig.end_game) { finish(R, M->text_end_game); return 1; }
    /* The first end conditions by their constant index, not in a loop: the compiler then knows each one's
     * function before it decides what to inline (a loop is unrolled only after), and inlines the small ones. */
    int over;
    if (M->nends > 0 && (over = check_one_end(R, 0))) return over;
    if (M->nends > 1 && (over = check_one_end(R, 1))) return over;
    if (M->nends > 2 && (over = check_one_end(R, 2))) return over;
    if (M->nends > 3 && (over = check_one_end(R, 3))) return over;
    for (int32_t i = 4; i < M->nends; i++) if ((over = check_one_end(R, i))) return over;
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
    const rp_model *M = SHAPE;
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
    const rp_model *M = SHAPE;
    const rp_phase *ph = phase_of(phase);
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
    const rp_model *M = SHAPE;
    rp_flow *f = F(R);
    for (;;) {
        if (!guard(R)) return 0;
        const rp_phase *ph = phase_of(phase);
        f->phase = phase;
        f->stage = -1;
        rp_clear_signals(&C->sig);
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
    const rp_model *M = SHAPE;
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
    const rp_model *M = SHAPE;
    rp_flow *f = F(R);
    const rp_phase *ph = phase_of(f->phase);
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
    const rp_model *M = SHAPE;
    rp_flow *f = F(R);
    rp_signals *sig = &C->sig;
    f->steps++;
    int over = check_end(R, 0);
    if (over) return over > 0;
    const rp_phase *ph = phase_of(f->phase);
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

static inline __attribute__((always_inline)) void decode(const rp_model *M, int64_t index, int32_t *action, rv *args);

/* The moves of action `i` added to `out` when its `fallback:` is `fallback`: 0 a bail. */
static inline __attribute__((always_inline)) int list_one(rp_ctx *C, int32_t i, int32_t fallback, rp_moves *out)
{
    const rp_action *a = &SHAPE->actions[i];
    if (a->disabled || a->fallback != fallback) return 1;
    if (a->list) return a->list(C, out);   /* the lowered listing: its loops, with every check written out in them */
    return rp_list_unlowered(C, a, out);   /* an action the module lists as the reference does */
}

/* The moves of the actions `names` whose `fallback:` is `fallback`, in the order listed, added to `out`. */
static inline __attribute__((always_inline)) int listed(rp_ctx *C, const int32_t *names, int32_t nnames,
                                                        int32_t fallback, rp_moves *out)
{
    /* The first action by its constant index, as check_end calls its first end conditions: its listing is then
     * known before the compiler decides what to inline (a small one is RP_STEP_INLINE). */
    if (nnames > 0 && !list_one(C, names[0], fallback, out)) return 0;
    RP_EACH_OF_MODEL
    for (int32_t j = 1; j < nnames; j++) if (!list_one(C, names[j], fallback, out)) return 0;
    return 1;
}

/* The legal moves now, charged to C->b, into `out` (as engine/legal.py's moves_now): the `fallback: true`
 * actions are listed only when the others list no move. */
static inline __attribute__((always_inline)) int moves_now(rp_ctx *C, rp_moves *out)
{
    const rp_model *M = SHAPE;
    rp_flow *f = &C->S->flow;
    const rp_phase *ph = phase_of(f->phase);
    const int32_t *names = ph->actions;
    int32_t nnames = ph->nactions;
    if (ph->nstages && f->stage >= 0) { names = ph->stage_actions[f->stage]; nnames = ph->stage_nactions[f->stage]; }
    out->n = 0;
    if (!listed(C, names, nnames, 0, out)) return 0;
    if (!out->n && !listed(C, names, nnames, 1, out)) return 0;
    rv A[64];
    if (f->player == RP_CHANCE && M->weighted_chance && out->n) {
        int64_t kept = 0;
        for (int64_t i = 0; i < out->n; i++) {
            int32_t act;
            decode(M, out->v[i], &act, A);
            double w = rp_outcome_weight(C, &M->actions[act], out->v[i]);
            if (C->err) return 0;
            if (w > 0) out->v[kept++] = out->v[i];
        }
        if (!kept) { rp_bail(C, RP_BAIL_RULE, "every chance weight is 0", -1); return 0; }
        out->n = kept;
    }
    return 1;
}

/* Make sure the player to move can move (`when_stuck`), and keep the legal moves in the state. */
static inline __attribute__((always_inline)) int settle(flowrun *R)
{
    rp_ctx *C = R->C;
    rp_state *S = C->S;
    const rp_model *M = SHAPE;
    rp_budget listing, *saved = C->b;
    rp_fresh_budget(M, &listing);
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
        const rp_phase *ph = phase_of(f->phase);
        if (ph->when_stuck == STUCK_END_GAME) { finish(R, ph->stuck_label); out.n = 0; break; }
        if (ph->when_stuck == STUCK_PASS && f->player != RP_CHANCE) {
            if (!guard(R)) { free(out.v); return 0; }
            rp_clear_signals(&C->sig);
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
static inline __attribute__((always_inline)) void decode(const rp_model *M, int64_t index, int32_t *action, rv *args)
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
    decode(SHAPE, index, &act, args);
    uint32_t kept[RP_MAX_PLAYERS + 1];
    int32_t nkept = S->nseen;
    memcpy(kept, S->seen, sizeof kept);
    int ok = seen_of(S, &SHAPE->actions[act], args);
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
    const int32_t *fired = C->fired;
    int32_t nfired = C->nfired, *kept = S->fired;
    if (nfired <= 2) {   /* most moves fire two rules or fewer (the action's, an effect's): one compare */
        if (nfired) kept[0] = fired[0];
        if (nfired == 2 && fired[1] != fired[0]) kept[1] = fired[1];
        S->nfired = nfired - (nfired == 2 && fired[1] == fired[0]);
        return 1;
    }
    int32_t n = 0;
    if (nfired <= 8) {   /* a few: each searched for among those kept */
        for (int32_t i = 0; i < nfired; i++) {
            int32_t j = 0;
            while (j < n && kept[j] != fired[i]) j++;
            if (j == n) kept[n++] = fired[i];
        }
        S->nfired = n;
        return 1;
    }
    /* More: a rule numbered below 1,024 (any ruleset's, in practice) is found among those kept by one bit,
     * another by searching them. */
    uint64_t seen[16] = {0};
    for (int32_t i = 0; i < nfired; i++) {
        uint32_t rule = (uint32_t)fired[i];
        if (rule < 1024) {
            uint64_t bit = UINT64_C(1) << (rule & 63);
            if (seen[rule >> 6] & bit) continue;
            seen[rule >> 6] |= bit;
        } else {
            int32_t j = 0;
            while (j < n && kept[j] != fired[i]) j++;
            if (j < n) continue;
        }
        kept[n++] = fired[i];
    }
    S->nfired = n;
    return 1;
}

static int apply_legal(rp_state *S, int64_t index, rp_ctx *C, int kept);

/* Make move `index` on S itself.  On a bail S is left half-changed: the caller rebuilds it. */
int rp_state_apply(rp_state *S, int64_t index, rp_ctx *C)
{
    if (S->flow.done) { rp_bail(C, RP_BAIL_ILLEGAL, "the game is over", -1); return 0; }
    if (!S->legal_known && !rp_state_list(S, C)) return 0;
    int64_t i = 0;
    while (i < S->nlegal && S->legal[i] != index) i++;
    if (i == S->nlegal) { rp_bail(C, RP_BAIL_ILLEGAL, "not a legal move now", -1); return 0; }
    return apply_legal(S, index, C, 1);
}

/* Make the legal move at position `at` of the state's listed moves (a playout's pick): rp_state_apply
 * without looking the move up among them. */
int rp_state_apply_at(rp_state *S, int64_t at, rp_ctx *C)
{
    if (S->flow.done || !S->legal_known || at < 0 || at >= S->nlegal) {
        rp_bail(C, RP_BAIL_ILLEGAL, "not a legal move now", -1);
        return 0;
    }
    return apply_legal(S, S->legal[at], C, 1);
}

/* Make move `index`, one of the moves S lists now; the rules it fired are `kept` in S (a playout, which throws
 * its states away unread, keeps them not). */
static int apply_legal(rp_state *S, int64_t index, rp_ctx *C, int kept)
{
    const rp_model *M = SHAPE;
    int32_t act;
    rv args[64];
    decode(M, index, &act, args);
    const rp_action *a = &M->actions[M->nactions == 1 ? 0 : act];   /* a listed move's action */
    if (!seen_of(S, a, args)) { rp_bail(C, RP_BAIL_RULE, "seen_by", -1); return 0; }
    S->last_move = index;
    C->S = S;
    C->rng = S->rng;
    rp_fresh_budget(M, &C->own);
    C->b = &C->own;
    rp_clear_signals(&C->sig);
    C->nfired = 0;
    if (!fire_all(C, a->rules, a->nrules)) return 0;
    if (a->effects) a->effects(C, args);
    if (C->err) return 0;
    flowrun R = {C, 0};
    if (!after_move(&R) || !settle(&R)) return 0;
    S->rng = C->rng;
    if (kept && !keep_fired(S, C)) return 0;
    if (M->checking && !rp_invariants(S)) { rp_bail(C, RP_BAIL_RULE, "an invariant", -1); return 0; }
    return 1;
}


int rp_state_list(rp_state *S, rp_ctx *C)
{
    if (S->legal_known) return 1;
    C->S = S;
    flowrun R = {C, 0};
    rp_moves out = {NULL, 0, 0};
    if (S->flow.done) { S->nlegal = 0; S->legal_known = 1; return 1; }
    rp_budget listing, *saved = C->b;
    rp_fresh_budget(SHAPE, &listing);
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


/* ------------------------------------------------------------------ whole playouts (the module's API) */
/* `Rng(seed_state(seed)).derive(index)` (engine/rng.py): the seed of game `index` of a batch, of a seat's agent. */
static uint64_t derive(uint64_t seed, uint64_t index)
{
    uint64_t state = rp_seed_state(seed) ^ rp_seed_state(index + 1);
    return rp_next64(&state);
}

/* Games first, first+1, ... of the batch `batch_seed`, seated and seeded as `simulate` seats and seeds them,
 * played to their ends and thrown away (a benchmark's loop), up to `count` games or the first the module
 * gives up on.  Returns the games played; `moves` gets the moves they made. */
int64_t rp_playouts(uint64_t batch_seed, int64_t first, int64_t count, const int32_t *kinds, int64_t *moves)
{
    const rp_model *M = &RP_MODEL;
    int64_t played = 0;
    *moves = 0;
    rp_state *S = rp_state_alloc(M);
    if (!S) return 0;
    rp_ctx C;
    int32_t *fired = NULL, cfired = 0;   /* the fired-rule log's buffer, kept from game to game */
    for (int64_t g = first; g < first + count; g++) {
        uint64_t seed = derive(batch_seed, (uint64_t)g), rng[RP_MAX_PLAYERS];
        for (int32_t k = 0; k < M->players; k++) rng[k] = rp_seed_state(derive(seed, (uint64_t)k));
        rp_ctx_init(&C, M, S);
        C.fired = fired; C.cfired = cfired;
        int ok = rp_state_setup(M, S, seed, &C);
        int64_t made = 0;
        while (ok && !S->flow.done) {
            if (S->flow.player == RP_CHANCE) ok = rp_state_apply_chance(S, &C);
            else {
                int64_t who = S->flow.player;
                int64_t pick = kinds[who] == 0 ? (int64_t)rp_below(&rng[who], (uint64_t)S->nlegal) : 0;
                ok = apply_legal(S, S->legal[pick], &C, 0);   /* listed (settle), and the pick below their number */
            }
            made += ok;
        }
        fired = C.fired; cfired = C.cfired;
        if (!ok) break;
        *moves += made;
        played++;
    }
    free(fired);
    rp_state_free(S);
    return played;
}

/* ------------------------------------------------------------------ for the rest of the engine */
int rp_step_start(rp_ctx *C)
{
    flowrun R = {C, 0};
    return start_game(&R) && settle(&R);
}

void rp_decode(int64_t index, int32_t *action, rv *args) { decode(SHAPE, index, action, args); }
