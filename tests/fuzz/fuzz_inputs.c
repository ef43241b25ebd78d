/* libFuzzer harness for the files tardy reads that a user hands it (`make fuzz`): the Extra-P
 * input reader (tardy predict --extrap: text and JSON), a stored profile (tardy
 * summary/html/diff/merge, the run store) and a profile's head (the store's index). The first
 * byte of the input chooses the reader, the rest is the file. Each must return an error or a
 * result: no crash, no sanitizer report, no leak. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "predict/predict.h"
#include "predict/store_head.h"
#include "tool/profile/profile.h"

static void read_extrap(const char *path)
{
    struct profile *runs;
    char err[512];
    int n = extrap_read(path, &runs, err, sizeof err);
    if (n >= 0)
        store_free(runs, n);
}

static void read_profile(const char *path)
{
    struct profile p;
    char err[512];
    profile_init(&p);
    profile_read(&p, path, err, sizeof err);
    profile_free(&p);
}

static void read_head(const char *path)
{
    struct store_head h;
    if (store_head(path, &h))
        store_head_free(&h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    char path[] = "/dev/shm/tardy-fuzz-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        abort();
    if (write(fd, data + 1, size - 1) != (ssize_t)(size - 1))
        abort();
    close(fd);
    switch (data[0] % 3) {
    case 0:
        read_extrap(path);
        break;
    case 1:
        read_profile(path);
        break;
    default:
        read_head(path);
    }
    unlink(path);
    return 0;
}
