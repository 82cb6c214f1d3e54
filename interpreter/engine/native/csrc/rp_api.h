/* The functions Python calls: this text is also handed to cffi's cdef, so it holds plain declarations
 * only (rp_state is opaque to Python). */
typedef struct rp_error { int32_t code; const char *why; int32_t where; } rp_error;

int rp_init(void);
rp_state *rp_new(void);
void rp_free(rp_state *S);
rp_state *rp_clone_state(rp_state *S);
int rp_setup(rp_state *S, uint64_t seed, rp_error *e);
int rp_apply(rp_state *S, int64_t index, rp_error *e);
/* A state stepped move by move from Python (engine/native/handle.py), with what each step reports: the state,
 * the error of the last step that bailed, and the legal moves after the last step when they fit: into `legal`, or
 * into `more` (`cap` of them) when Python has given a larger buffer.  Python owns it; a step takes it and the move
 * only, since every argument cffi converts costs the caller. */
typedef struct rp_io { rp_state *S; rp_error err; int32_t *more; int64_t cap; int32_t legal[64]; } rp_io;
int64_t rp_begin(rp_io *io, uint64_t seed);
int64_t rp_move(rp_io *io, int64_t index);
int64_t rp_move_chance(rp_io *io);
int rp_apply_chance(rp_state *S, rp_error *e);
int64_t rp_legal(rp_state *S, int32_t *out, int64_t cap, rp_error *e);
int64_t rp_player(rp_state *S);
int rp_done(rp_state *S);
int32_t rp_ended_by(rp_state *S);
int64_t rp_last_move(rp_state *S);
int rp_weights(rp_state *S, double *out, rp_error *e);
int rp_scores(rp_state *S, int64_t *ints, double *floats, int8_t *is_float, rp_error *e);
int rp_returns(rp_state *S, double *out, rp_error *e);
int32_t rp_fired(rp_state *S, int32_t *out, int32_t cap);
int32_t rp_seen(rp_state *S, uint32_t *out);
/* What judged each position of a playout that is not over (`runs.arc`): `players` values a position, each an int
 * or a float (`is_float`), and the seat of the first decision (-1: none). */
typedef struct rp_judged { int64_t n, cap; int64_t *ints; double *floats; int8_t *is_float; int64_t first_mover; } rp_judged;
void rp_judged_free(rp_judged *J);
int rp_heuristic_lowered(int32_t k);
int rp_playout(uint64_t seed, const int32_t *kinds, uint64_t *agent_rng, int64_t max_moves, int32_t *moves,
               int64_t *made, int64_t *stats, int64_t *fired, rp_state **final, rp_error *e, int32_t judge,
               rp_judged *J);
int64_t rp_playouts(uint64_t batch_seed, int64_t first, int64_t count, const int32_t *kinds, int64_t *moves);
int rp_perft(rp_state *root, int32_t depth, int64_t *nodes, int64_t *ends, rp_error *e);
char *rp_to_json(rp_state *S);
void rp_free_text(char *s);
/* Texts made in play that the process keeps (interned: not freed while it lives), and their bytes. */
int64_t rp_texts_made(int64_t *bytes);
int rp_from_json(rp_state *S, const char *text);
char *rp_probe(rp_state *S, int32_t k, const int64_t *ints, int32_t nints, rp_error *e);
int rp_probe_effects(rp_state *S, int32_t k, rp_error *e);
/* The search agents' part (rp_search.c). */
uint64_t rp_rng(rp_state *S);
void rp_set_rng(rp_state *S, uint64_t rng);
int rp_evaluate(rp_state *S, int32_t heuristic, double scale, double *out, rp_error *e);
int64_t rp_sample_chance(rp_state *S, uint64_t *rng, int64_t max_chance, rp_error *e);
int rp_rollout(rp_state *S, uint64_t *rng, int64_t depth, int32_t heuristic, double scale, int64_t max_chance,
               double *out, rp_error *e);
int64_t rp_shuffled(rp_state *S, uint64_t *rng, int32_t *out, int64_t cap, rp_error *e);
/* ismcts's tree of one decision, walked an iteration a call (rp_search.c; agents/native_tree.py). */
typedef struct rp_tree rp_tree;
rp_tree *rp_tree_new(int32_t viewer, int32_t players, double c, int64_t depth, int32_t heuristic, double scale,
                     int64_t max_chance);
void rp_tree_free(rp_tree *T);
int rp_tree_intern(rp_tree *T, int32_t move, int64_t mask, int32_t view);
int rp_tree_root_view(rp_tree *T, int32_t view);
int64_t rp_tree_iterate(rp_tree *T, rp_state *S, uint64_t *rng, int32_t *moves, int64_t *masks, int64_t cap,
                        int64_t *missing, double *out, rp_error *e);
void rp_tree_backup(rp_tree *T, const double *returns);
int64_t rp_tree_root(rp_tree *T, int32_t view, double *total);
double rp_tree_spread(rp_tree *T);
/* Determinizations that only deal, drawn natively (rp_determinize.c; engine/determinize.py's plan). */
typedef struct rp_dealer rp_dealer;
rp_dealer *rp_dealer_new(rp_state *real, int32_t viewer, const int64_t *plan, int64_t nplan, rp_error *e);
void rp_dealer_free(rp_dealer *D);
rp_state *rp_dealer_sample(rp_dealer *D, uint64_t *rng, int32_t draws, int64_t *fallbacks, rp_error *e);
int rp_view_lowered(int32_t var);
/* ---- the adapters' observation vector, written natively (rp_observe.c; adapters/encoding.py's layout) ---- */
typedef struct rp_layout {
    int64_t size;                   /* numbers in one vector */
    const int32_t *cells;           /* per state variable: its first items kept by position */
    const int32_t *counts;          /* per state variable: its entries' component counts, the components or 0 */
    const int32_t *phase_stages;    /* per phase: where its stages start in stage_slot */
    const int32_t *stage_slot;      /* per stage of each phase: its place among every stage name, sorted */
    int32_t nstages;                /* the stage names of all phases */
    int64_t text_hidden;            /* the text id of "hidden" (a masked value is a map of that one key) */
    int64_t nsymbols;               /* symbol_of_text's length */
    const int32_t *symbol_of_text;  /* text id -> its place among the game's symbols (from 1), 0 for none */
} rp_layout;
int rp_views_lowered(void);
int64_t rp_text_id(const char *bytes, int64_t n);
int rp_observe(rp_state *S, const rp_layout *L, int32_t seat, float *out, rp_error *e);
int rp_observe_masked(rp_state *S, const rp_layout *L, int32_t seat, int32_t masked, float *out, int8_t *mask,
                      int64_t nactions);
/* ---- a batch of games stepped in one call (rp_batch.c; the batched environment, adapters/gym_env.py) ---- */
typedef struct rp_batch rp_batch;
rp_batch *rp_batch_new(int64_t n);
void rp_batch_free(rp_batch *B);
int64_t rp_batch_log(rp_batch *B, int64_t slot, uint64_t *seed, const int32_t **ops);
int64_t rp_batch_step(rp_batch *B, const rp_layout *L, const int64_t *actions, uint64_t *rngs, int8_t *mine,
                      int8_t *over, double *rewards, double *returns, int64_t *movers, float *obs, int8_t *masks,
                      int64_t *nlegal, int32_t *legal, int64_t nactions);
