/* The head of a stored profile and a run's parameters (store_head.c), for the run store
 * (store.c). */
#ifndef PREDICT_STORE_HEAD_H
#define PREDICT_STORE_HEAD_H

#include "tool/profile/profile.h"

/* What the head of a stored profile says: its program, start time (NULL if the run has none),
 * scale (store_scale) and parameters (sorted by name, values as profile_read reads them:
 * numbers as %.17g, a value neither a number nor text as ""). */
struct store_head {
    char *program, *start, *scale;
    struct prof_param *params;
    int nparams;
};

/* The head of the profile at path, read from its run object alone: 1 (the caller frees with
 * store_head_free), or 0 when the head does not hold them (not a profile, one written in
 * another order, unreadable): the file must be read in full. */
int store_head(const char *path, struct store_head *h);
void store_head_free(struct store_head *h);

/* A copy of params[0..n) in *to, sorted by name (free with store_params_free): n, or -1 when
 * memory is short. */
int store_params_copy(const struct prof_param *params, int n, struct prof_param **to);
void store_params_free(struct prof_param *params, int n);

/* The scale of a run as text, the same from its head as from the whole profile: "p=RANKS"
 * then its parameters by name ("p=4,n=256"); NULL when memory is short. */
char *store_scale(int ranks, const struct prof_param *params, int nparams);

#endif
