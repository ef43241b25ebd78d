/* The option table: defaults, values, bad values named, unknown names with suggestions. */
#include <string.h>

#include "check.h"
#include "tool/base/base.h"

int main(void)
{
    struct strbuf w;
    sb_init(&w);
    char *none[] = {NULL};
    CHECK(cfg_load(none, &w) == 0);
    CHECK(cfg.depth == 8 && cfg.enable == 1 && !strcmp(cfg.summary, "stderr"));

    char *good[] = {"TARDY_DEPTH=3", "TARDY_ENABLE=no", "TARDY_PARAMS=n=5", "PATH=/bin", NULL};
    CHECK(cfg_load(good, &w) == 0);
    CHECK(cfg.depth == 3 && cfg.enable == 0 && !strcmp(cfg.params, "n=5"));

    sb_free(&w);
    sb_init(&w);
    char *bad[] = {"TARDY_DEPTH=abc", "TARDY_TOP=0", "TARDY_DEPHT=4", "TARDY_ZZZZZZZZ=1", NULL};
    CHECK(cfg_load(bad, &w) == 4);
    CHECK(cfg.depth == 8 && cfg.top == 10); /* defaults kept */
    CHECK(strstr(w.data, "TARDY_DEPTH=abc is not an integer in 0..64"));
    CHECK(strstr(w.data, "TARDY_TOP=0"));
    CHECK(strstr(w.data, "unknown option TARDY_DEPHT (did you mean TARDY_DEPTH?)"));
    CHECK(strstr(w.data, "unknown option TARDY_ZZZZZZZZ (see `tardy help options`)"));
    sb_free(&w);

    struct strbuf help;
    sb_init(&help);
    cfg_help(&help);
    CHECK(strstr(help.data, "TARDY_DEPTH") && strstr(help.data, "TARDY_PROFILE"));
    sb_free(&help);
    CHECK_DONE();
}
