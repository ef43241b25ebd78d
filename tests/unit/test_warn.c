/* Warnings: the line format, and tardy_warn_once from many threads at once (one line per flag). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "tool/base/base.h"

#define THREADS 8

static atomic_int per_process;
static atomic_int per_object[2];
static atomic_int go;

static void *hammer(void *arg)
{
    (void)arg;
    while (!atomic_load(&go))
        ;
    for (int i = 0; i < 1000; i++) {
        tardy_warn_once(&per_process, "table full (%d)", i);
        tardy_warn_once(&per_object[i % 2], "object %d", i % 2);
    }
    return NULL;
}

/* Everything the calls in between write to stderr. */
static char *capture(void (*run)(void))
{
    FILE *f = tmpfile();
    int saved = dup(STDERR_FILENO);
    dup2(fileno(f), STDERR_FILENO);
    run();
    dup2(saved, STDERR_FILENO);
    close(saved);
    fseek(f, 0, SEEK_END); /* written with write(2): the stream's position is stale */
    long n = ftell(f);
    char *text = calloc((size_t)n + 1, 1);
    rewind(f);
    if (fread(text, 1, (size_t)n, f) != (size_t)n)
        text[0] = '\0';
    fclose(f);
    return text;
}

static void format(void)
{
    tardy_warn("before MPI: %s", "no rank");
    tardy_rank = 3;
    tardy_warn("after: %d", 42);
    tardy_rank = -1;
}

static void threads(void)
{
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, hammer, NULL);
    atomic_store(&go, 1);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
}

static int count(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, what)); p++)
        n++;
    return n;
}

int main(void)
{
    char *text = capture(format);
    CHECK(!strcmp(text, "tardy: before MPI: no rank\ntardy[rank 3]: after: 42\n"));
    free(text);

    text = capture(threads);
    CHECK(count(text, "\n") == 3);
    CHECK(count(text, "tardy: table full (") == 1);
    CHECK(count(text, "tardy: object 0\n") == 1);
    CHECK(count(text, "tardy: object 1\n") == 1);
    free(text);

    /* A flag that is set stays set: later calls say nothing. */
    text = capture(threads);
    CHECK(text[0] == '\0');
    free(text);
    CHECK_DONE();
}
