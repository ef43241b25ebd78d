/* The head of a stored profile (store_head.c), for the run store (store.c). */
#ifndef PREDICT_STORE_HEAD_H
#define PREDICT_STORE_HEAD_H

/* The program and start time (NULL if the run has none) of the profile at path, read from its
 * head alone: 1 (the caller frees both), or 0 when the head does not hold them (not a
 * profile, one written in another order, unreadable): the file must be read in full. */
int store_head(const char *path, char **program, char **start);

#endif
