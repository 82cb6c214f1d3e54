/* What Python calls (declared to cffi by engine/native/build.py): states, moves, a whole game, perft, and
 * the exact conversion of a state to and from JSON (a batch's whole playouts, `rp_playouts`, are in
 * rp_step.c, beside the step they make).  Every lowered ruleset module links this file with its own model
 * (`RP_MODEL`, made by `rp_model_init`). */
#include "rp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "rp_api.h"

extern rp_model RP_MODEL;
extern const rp_expr_fn RP_PROBES[];
extern const rp_exec_fn RP_PROBE_EFFECTS[];
int rp_model_init(void);
int rp_texts_init(const unsigned char *blob, const int64_t *ends, int64_t n);

static void report(rp_error *e, const rp_ctx *C)
{
    if (!e) return;
    e->code = C->err;
    e->why = C->why ? C->why : "";
    e->where = C->where;
}

/* ------------------------------------------------------------------ constants */
/* The module's constants arrive as bytes: a tag, then the value (see engine/native/cdata.py). */
static const unsigned char *decode(const unsigned char *p, rv *out, int *ok)
{
    uint8_t tag = *p++;
    int64_t i;
    uint32_t n;
    double f;
    switch (tag) {
    case 0: *out = rv_null(); return p;
    case 1: *out = rv_bool(0); return p;
    case 2: *out = rv_bool(1); return p;
    case 3: memcpy(&i, p, 8); *out = rv_int(i); return p + 8;
    case 4: memcpy(&f, p, 8); *out = rv_flt(f); return p + 8;
    case 5: memcpy(&n, p, 4); *out = rv_str(n); return p + 4;
    case 6: {
        memcpy(&n, p, 4); p += 4;
        rp_list *l = rp_list_new(NULL, n);
        if (!l) { *ok = 0; *out = rv_null(); return p; }
        l->immortal = 1;
        for (uint32_t k = 0; k < n; k++) { p = decode(p, &l->items[k], ok); l->len = k + 1; }
        *out = rv_list(l);
        return p;
    }
    case 7: {
        memcpy(&n, p, 4); p += 4;
        rp_map *m = rp_map_new(NULL, n);
        if (!m) { *ok = 0; *out = rv_null(); return p; }
        m->immortal = 1;
        for (uint32_t k = 0; k < n; k++) {
            uint32_t key;
            memcpy(&key, p, 4); p += 4;
            m->keys[k] = key;
            p = decode(p, &m->vals[k], ok);
            m->len = k + 1;
        }
        *out = rv_map(m);
        return p;
    }
    case 8: *out = rv_null(); out->pad = 1; return p;   /* a component without the property */
    default: *ok = 0; *out = rv_null(); return p;
    }
}

void rp_freeze_size(rv v);

static void freeze(rv v)
{
    if (!rv_is_container(v)) return;
    const rv *items = v.t == T_LIST ? v.u.l->items : v.u.m->vals;
    int64_t n = v.t == T_LIST ? v.u.l->len : v.u.m->len;
    for (int64_t i = 0; i < n; i++) freeze(items[i]);
    rp_freeze_size(v);
}

int rp_decode_constants(const unsigned char *blob, rv *out, int64_t n)
{
    int ok = 1;
    for (int64_t k = 0; k < n && ok; k++) {
        blob = decode(blob, &out[k], &ok);
        if (ok) freeze(out[k]);
    }
    return ok;
}

/* ------------------------------------------------------------------ states */
static int ready = 0;

int rp_init(void)
{
    if (!ready) ready = rp_model_init() ? 1 : -1;
    return ready == 1;
}

rp_state *rp_new(void) { return rp_state_alloc(&RP_MODEL); }
void rp_free(rp_state *S) { rp_state_free(S); }
rp_state *rp_clone_state(rp_state *S) { return rp_state_clone(S); }

int rp_setup(rp_state *S, uint64_t seed, rp_error *e)
{
    rp_ctx C;
    rp_ctx_init(&C, &RP_MODEL, S);
    int ok = rp_state_setup(&RP_MODEL, S, seed, &C);
    report(e, &C);
    rp_ctx_done(&C);
    return ok;
}

int rp_apply(rp_state *S, int64_t index, rp_error *e)
{
    rp_ctx C;
    rp_ctx_init(&C, &RP_MODEL, S);
    int ok = rp_state_apply(S, index, &C);
    report(e, &C);
    rp_ctx_done(&C);
    return ok;
}

/* After a step that went well, the legal moves now (into `legal` when they fit) and who moves, in one int:
 * their number * 32 + (the player + 4), the player being -4 (over) to 15; -1 after a bail.  One call a step
 * for code that steps a state move by move (the handle). */
static int64_t stepped(rp_state *S, int ok, int32_t *legal, int64_t cap)
{
    if (!ok) return -1;
    if (S->nlegal && S->nlegal <= cap) rp_memcpy(legal, S->legal, (size_t)S->nlegal * sizeof(int32_t));
    return S->nlegal * 32 + (S->flow.player + 4);
}

static int64_t stepped_io(rp_io *io, int ok)
{
    if (io->more) return stepped(io->S, ok, io->more, io->cap);
    return stepped(io->S, ok, io->legal, (int64_t)(sizeof io->legal / sizeof io->legal[0]));
}

/* A new state of seed `seed` set up into io->S (NULL when out of memory), as `stepped` reports it. */
int64_t rp_begin(rp_io *io, uint64_t seed)
{
    io->S = rp_new();
    if (!io->S) {
        io->err.code = RP_BAIL_MEMORY; io->err.why = "out of memory"; io->err.where = -1;
        return -1;
    }
    return stepped_io(io, rp_setup(io->S, seed, &io->err));
}

int64_t rp_move(rp_io *io, int64_t index)
{
    return stepped_io(io, rp_apply(io->S, index, &io->err));
}

int64_t rp_move_chance(rp_io *io)
{
    return stepped_io(io, rp_apply_chance(io->S, &io->err));
}

int rp_apply_chance(rp_state *S, rp_error *e)
{
    rp_ctx C;
    rp_ctx_init(&C, &RP_MODEL, S);
    int ok = rp_state_apply_chance(S, &C);
    report(e, &C);
    rp_ctx_done(&C);
    return ok;
}

int64_t rp_legal(rp_state *S, int32_t *out, int64_t cap, rp_error *e)
{
    rp_ctx C;
    rp_ctx_init(&C, &RP_MODEL, S);
    int ok = rp_state_list(S, &C);
    report(e, &C);
    rp_ctx_done(&C);
    if (!ok) return -1;
    if (S->nlegal && S->nlegal <= cap) rp_memcpy(out, S->legal, (size_t)S->nlegal * sizeof(int32_t));
    return S->nlegal;
}

int64_t rp_player(rp_state *S) { return S->flow.player; }
int rp_done(rp_state *S) { return S->flow.done; }
int32_t rp_ended_by(rp_state *S) { return S->flow.ended_by; }
int64_t rp_last_move(rp_state *S) { return S->last_move; }

int rp_weights(rp_state *S, double *out, rp_error *e)
{
    rp_ctx C;
    rp_ctx_init(&C, &RP_MODEL, S);
    int ok = rp_state_list(S, &C) && rp_state_weights(S, out, &C);
    report(e, &C);
    rp_ctx_done(&C);
    return ok;
}

/* Scores as Python holds them: an int or a float each (`is_float`). */
int rp_scores(rp_state *S, int64_t *ints, double *floats, int8_t *is_float, rp_error *e)
{
    rp_ctx C;
    rp_ctx_init(&C, &RP_MODEL, S);
    rv out[RP_MAX_PLAYERS];
    int ok = rp_state_scores(S, out, &C);
    report(e, &C);
    rp_ctx_done(&C);
    if (!ok) return 0;
    for (int64_t p = 0; p < S->flow.players; p++) {
        is_float[p] = out[p].t == T_FLT;
        ints[p] = out[p].t == T_INT ? out[p].u.i : 0;
        floats[p] = out[p].t == T_FLT ? out[p].u.f : 0.0;
    }
    return 1;
}

int rp_returns(rp_state *S, double *out, rp_error *e)
{
    rp_ctx C;
    rp_ctx_init(&C, &RP_MODEL, S);
    int ok = rp_state_returns(S, out, &C);
    report(e, &C);
    rp_ctx_done(&C);
    return ok;
}

int32_t rp_fired(rp_state *S, int32_t *out, int32_t cap)
{
    if (S->nfired && S->nfired <= cap) rp_memcpy(out, S->fired, (size_t)S->nfired * sizeof(int32_t));
    return S->nfired;
}

int32_t rp_seen(rp_state *S, uint32_t *out)
{
    memcpy(out, S->seen, sizeof S->seen);
    return S->nseen;
}

/* ------------------------------------------------------------------ whole games */
/* Play one game from set-up with agents that need no lookahead (0: random, 1: first), each seat's agent
 * drawing from its own generator (`agent_rng`, updated), for at most `max_moves` moves.  The moves made
 * are written to `moves`; `stats` gets the decisions and the legal moves offered at them; `fired[r]`
 * counts the moves in which rule r fired.  On a bail, `*made` is the number of moves made before the
 * step that bailed (-1: set-up bailed), and the Python engine takes over from there. */
void rp_judged_free(rp_judged *J)
{
    free(J->ints); free(J->floats); free(J->is_float);
    J->ints = NULL; J->floats = NULL; J->is_float = NULL;
    J->n = J->cap = 0;
}

/* Whether heuristic k (in the ruleset's order) is in the module. */
int rp_heuristic_lowered(int32_t k)
{
    return k >= 0 && k < RP_MODEL.nheuristics && RP_MODEL.heuristics[k] != NULL;
}

/* The values that judge position S into J: judge 0 its scores, k > 0 its heuristic k - 1 (each on a budget
 * of its own, as Python's scoring context has). */
static int judge_position(rp_state *S, int32_t judge, rp_judged *J, rp_error *e)
{
    int64_t n = S->flow.players;
    if (J->n + n > J->cap) {
        int64_t cap = J->cap * 2 + 16 * n;
        int64_t *ints = realloc(J->ints, (size_t)cap * sizeof *ints);
        if (ints) J->ints = ints;
        double *floats = realloc(J->floats, (size_t)cap * sizeof *floats);
        if (floats) J->floats = floats;
        int8_t *is_float = realloc(J->is_float, (size_t)cap);
        if (is_float) J->is_float = is_float;
        if (!ints || !floats || !is_float) { e->code = RP_BAIL_MEMORY; e->why = "out of memory"; e->where = -1; return 0; }
        J->cap = cap;
    }
    rp_ctx C;
    rp_ctx_init(&C, &RP_MODEL, S);
    rv out[RP_MAX_PLAYERS];
    int ok = judge == 0 ? rp_state_scores(S, out, &C) : rp_state_heuristic(S, judge - 1, out, &C);
    report(e, &C);
    rp_ctx_done(&C);
    if (!ok) return 0;
    for (int64_t p = 0; p < n; p++) {
        J->is_float[J->n + p] = out[p].t == T_FLT;
        J->ints[J->n + p] = out[p].t == T_INT ? out[p].u.i : 0;
        J->floats[J->n + p] = out[p].t == T_FLT ? out[p].u.f : 0.0;
    }
    J->n += n;
    return 1;
}

/* One game between agents that need no lookahead (kinds: 0 random, 1 first), its moves into `moves`; with a
 * judge (>= 0), each position not over judged into J first (a judge that fails stops the game: 0, `made` -2). */
int rp_playout(uint64_t seed, const int32_t *kinds, uint64_t *agent_rng, int64_t max_moves, int32_t *moves,
               int64_t *made, int64_t *stats, int64_t *fired, rp_state **final, rp_error *e, int32_t judge,
               rp_judged *J)
{
    rp_state *S = rp_state_alloc(&RP_MODEL);
    rp_ctx C;
    rp_ctx_init(&C, &RP_MODEL, S);
    *made = -1;
    *final = NULL;
    stats[0] = stats[1] = 0;
    int ok = S && rp_state_setup(&RP_MODEL, S, seed, &C);
    if (!S) rp_bail(&C, RP_BAIL_MEMORY, "out of memory", -1);
    int64_t n = 0;
    if (judge >= 0) J->first_mover = -1;
    while (ok && !S->flow.done && n < max_moves) {
        int64_t who = S->flow.player;
        if (judge >= 0) {
            if (!judge_position(S, judge, J, e)) { *made = -2; rp_ctx_done(&C); rp_state_free(S); return 0; }
            if (J->first_mover < 0 && who != RP_CHANCE) J->first_mover = who;
        }
        *made = n;
        if (who == RP_CHANCE) {
            ok = rp_state_apply_chance(S, &C);
        } else {
            int64_t offered = S->nlegal;
            uint64_t before = agent_rng[who];
            int64_t pick = kinds[who] == 0 ? (int64_t)rp_below(&agent_rng[who], (uint64_t)offered) : 0;
            ok = rp_state_apply_at(S, pick, &C);
            if (ok) { stats[0]++; stats[1] += offered; }
            else agent_rng[who] = before;   /* the Python engine makes this decision again */
        }
        if (!ok) break;
        moves[n++] = (int32_t)S->last_move;
        for (int32_t i = 0; i < S->nfired; i++) fired[S->fired[i]]++;
    }
    if (ok) *made = n;
    report(e, &C);
    rp_ctx_done(&C);
    if (!ok) { rp_state_free(S); return 0; }
    *final = S;
    return 1;
}

/* ------------------------------------------------------------------ perft */
typedef struct frame { rp_state *s; int64_t next; int32_t k; } frame;

/* Move sequences of exactly d decisions (nodes[d]) and games over after exactly d (ends[d]), for d up to
 * `depth`, as runs/perft.py counts them: chance outcomes are no decisions, each is counted on its own.
 * Each level of the walk keeps its state once made, and a child is copied into its level's state
 * (rp_state_copy_into), so the walk allocates a state per level rather than per node. */
int rp_perft(rp_state *root, int32_t depth, int64_t *nodes, int64_t *ends, rp_error *e)
{
    rp_ctx C;
    rp_ctx_init(&C, &RP_MODEL, root);
    int64_t cap = 64, top = 0;
    frame *stack = calloc((size_t)cap, sizeof(frame));
    int ok = stack != NULL;
    if (ok) {
        stack[0].s = rp_state_clone(root);
        ok = stack[0].s != NULL && rp_state_list(stack[0].s, &C);
        stack[0].next = 0; stack[0].k = 0;
        top = stack[0].s ? 1 : 0;
        if (ok && stack[0].s->flow.player != RP_CHANCE) {
            nodes[0]++;
            ends[0] += stack[0].s->flow.done;
        }
    }
    while (ok && top) {
        frame *fr = &stack[top - 1];
        rp_state *s = fr->s;
        int chance = s->flow.player == RP_CHANCE;
        int expand = chance || (!s->flow.done && fr->k < depth);
        if (!expand || fr->next >= s->nlegal) {
            top--;   /* its state stays with the level, to be copied into again */
            continue;
        }
        int64_t move = s->legal[fr->next++];
        if (top == cap) {
            frame *bigger = realloc(stack, (size_t)cap * 2 * sizeof(frame));
            if (!bigger) { ok = 0; rp_bail(&C, RP_BAIL_MEMORY, "out of memory", -1); break; }
            memset(bigger + cap, 0, (size_t)cap * sizeof(frame));
            stack = bigger; cap *= 2;
            fr = &stack[top - 1];
        }
        rp_state *child = stack[top].s;
        if (child && !rp_state_copy_into(child, s)) { ok = 0; rp_bail(&C, RP_BAIL_MEMORY, "out of memory", -1); break; }
        if (!child) {
            child = stack[top].s = rp_state_clone(s);
            if (!child) { ok = 0; rp_bail(&C, RP_BAIL_MEMORY, "out of memory", -1); break; }
        }
        rp_ctx_init(&C, &RP_MODEL, child);
        if (!rp_state_apply(child, move, &C)) { ok = 0; break; }
        rp_ctx_done(&C);
        int32_t k = chance ? fr->k : fr->k + 1;
        if (child->flow.player != RP_CHANCE) {
            nodes[k]++;
            ends[k] += child->flow.done;
        }
        stack[top].next = 0; stack[top].k = k;
        top++;
    }
    for (int64_t i = 0; stack && i < cap; i++) rp_state_free(stack[i].s);
    free(stack);
    report(e, &C);
    rp_ctx_done(&C);
    return ok;
}

/* ------------------------------------------------------------------ JSON out */
typedef struct buf { char *s; int64_t n, cap; int ok; } buf;

static void put(buf *b, const char *s, int64_t n)
{
    if (!b->ok) return;
    if (b->n + n + 1 > b->cap) {
        int64_t cap = b->cap * 2 + n + 64;
        char *t = realloc(b->s, (size_t)cap);
        if (!t) { b->ok = 0; return; }
        b->s = t; b->cap = cap;
    }
    rp_memcpy(b->s + b->n, s, (size_t)n);
    b->n += n;
    b->s[b->n] = 0;
}

static void puts_(buf *b, const char *s) { put(b, s, (int64_t)strlen(s)); }

static void put_text(buf *b, int64_t id)
{
    rp_text t = rp_text_of(id);
    put(b, "\"", 1);
    int64_t run = 0;
    for (int64_t i = 0; i < t.nbytes; i++) {
        unsigned char c = (unsigned char)t.bytes[i];
        if (c == '"' || c == '\\' || c < 0x20) {
            put(b, t.bytes + run, i - run);
            char esc[8];
            if (c == '"') strcpy(esc, "\\\"");
            else if (c == '\\') strcpy(esc, "\\\\");
            else snprintf(esc, sizeof esc, "\\u%04x", c);
            puts_(b, esc);
            run = i + 1;
        }
    }
    put(b, t.bytes + run, t.nbytes - run);
    put(b, "\"", 1);
}

static void put_value(buf *b, rv v)
{
    char tmp[40];
    switch (v.t) {
    case T_NULL: puts_(b, "null"); return;
    case T_BOOL: puts_(b, v.u.i ? "true" : "false"); return;
    case T_INT: snprintf(tmp, sizeof tmp, "%lld", (long long)v.u.i); puts_(b, tmp); return;
    case T_FLT:
        snprintf(tmp, sizeof tmp, "%.17g", v.u.f);
        if (!strpbrk(tmp, ".en")) strcat(tmp, ".0");   /* a float reads back as a float */
        puts_(b, tmp);
        return;
    case T_STR: put_text(b, v.u.i); return;
    case T_LIST:
        put(b, "[", 1);
        for (int64_t i = 0; i < v.u.l->len; i++) {
            if (i) put(b, ",", 1);
            put_value(b, v.u.l->items[i]);
        }
        put(b, "]", 1);
        return;
    default:
        put(b, "{", 1);
        for (int64_t i = 0; i < v.u.m->len; i++) {
            if (i) put(b, ",", 1);
            put_text(b, v.u.m->keys[i]);
            put(b, ":", 1);
            put_value(b, v.u.m->vals[i]);
        }
        put(b, "}", 1);
    }
}

static void put_int(buf *b, int64_t i)
{
    char tmp[24];
    snprintf(tmp, sizeof tmp, "%lld", (long long)i);
    puts_(b, tmp);
}

/* [[vars...], [phase, stage, seat, player, players, round, turn, start, [queue], end_round, done, steps,
 *  ended_by], rng] with phase and stage as indices (engine/native/convert.py names them). */
char *rp_to_json(rp_state *S)
{
    buf b = {malloc(1024), 0, 1024, 1};
    if (!b.s) return NULL;
    b.s[0] = 0;
    put(&b, "[[", 2);
    for (int32_t i = 0; i < S->M->nvars; i++) {
        if (i) put(&b, ",", 1);
        put_value(&b, S->vars[i]);
    }
    put(&b, "],[", 3);
    rp_flow *f = &S->flow;
    int64_t fields[8] = {f->phase, f->stage, f->seat, f->player, f->players, f->round, f->turn, f->start};
    for (int k = 0; k < 8; k++) { put_int(&b, fields[k]); put(&b, ",", 1); }
    put(&b, "[", 1);
    for (int32_t i = 0; i < f->nqueue; i++) { if (i) put(&b, ",", 1); put_int(&b, f->queue[i]); }
    put(&b, "],", 2);
    if (f->has_end_round) put_int(&b, f->end_round); else puts_(&b, "null");
    puts_(&b, f->done ? ",true," : ",false,");
    put_int(&b, f->steps);
    put(&b, ",", 1);
    if (f->ended_by >= 0) put_text(&b, f->ended_by); else puts_(&b, "null");
    char tmp[32];
    snprintf(tmp, sizeof tmp, "],%llu]", (unsigned long long)S->rng);
    puts_(&b, tmp);
    if (!b.ok) { free(b.s); return NULL; }
    return b.s;
}

void rp_free_text(char *s) { free(s); }

/* ------------------------------------------------------------------ JSON in */
typedef struct reader { const char *p; rp_ctx *C; int ok; } reader;

static void ws(reader *r) { while (*r->p == ' ' || *r->p == '\n' || *r->p == '\t' || *r->p == '\r') r->p++; }

static int expect(reader *r, char c)
{
    ws(r);
    if (*r->p != c) { r->ok = 0; return 0; }
    r->p++;
    return 1;
}

static int hex4(const char *p, uint32_t *out)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (uint32_t)(c - 'A' + 10);
        else return 0;
    }
    *out = v;
    return 1;
}

static int64_t read_text(reader *r)
{
    if (!expect(r, '"')) return -1;
    buf b = {malloc(64), 0, 64, 1};
    if (!b.s) { r->ok = 0; return -1; }
    while (r->ok && *r->p != '"') {
        unsigned char c = (unsigned char)*r->p;
        if (!c || c < 0x20) { r->ok = 0; break; }
        if (c != '\\') { put(&b, r->p, 1); r->p++; continue; }
        r->p++;
        char e = *r->p++;
        char one = 0;
        switch (e) {
        case '"': one = '"'; break;
        case '\\': one = '\\'; break;
        case '/': one = '/'; break;
        case 'b': one = '\b'; break;
        case 'f': one = '\f'; break;
        case 'n': one = '\n'; break;
        case 'r': one = '\r'; break;
        case 't': one = '\t'; break;
        case 'u': {
            uint32_t cp;
            if (!hex4(r->p, &cp)) { r->ok = 0; break; }
            r->p += 4;
            if (cp >= 0xD800 && cp < 0xDC00) {   /* a pair of surrogates makes one character */
                uint32_t lo;
                if (r->p[0] != '\\' || r->p[1] != 'u' || !hex4(r->p + 2, &lo) || lo < 0xDC00 || lo >= 0xE000) {
                    r->ok = 0;
                    break;
                }
                r->p += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp < 0xE000) { r->ok = 0; break; }
            char u[4]; int n;
            if (cp < 0x80) { u[0] = (char)cp; n = 1; }
            else if (cp < 0x800) { u[0] = (char)(0xC0 | (cp >> 6)); u[1] = (char)(0x80 | (cp & 0x3F)); n = 2; }
            else if (cp < 0x10000) {
                u[0] = (char)(0xE0 | (cp >> 12)); u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
                u[2] = (char)(0x80 | (cp & 0x3F)); n = 3;
            } else {
                u[0] = (char)(0xF0 | (cp >> 18)); u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
                u[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); u[3] = (char)(0x80 | (cp & 0x3F)); n = 4;
            }
            put(&b, u, n);
            continue;
        }
        default: r->ok = 0;
        }
        if (r->ok) put(&b, &one, 1);
    }
    int64_t id = -1;
    if (r->ok && b.ok && *r->p == '"') {
        r->p++;
        id = rp_intern(r->C, b.s, b.n);
        if (id < 0) r->ok = 0;
    } else {
        r->ok = 0;
    }
    free(b.s);
    return id;
}

static rv read_value(reader *r);

static rv read_number(reader *r)
{
    const char *start = r->p;
    int is_float = 0;
    if (*r->p == '-') r->p++;
    while ((*r->p >= '0' && *r->p <= '9') || *r->p == '.' || *r->p == 'e' || *r->p == 'E' || *r->p == '+'
           || *r->p == '-') {
        if (*r->p == '.' || *r->p == 'e' || *r->p == 'E') is_float = 1;
        r->p++;
    }
    char tmp[400];
    int64_t n = r->p - start;
    if (n <= 0 || n >= (int64_t)sizeof tmp) { r->ok = 0; return rv_null(); }
    rp_memcpy(tmp, start, (size_t)n);
    tmp[n] = 0;
    char *end;
    if (is_float) {
        double f = strtod(tmp, &end);
        if (*end || !isfinite(f)) { r->ok = 0; return rv_null(); }
        return rv_flt(f);
    }
    __int128 v = 0;
    const char *d = tmp + (tmp[0] == '-');
    for (; *d; d++) {
        if (*d < '0' || *d > '9') { r->ok = 0; return rv_null(); }
        v = v * 10 + (*d - '0');
        if (v > ((__int128)1 << 64)) { r->ok = 0; return rv_null(); }   /* past 64 bits: Python keeps it */
    }
    if (tmp[0] == '-') v = -v;
    if (v > INT64_MAX || v < INT64_MIN) { r->ok = 0; return rv_null(); }
    return rv_int((int64_t)v);
}

static rv read_value(reader *r)
{
    ws(r);
    char c = *r->p;
    if (c == 'n' && !strncmp(r->p, "null", 4)) { r->p += 4; return rv_null(); }
    if (c == 't' && !strncmp(r->p, "true", 4)) { r->p += 4; return rv_bool(1); }
    if (c == 'f' && !strncmp(r->p, "false", 5)) { r->p += 5; return rv_bool(0); }
    if (c == '"') { int64_t id = read_text(r); return id < 0 ? rv_null() : rv_str(id); }
    if (c == '-' || (c >= '0' && c <= '9')) return read_number(r);
    if (c == '[') {
        r->p++;
        rp_list *l = rp_list_new(r->C, 4);
        if (!l) { r->ok = 0; return rv_null(); }
        ws(r);
        if (*r->p == ']') { r->p++; return rv_list(l); }
        while (r->ok) {
            rv item = read_value(r);
            if (!r->ok || !rp_list_push(r->C, l, item)) { r->ok = 0; break; }
            ws(r);
            if (*r->p == ',') { r->p++; continue; }
            if (*r->p == ']') { r->p++; return rv_list(l); }
            r->ok = 0;
        }
        rp_list_free(l);
        return rv_null();
    }
    if (c == '{') {
        r->p++;
        rp_map *m = rp_map_new(r->C, 4);
        if (!m) { r->ok = 0; return rv_null(); }
        ws(r);
        if (*r->p == '}') { r->p++; return rv_map(m); }
        while (r->ok) {
            int64_t key = read_text(r);
            if (!r->ok || !expect(r, ':')) break;
            rv item = read_value(r);
            if (!r->ok) break;
            if (rp_map_find(m, key) >= 0 || !rp_map_put(r->C, m, key, item)) { rv_drop(item); r->ok = 0; break; }
            ws(r);
            if (*r->p == ',') { r->p++; continue; }
            if (*r->p == '}') { r->p++; return rv_map(m); }
            r->ok = 0;
        }
        rp_map_free(m);
        return rv_null();
    }
    r->ok = 0;
    return rv_null();
}

static int read_int(reader *r, int64_t *out)
{
    ws(r);
    rv v = read_value(r);
    if (!r->ok || v.t != T_INT) { rv_drop(v); r->ok = 0; return 0; }
    *out = v.u.i;
    return 1;
}

/* The state `rp_to_json` writes, read into S; 0 (S unchanged or half-read: free it) when it is not one
 * this module can hold. */
int rp_from_json(rp_state *S, const char *text)
{
    rp_ctx C;
    rp_ctx_init(&C, &RP_MODEL, S);
    reader r = {text, &C, 1};
    const rp_model *M = &RP_MODEL;
    rp_state_changed_all(S);
    expect(&r, '[');
    expect(&r, '[');
    for (int32_t i = 0; i < M->nvars && r.ok; i++) {
        if (i) expect(&r, ',');
        rv v = read_value(&r);
        if (r.ok) rv_set(&S->vars[i], v);
    }
    expect(&r, ']');
    expect(&r, ',');
    expect(&r, '[');
    int64_t fields[8];
    for (int k = 0; k < 8 && r.ok; k++) { read_int(&r, &fields[k]); expect(&r, ','); }
    rp_flow *f = &S->flow;
    if (r.ok) {
        f->phase = (int32_t)fields[0]; f->stage = (int32_t)fields[1]; f->seat = fields[2]; f->player = fields[3];
        f->players = fields[4]; f->round = fields[5]; f->turn = fields[6]; f->start = fields[7];
        r.ok = f->phase >= 0 && f->phase < M->nphases && f->stage >= -1 && f->stage < M->phases[f->phase].nstages
               && f->players == M->players;
    }
    expect(&r, '[');
    f->nqueue = 0;
    ws(&r);
    while (r.ok && *r.p != ']') {
        int64_t s;
        if (f->nqueue) expect(&r, ',');
        if (!read_int(&r, &s) || s < 0 || s >= M->players || f->nqueue >= RP_MAX_PLAYERS) { r.ok = 0; break; }
        f->queue[f->nqueue++] = (int32_t)s;
        ws(&r);
    }
    expect(&r, ']');
    expect(&r, ',');
    rv v = read_value(&r);
    f->has_end_round = v.t == T_INT;
    f->end_round = v.t == T_INT ? v.u.i : 0;
    if (v.t != T_INT && v.t != T_NULL) r.ok = 0;
    expect(&r, ',');
    v = read_value(&r);
    if (v.t != T_BOOL) r.ok = 0;
    f->done = (int32_t)v.u.i;
    expect(&r, ',');
    read_int(&r, &f->steps);
    expect(&r, ',');
    v = read_value(&r);
    if (v.t == T_STR) f->ended_by = (int32_t)v.u.i;
    else if (v.t == T_NULL) f->ended_by = -1;
    else r.ok = 0;
    expect(&r, ']');
    expect(&r, ',');
    ws(&r);
    char *end;
    unsigned long long rng = strtoull(r.p, &end, 10);
    if (end == r.p) r.ok = 0;
    r.p = end;
    S->rng = rng;
    expect(&r, ']');
    ws(&r);
    if (*r.p) r.ok = 0;
    S->legal_known = 0;
    S->nlegal = 0;
    S->nfired = 0;
    S->nseen = 0;
    rp_ctx_done(&C);
    return r.ok && !C.err;
}

/* ------------------------------------------------------------------ probes (tests) */
/* [value, iterations left, copies left] of probe expression k on S (its locals A[i] the given ints), as
 * JSON; NULL on a bail. */
char *rp_probe(rp_state *S, int32_t k, const int64_t *ints, int32_t nints, rp_error *e)
{
    rp_ctx C;
    rp_ctx_init(&C, &RP_MODEL, S);
    rv A[16];
    for (int32_t i = 0; i < nints && i < 16; i++) A[i] = rv_int(ints[i]);
    rv v = RP_PROBES[k](&C, A);
    char *out = NULL;
    if (!C.err) {
        buf b = {malloc(256), 0, 256, 1};
        if (b.s) {
            b.s[0] = 0;
            put(&b, "[", 1);
            put_value(&b, v);
            put(&b, ",", 1);
            put_int(&b, C.b->iterations);
            put(&b, ",", 1);
            put_int(&b, C.b->copies);
            put(&b, "]", 1);
            out = b.ok ? b.s : (free(b.s), NULL);
        }
    }
    rv_drop(v);
    report(e, &C);
    rp_ctx_done(&C);
    return out;
}

/* Probe effects k run on S with a fresh move budget, as a move's effects run. */
int rp_probe_effects(rp_state *S, int32_t k, rp_error *e)
{
    rp_ctx C;
    rp_ctx_init(&C, &RP_MODEL, S);
    C.rng = S->rng;
    RP_PROBE_EFFECTS[k](&C, NULL);
    if (!C.err) S->rng = C.rng;
    S->legal_known = 0;
    report(e, &C);
    rp_ctx_done(&C);
    return !C.err;
}
